import Accelerometers
import Calibrating
import Configuration
import Contract
import FoundationEssentials
import Geometry
import I2C
import Level
import Persistence
#if canImport(Glibc)
import Glibc
#endif

/// `plumb calibrate six-point|reversal`: measures the chip's own errors and stores the correction
/// in `calibration.json` in the state directory. `plumb calibrate show` prints what is stored.
struct CalibrateCommand: Subcommand {
    static let name = "calibrate"
    static let summary = "Calibrate the accelerometer: six-point tumble or two-position reversal; show the stored one."
    static let usage = "plumb calibrate six-point|reversal [--bus PATH | --sensor sim [--sim-* …]] [--address ADDR] "
        + "[--state-dir DIR | --config FILE] [--mount flat|upright] [--seconds S] [--temperature C] [--timeout S] [--json]\n"
        + "       plumb calibrate show [--state-dir DIR | --config FILE] [--json]"
    static let maxPositionals = 1
    static let specs = SensorOptions.specs + [
        .value("--state-dir", "DIR", "Where calibration.json goes (default: the config file's state_dir)."),
        .value("--config", "FILE", "Config file to take state_dir from (default \(AgentConfiguration.defaultPath))."),
        .value("--mount", "MOUNT", "reversal only: flat (default, both axes) or upright (along the bar)."),
        .value("--seconds", "S", "Seconds averaged per position, at least 2 (default 2)."),
        .value("--temperature", "C", "six-point, read here: the temperature the tumble is made at, °C, for a chip"
               + " without a sensor (read it off a thermometer beside it). A chip with one records its own."),
        .value("--timeout", "S", "Give up, saving nothing, after this many seconds (default 600)."),
        .flag("--json", "Print the stored record as one JSON object (show: null when there is none)."),
    ]
    static let helpSummary = """
        six-point: put the device on each of its six faces, in any order; each is detected, averaged once
        still, and the offsets, gains and cross-axis terms are fitted (a 3×3 matrix and an offset, by least
        squares), with the residual in mg.
        reversal: read, turn the device 180° about the vertical on the same spot, read again; half the sum
        is the zero error, half the difference the surface's tilt. It refines a stored calibration's offset.
        At a terminal each step waits for Enter; otherwise each new position is taken as soon as the
        sensor is still on it (after having moved), so a script can drive it.
        A tumble is recorded with its temperature (the chip's sensor, the agent's source, or --temperature);
        tumbles at two temperatures at least 5 °C apart merge into one record with the drift fitted.
        show: prints calibration.json for people: the method, the chip, the correction, the temperature each
        tumble was made at, and the drift with temperature if one was learned (or how to learn one).
        """

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        guard let method = parsed.positionals.first else {
            throw UsageError("say which calibration: six-point or reversal (or show, to print the stored one).")
        }
        if method == "show" { return try show(parsed, output: output) }
        guard method == "six-point" || method == "reversal" else {
            throw UsageError("the calibrations are six-point and reversal (and show prints the stored one); got '\(method)'.")
        }
        let sensor = try SensorOptions(parsed)
        let seconds = try parsed.double("--seconds", in: 2...600, what: "seconds") ?? 2
        let timeout = try parsed.double("--timeout", in: 1...86_400, what: "seconds") ?? 600
        let mount = try parsed.mount()
        if method == "six-point", parsed.string("--mount") != nil {
            throw UsageError("--mount applies to reversal only: the tumble measures the chip itself, in every pose.")
        }
        guard mount.remap == Mount.flat.remap || mount.remap == Mount.upright.remap else {
            throw UsageError("--mount: the reversal works flat or upright; got '\(mount.name)'.")
        }
        let statedTemperature = try parsed.double("--temperature", in: -40...125, what: "degrees Celsius")
        if method != "six-point", statedTemperature != nil {
            throw UsageError("--temperature applies to six-point only: the reversal refines the zero at whatever temperature it is.")
        }
        let chipOnly = ["--seconds", "--state-dir", "--mount", "--temperature"].filter { parsed.given($0) }
        if case .agent(let agent) = try sensor.route(for: name + " " + method, chipOnly: chipOnly, output: output) {
            InterruptFlag.install()
            var calibration = AgentCalibration(agent: agent, output: output, timeout: timeout)
            let applied = method == "six-point" ? try calibration.sixPoint() : try calibration.reversal()
            output.print(parsed.has("--json") ? JSONValue.object(applied).adding(source: .agent).jsonText
                : agentSummary(applied))
            return 0
        }
        let store = StateStore(directory: try parsed.stateDirectory())
        // Before the tumble, not after it: a result that cannot be saved is minutes lost.
        do {
            try store.checkWritable(for: "the calibration")
        } catch {
            throw CommandFailure(error.description)
        }

