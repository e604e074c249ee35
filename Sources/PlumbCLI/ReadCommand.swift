import Accelerometers
import Control
import Geometry
import Level
import Sampling
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `plumb read`: averaged readings of roll, pitch and tilt.
struct ReadCommand: Subcommand {
    static let name = "read"
    static let summary = "Print roll, pitch and tilt readings."
    static let usage = "plumb read [--bus PATH | --sensor sim] [--address ADDR] [--state-dir DIR | --config FILE | --raw] "
        + "[--unit U] [--rate HZ] [--average N] [--tolerance ANGLE] [--mount M] [--count N | --watch] [--json]"
    static let specs = SensorOptions.specs + CalibrationOptions.specs + [
        .value("--unit", "UNIT", "deg (default), percent, mm_per_m or in_per_ft."),
        .value("--rate", "HZ", "Output data rate, one the chip offers (below); default the chip's nearest to 100."),
        .value("--average", "N", "Samples averaged per reading (default: one second's worth, = rate)."),
        .value("--tolerance", "ANGLE", "Level tolerance: degrees, or with a unit (\"1.5 mm/m\", \"0.2%\"). Default 0.1."),
        .mount,
        .value("--count", "N", "Readings to print, then exit (default 1)."),
        .flag("--watch", "Print readings until interrupted (Ctrl-C)."),
        .flag("--json", "One JSON object per line: roll, pitch, tilt, unit, level, stable, gravity {x,y,z}, calibration."),
    ]
    static let helpSummary = "Prints readings, each the average of N samples. Angles follow Plumb's conventions: roll =\n"
        + "atan2(gy, gz), pitch = atan2(−gx, √(gy²+gz²)), tilt = atan2(√(gx²+gy²), gz)."
    static let footer = CalibrationOptions.helpText + "\n\n" + RateAdvice.text

    /// The rate without `--rate`: the chip's offered rate nearest it.
    static let defaultRateHz = 100.0

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        let calibrationOptions = try CalibrationOptions(parsed)
        let unit = try parsed.angleUnit() ?? .deg
        let givenRate = try parsed.double("--rate", what: "a rate in Hz")
        let givenAverage = try parsed.integer("--average", in: 1...100_000)
        let tolerance = try parseTolerance(parsed.string("--tolerance"))
        let mount = try parsed.mount()
        let count = try parsed.integer("--count", in: 1...10_000_000)
        let watch = parsed.has("--watch")
        if watch && count != nil {
            throw UsageError("--count and --watch exclude each other: give one.")
        }
        let chipOnly = ["--rate", "--average", "--tolerance", "--mount", "--raw", "--state-dir"].filter { parsed.given($0) }
        if case .agent(let agent) = try sensor.route(for: name, chipOnly: chipOnly, output: output) {
            return try readThroughAgent(agent, parsed: parsed, unit: parsed.angleUnit(), count: watch ? nil : (count ?? 1),
                                        output: output)
        }
        let opened = try sensor.open(calibrating: calibrationOptions, output: output)
        let chip = opened.chip
        let rate = try sensor.rate(givenRate, default: defaultRateHz, for: chip)
        let average = givenAverage ?? max(1, Int(rate.rounded()))
        if !sensor.isSimulated, let warning = RateAdvice.warning(forRate: rate, chip: chip.chip) {
            output.error(warning)
        }
        var pipeline = sensor.pipeline(calibration: opened.calibration, mount: mount, tolerance: tolerance, chip: chip, rateHz: rate)
        let sampler = Sampler(chip: chip)
        InterruptFlag.install()
        do {
            try sampler.start(SamplingRequest(rateHz: rate, rangeG: chip.chip.defaultRangeG))
            var printed = 0
            while watch || printed < (count ?? 1) {
                if InterruptFlag.raised { break }
                let measurement = try pipeline.measure(sampler.nextBatch(samples: average))
                let report = ReadingFigures(measurement, unit: unit, level: measurement.isLevel)
                output.print(parsed.has("--json")
                    ? jsonLine(SourcedReport(ReadReport(figures: report, calibration: opened.calibration,
                                                        chip: chip.chip.model), source: .chip))
                    : report.line() + "  " + opened.calibration.label)
                printed += 1
            }
            try? chip.stop()
        } catch let failure as CommandFailure {
            try? chip.stop()
            throw failure
        } catch {
            try? chip.stop()
            throw CommandFailure("\(error)")
        }
        return 0
    }

    /// `read` while the agent owns the chip: its readings (each new one, `count` of them or
    /// until Ctrl-C), in `unit` or else the agent's `angle_unit`, with its calibration.
    static func readThroughAgent(_ agent: AgentLink, parsed: ParsedArguments, unit: AngleUnit?, count: Int?,
                                 output: Console) throws -> Int32 {
        InterruptFlag.install()
        if !parsed.has("--json") { output.error("reading through \(ReadingSource.agent.text), \(agent.owner.who)") }
        var printed = 0
        try agent.watch(interval: 0.1) { reading in
            let figures = ReadingFigures(reading.measurement, unit: unit ?? reading.angleUnit, level: reading.measurement.isLevel)
            let calibration = CalibrationInUse(agentReading: reading)
            output.print(parsed.has("--json") ? jsonLine(SourcedReport(ReadReport(figures: figures, calibration: calibration, chip: agent.owner.model ?? ""),
                                                       source: .agent))
                : figures.line() + "  " + calibration.label + "  (agent)")
            printed += 1
            return count.map { printed < $0 } ?? true
        }
        return 0
    }

    /// The level tolerance without `--tolerance`.
    static let defaultTolerance = Angle(degrees: 0.1)

    static func parseTolerance(_ text: String?) throws(UsageError) -> Angle {
        guard let text else { return defaultTolerance }
        let angle: Angle
        do { angle = try Angle.parse(text) } catch { throw UsageError("--tolerance: \(error)") }
        guard angle.degrees >= 0, angle.degrees < 90 else {
            throw UsageError("--tolerance must be at least 0 and under 90°; got '\(text)'.")
        }
        return angle
    }
}

/// Set by SIGINT/SIGTERM/SIGHUP so a `--watch` loop ends cleanly, with the chip back in standby
/// (and `plumb watch`'s terminal restored): SIGHUP is an SSH session that dropped.
enum InterruptFlag {
    private static let flag = Atomic<Bool>(false)

    static var raised: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        signal(SIGINT) { _ in InterruptFlag.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in InterruptFlag.flag.store(true, ordering: .relaxed) }
        signal(SIGHUP) { _ in InterruptFlag.flag.store(true, ordering: .relaxed) }
        // A parent may have spawned us with these blocked (the mask is inherited); a handler
        // for a blocked signal never runs, and Ctrl-C would do nothing.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
