import Accelerometers
import Agent
import Contract
import Control
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import Ruler
import RulerService
import Sampling
import Settings
import Vibration
import VibrationVocabulary

/// What `plumb watch` was asked to show: checked from the command line before the sensor opens.
struct WatchPlan {
    var unit: AngleUnit
    var tolerance: Angle
    var mount: Mount
    var windowSeconds: Double
    var span: Length?
    var axis: RiseAxis
    var length: Length?
    var width: Length?
    var feet: Int
    var resultUnit: LengthUnit
    var count: Int?
    /// The output data rate: 100 Hz unless `--rate`.
    var rateHz: Double = WatchCommand.defaultRateHz
    /// `--rate` as given; checked against the chip's rates once it is open.
    var givenRateHz: Double?
    /// The machine group the vibration zone is judged by.
    var machineClass: MachineClass = .default

    /// Blocks in the moving window: ``WatchCommand/blockSeconds`` each.
    var windowBlocks: Int { max(2, Int((windowSeconds / WatchCommand.blockSeconds).rounded())) }
}

/// `plumb watch`: a live view for the person mounting and shimming a machine, over SSH.
struct WatchCommand: Subcommand {
    static let name = "watch"
    static let summary = "Show the level live: bubble, angles, level and stable, rise and shims."
    static let usage = "plumb watch [--bus PATH | --sensor sim [--sim-* …]] [--address ADDR] "
        + "[--state-dir DIR | --config FILE | --raw] [--unit U] [--tolerance ANGLE] [--mount M] [--average-window S] "
        + "[--span L [--axis A]] [--length L --width W [--feet 3|4]] [--result-unit U] [--rate HZ] [--class C] [--count N]"
    static let specs = SensorOptions.specs + CalibrationOptions.specs + [
        .value("--unit", "UNIT", "deg (default), percent, mm_per_m or in_per_ft."),
        .value("--tolerance", "ANGLE", "Level tolerance: degrees, or with a unit (\"1.5 mm/m\", \"0.2%\"). Default 0.1."),
        .mount,
        .value("--average-window", "S", "Seconds in the moving average, 0.2–60 (default 1)."),
        .value("--span", "L", "Show the live rise over a span of L, with its unit: 1.2m, 47in."),
        .value("--axis", "AXIS", "The rise's axis: roll (along y), pitch (along x) or steepest (default)."),
        .value("--length", "L", "Show each foot's shim for a footprint L long (along x); needs --width."),
        .value("--width", "W", "The footprint's width (along y); needs --length."),
        .value("--feet", "N", "4 (default: one at each corner) or 3 (one at the front centre, two at the rear)."),
        .value("--result-unit", "U", "Unit of the rise and the shims: mm (default), cm, m, in or ft."),
        .value("--rate", "HZ", "Output data rate, one the chip offers (default its nearest to 100); the vibration line needs more than 25.6,\n"
               + "and its band reaches rate/2.56 (800 Hz on a 400 kHz bus: 10–312.5 Hz)."),
        .value("--class", "CLASS", "The machine group the vibration zone is judged by: \(MachineClass.list) (default class_i)."),
        .value("--count", "N", "Stop after N readings (one a window); default: until q or Ctrl-C."),
    ]
    static let helpSummary = """
        At a terminal it redraws in place about ten times a second: the bubble drawn in text (on the high
        side; the edge is 4 × the tolerance), roll, pitch and tilt, the level and stable flags and the
        calibration in use, with the live rise (--span) and each foot's shim (--length, --width), as
        plumb rise and plumb shim work them out. q or Ctrl-C quits and restores the terminal. Without a
        terminal (standard input or output redirected) it prints one line per reading instead: a reading
        is the moving average over --average-window, printed each time the window has filled anew.
        Below them, the vibration as `plumb vibration` and the agent's P/vibration report it: the RMS
        velocity over its band, the ISO 10816 zone, the dominant frequency and whether the machine runs
        (the agent's default threshold and dwells), from a 1 s window that ends every block. It samples
        at --rate (100 Hz by default) in blocks of 0.1 s.
        """
    static let footer = Frame.text + "\n\n" + CalibrationOptions.helpText

    /// Seconds of samples in one block: the redraw interval.
    static let blockSeconds = 0.1
    static let defaultRateHz = 100.0

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        var plan = try parsePlan(parsed)
        let sensor = try SensorOptions(parsed)
        let calibrationOptions = try CalibrationOptions(parsed)
        let chipOnly = ["--rate", "--average-window", "--tolerance", OptionSpec.mount.name, "--raw", "--state-dir", "--class"]
            .filter { parsed.given($0) }
        if case .agent(let agent) = try sensor.route(for: name, chipOnly: chipOnly, output: output) {
            return try watchThroughAgent(agent, plan: plan, output: output)
        }