        let chip = try sensor.open()
        let chipRecord = try chip.calibrationChip()
        let guide = ConsoleCalibrationGuide(output: output, isInteractive: isatty(STDIN_FILENO) != 0)
        let session = CalibrationSession(chip: chip, guide: guide, timeout: timeout)
        var record: CalibrationRecord
        var merge: CalibrationMerge?
        do throws(CalibrationFailure) {
            try session.start()
            defer { session.stop() }
            if method == "six-point" {
                record = try SixPointProcedure(session: session, seconds: seconds).run(chip: chipRecord)
                if chip.chip.temperature != nil, statedTemperature != nil {
                    output.error("note: the \(chip.chip.model) reads its own temperature; --temperature is ignored.")
                }
                record.temperatureC = (session.meanCelsius ?? statedTemperature).map { $0.rounded(toDecimals: 2) }
                let existing = store.loadCalibration()
                if let warning = existing.warning { output.error("warning: " + warning) }
                let merged = existing.record.map { $0.merging(record) }
                    ?? CalibrationMerge(record: record, outcome: .replaced(record.temperatureC == nil ? .noTemperature : .first))
                record = merged.record
                merge = merged
            } else {
                let existing = store.loadCalibration()
                if let warning = existing.warning { output.error("warning: " + warning) }
                record = try ReversalProcedure(session: session, seconds: seconds, mount: mount)
                    .run(chip: chipRecord, base: existing.record)
            }
        } catch {
            throw CommandFailure(error)
        }
        do {
            try store.save(calibration: record)
        } catch {
            throw CommandFailure(error.description)
        }
        output.print(parsed.has("--json") ? jsonLine(record) : summary(record))
        if let merge { output.error(merge.message) }
        output.error("wrote \(store.calibrationPath)")
        return 0
    }

    /// `plumb calibrate show`: the stored record's report, or its JSON. No calibration is not an
    /// error (exit 0): it says so and how to make one, as `forget` says there is nothing to clear.
    static func show(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let unused = specs.map(\.name).filter { !["--state-dir", "--config", "--json"].contains($0) && parsed.given($0) }
        if let option = unused.first {
            throw UsageError("\(option) does not apply to show: it reads calibration.json and opens no sensor.")
        }
        let store = StateStore(directory: try parsed.stateDirectory())
        let loaded = store.loadCalibration()
        if let warning = loaded.warning { output.error("warning: " + warning) }
        guard let record = loaded.record else {
            output.print(parsed.has("--json") ? "null"
                : "no calibration in \(store.calibrationPath): readings are uncalibrated. Make one with"
                    + " plumb calibrate six-point (or reversal, for the zero alone).")
            return 0
        }
        output.print(parsed.has("--json") ? jsonLine(record) : record.report().joined(separator: "\n"))
        return 0
    }

    /// What the agent applied, from its `calibration_applied` event.
    static func agentSummary(_ details: [String: JSONValue]) -> String {
        var lines = ["\(details[.method]?.stringValue ?? "the") calibration applied by the running agent,"
            + " \(details[.date]?.stringValue ?? ""); its next readings are calibrated (no reload needed)."]
        if let residual = details[.residualMG], let rms = residual["rms"]?.numberValue, let max = residual["max"]?.numberValue {
            lines.append("residual  rms \(fixed(rms, 2, signed: false)) mg, max \(fixed(max, 2, signed: false)) mg")
        }
        if let celsius = details[.temperatureC]?.numberValue {
            lines.append("made at \(fixed(celsius, 1, signed: false)) °C")
        }
        if let drift = details[.drift]?.stringValue { lines.append(drift) }
        if let offset = details[.zeroOffsetMG]?.elements.compactMap(\.numberValue), offset.count == 3 {
            lines.append("zero offset  x \(fixed(offset[0], 2, signed: true)) mg  y \(fixed(offset[1], 2, signed: true)) mg"
                + "  z \(fixed(offset[2], 2, signed: true)) mg")
        }
        if details[.persisted] == .bool(false) {
            lines.append("warning: the agent could not save it (see journalctl -u plumb); it applies until the agent restarts.")
        } else {
            lines.append("saved by the agent in its state directory (calibration.json).")
        }
        return lines.joined(separator: "\n")
    }

    /// The human summary of a stored record.
    static func summary(_ record: CalibrationRecord) -> String {
        let calibration = record.calibration
        func mg(_ value: Double) -> String { fixed(value * 1000, 2, signed: true) + " mg" }
        var lines = ["\(record.method.rawValue) calibration of the chip at \(record.chip.address) on \(record.chip.bus)"
                     + " (DEVID \(record.chip.devid)), \(record.date)"]
        lines.append("offset    x \(mg(calibration.offset.x))   y \(mg(calibration.offset.y))   z \(mg(calibration.offset.z))")
        for (index, row) in calibration.matrix.rowArrays.enumerated() {
            let cells = row.map { fixed($0, 5, signed: true) }.joined(separator: "  ")
            lines.append((index == 0 ? "matrix    " : "          ") + cells)
        }
        if let residual = record.residualMilliG {
            lines.append("residual  rms \(fixed(residual.rms, 2, signed: false)) mg, max \(fixed(residual.max, 2, signed: false)) mg")
        }
        if let reversal = record.reversal {
            func deg(_ value: Double?) -> String { value.map { fixed($0, 3, signed: true) + "°" } ?? "n/a" }
            lines.append("zero error (\(reversal.mount))  roll \(deg(reversal.zeroRollDeg))  pitch \(deg(reversal.zeroPitchDeg))")
            lines.append("surface tilt        roll \(deg(reversal.surfaceRollDeg))  pitch \(deg(reversal.surfacePitchDeg))")
        }
        return lines.joined(separator: "\n")
    }
}