        let opened = try sensor.open(calibrating: calibrationOptions, output: output)
        plan.rateHz = try sensor.rate(plan.givenRateHz, default: defaultRateHz, for: opened.chip)
        if !sensor.isSimulated, let warning = RateAdvice.warning(forRate: plan.rateHz, chip: opened.chip.chip) {
            output.error(warning)
        }
        var pipeline = sensor.pipeline(calibration: opened.calibration, mount: plan.mount, tolerance: plan.tolerance,
                                       chip: opened.chip, rateHz: plan.rateHz, windowBlocks: plan.windowBlocks)
        let vibration = vibrationMonitor(plan)
        let sampler = Sampler(chip: opened.chip)
        InterruptFlag.install()
        let terminal = WatchTerminal.isInteractive ? try WatchTerminal(console: output) : nil
        // Every way out (q, a signal, a sensor error) passes here: the terminal as it was, the
        // chip in standby.
        defer {
            terminal?.restore()
            try? opened.chip.stop()
        }
        do {
            try sampler.start(SamplingRequest(rateHz: plan.rateHz, rangeG: opened.chip.chip.defaultRangeG))
        } catch {
            throw CommandFailure(error.description)
        }
        let clock = MonotonicPacingClock()
        let colour = getenv("NO_COLOR") == nil
        var blocks = 0
        var readings = 0
        var lastDraw = -Double.infinity
        var shaking: VibrationOutcome?
        while !InterruptFlag.raised {
            let batch: SampleBatch
            do { batch = try sampler.nextBatch(samples: max(1, Int(plan.rateHz * blockSeconds))) } catch {
                throw CommandFailure(error.description)
            }
            let measurement = try pipeline.measure(batch)
            if case .success(let monitor) = vibration {
                shaking = monitor.add(batch, endingAt: batch.time).last ?? shaking
            }
            let shown = WatchVibration(vibration, latest: shaking)
            blocks += 1
            // A reading is a window filled anew: the first once it is full, then one a window.
            let isReading = blocks % plan.windowBlocks == 0
            if isReading { readings += 1 }
            if let terminal {
                if terminal.keys().contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") }) { break }
                // At most about ten redraws a second, even when blocks come in a burst.
                let now = clock.now()
                if now - lastDraw >= blockSeconds * 0.9 {
                    let view = view(of: measurement, plan: plan, calibration: opened.calibration,
                                    settled: blocks >= plan.windowBlocks, vibration: shown)
                    terminal.draw(view.screen(colour: colour))
                    lastDraw = now
                }
            } else if isReading {
                output.print(view(of: measurement, plan: plan, calibration: opened.calibration, settled: true,
                                  vibration: shown).line)
            }
            if let count = plan.count, readings >= count { break }
        }
        return 0
    }

    /// `watch` while the agent owns the chip: its readings (its calibration, mount, zero, window
    /// and tolerance), redrawn about ten times a second at a terminal, else one line a second.
    /// The vibration line is left out: `plumb vibration` shows the agent's windows.
    static func watchThroughAgent(_ agent: AgentLink, plan: WatchPlan, output: Console) throws -> Int32 {
        InterruptFlag.install()
        let terminal = WatchTerminal.isInteractive ? try WatchTerminal(console: output) : nil
        defer { terminal?.restore() }
        if terminal == nil { output.error("readings of \(ReadingSource.agent.text), \(agent.owner.who)") }
        let colour = getenv("NO_COLOR") == nil
        var readings = 0
        try agent.watch(interval: terminal == nil ? 1 : blockSeconds) { reading in
            var shown = plan
            shown.tolerance = reading.tolerance
            if let mount = try? Mount(parsing: reading.mount) { shown.mount = mount }
            let view = view(of: reading.measurement, plan: shown, calibration: CalibrationInUse(agentReading: reading),
                            settled: true)
            readings += 1
            if let terminal {
                if terminal.keys().contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") }) { return false }
                terminal.draw(view.screen(colour: colour))
            } else {
                output.print(view.line + "  (agent)")
            }
            return plan.count.map { readings < $0 } ?? true
        }
        return 0
    }

    /// The view of one measurement, with the rise and shim services' answers for it.
    static func view(of measurement: Measurement, plan: WatchPlan, calibration: CalibrationInUse,
                     settled: Bool, vibration: WatchVibration? = nil) -> WatchView {
        let reading = CurrentReading(measurement, age: 0, lengthUnit: plan.resultUnit)
        func ask(_ service: RulerServiceName, _ request: [String: JSONValue]) -> Result<JSONValue, WatchView.Failure> {
            // A refusal (the device on its side: no rise) is shown, not fatal: the fitter is
            // handling it and it will be back on the machine in a moment.
            do { return .success(try RulerServiceCall.data(service, request, reading: reading)) } catch {
                return .failure(WatchView.Failure(message: "\(error)"))
            }
        }
        let rise = plan.span.map { span in
            ask(.rise, ["span": .string(LengthArgument.requestText(span)), "axis": .string(plan.axis.rawValue),
                        "result_unit": .string(plan.resultUnit.symbol)])
        }
        var shim: Result<JSONValue, WatchView.Failure>?
        if let length = plan.length, let width = plan.width {
            shim = ask(.shim, ["length": .string(LengthArgument.requestText(length)),
                               "width": .string(LengthArgument.requestText(width)), "feet": .integer(plan.feet),
                               "result_unit": .string(plan.resultUnit.symbol)])
        }
        return WatchView(figures: ReadingFigures(measurement, unit: plan.unit, level: measurement.isLevel),
                         levelGravity: measurement.levelGravity, level: measurement.isLevel ?? false,
                         stable: measurement.isStable, calibration: calibration, plan: plan, rise: rise, shim: shim,
                         settled: settled, vibration: vibration)
    }

    /// The agent's vibration stage at the plan's rate and class, with the agent's defaults for
    /// the rest; the reason when the rate is too slow for a velocity band.
    static func vibrationMonitor(_ plan: WatchPlan) -> Result<VibrationMonitor, VibrationAnalyzerError> {
        let json = #"{"sample_rate_hz": \#(ParsedArguments.format(plan.rateHz)), "vibration_class": "\#(plan.machineClass.rawValue)"}"#
        guard let settings = try? LiveSettings().applying(json: Array(json.utf8)).vibration else {
            return .failure(VibrationAnalyzerError(.invalidRate(plan.rateHz)))
        }
        do throws(VibrationAnalyzerError) {
            return .success(try VibrationMonitor(settings: settings))
        } catch {
            return .failure(error)
        }
    }

    /// The flags, checked as `plumb rise` and `plumb shim` check theirs.
    static func parsePlan(_ parsed: ParsedArguments) throws(UsageError) -> WatchPlan {
        let window = try parsed.double("--average-window", in: 0.2...60, what: "seconds") ?? 1
        let span = try parsed.string("--span").map { text throws(UsageError) in
            try LengthArgument.positive(text, naming: "--span", unit: nil, example: "--span 1.2m")
        }
        let axis = try parsed.choice("--axis", from: RiseAxis.allCases.map(\.rawValue)).flatMap(RiseAxis.init) ?? .steepest
        if span == nil, parsed.string("--axis") != nil {
            throw UsageError("--axis is the rise's axis; give --span too, such as '--span 1.2m --axis pitch'.")
        }
        let length = try parsed.string("--length").map { text throws(UsageError) in
            try LengthArgument.positive(text, naming: "--length", unit: nil, example: "--length 1.2m")
        }
        let width = try parsed.string("--width").map { text throws(UsageError) in
            try LengthArgument.positive(text, naming: "--width", unit: nil, example: "--width 0.8m")
        }
        if (length == nil) != (width == nil) {
            throw UsageError("the shims need the whole footprint: give --length and --width together,"
                + " such as '--length 1.2m --width 0.8m'.")
        }
        let feet = try parsed.choice("--feet", from: ["3", "4"]).flatMap { Int($0) }
        if feet != nil, length == nil {
            throw UsageError("--feet is for the shims; give --length and --width too.")
        }
        let rate = try parsed.double("--rate", what: "a rate in Hz")
        let machine = try parsed.choice("--class", from: MachineClass.allCases.map(\.rawValue))
            .flatMap(MachineClass.init(rawValue:)) ?? .default
        var plan = WatchPlan(unit: try parsed.angleUnit() ?? .deg, tolerance: try ReadCommand.parseTolerance(parsed.string("--tolerance")),
                         mount: try parsed.mount(), windowSeconds: window, span: span, axis: axis, length: length,
                         width: width, feet: feet ?? 4, resultUnit: try parsed.lengthUnit("--result-unit") ?? Frame.defaultResultUnit,
                         count: try parsed.integer("--count", in: 1...10_000_000))
        plan.givenRateHz = rate
        plan.machineClass = machine
        return plan
    }
}
