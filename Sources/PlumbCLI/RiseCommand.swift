import Contract
import Geometry
import Ruler
import RulerService
import Settings

/// `plumb rise`: how much higher one end of a span stands, from one averaged reading, as the
/// agent's `rise` service answers it.
struct RiseCommand: Subcommand {
    static let name = "rise"
    static let summary = "Measure how much higher one end of a span stands, and which end."
    static let usage = "plumb rise SPAN [--axis roll|pitch|steepest] [--result-unit U] [--unit U] [--mount M] "
        + "[--bus PATH | --sensor sim [--sim-roll D --sim-pitch D …]] [--address ADDR] "
        + "[--state-dir DIR | --config FILE | --raw] [--json]"
    static let maxPositionals = 3
    static let specs = SensorOptions.specs + CalibrationOptions.specs + [
        .value("--axis", "AXIS", "roll (along y), pitch (along x) or steepest (default: along the tilt)."),
        .value("--result-unit", "U", "Unit of the rise and its uncertainty: mm (default), cm, m, in or ft."),
        .value("--unit", "U", "Unit of a SPAN written without one."),
        .mount,
        .flag("--json", "Print the MQTT rise service's data object instead of text."),
    ]
    static let helpSummary = "Reads one second of samples (100 at 100 Hz), turns them into the level frame of the mount\n"
        + "(x to the front, y to the left, z up) and reports SPAN·tan(angle): how much higher the high end\n"
        + "of a SPAN-long run stands, with a 95 % (k = 2) uncertainty from the reading's noise. SPAN\n"
        + "carries its unit: 1.2m, 47in, \"1 3/16in\"."
    static let footer = Frame.text + "\n\n" + CalibrationOptions.helpText

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw UsageError("give the span with its unit, such as 'plumb rise 1.2m' or 'plumb rise 47in --axis pitch'.")
        }
        let span = try LengthArgument.positive(parsed.joinedPositionals, naming: "the span",
                                               unit: parsed.lengthUnit("--unit"), example: "plumb rise 1.2m")
        let axis = try parsed.choice("--axis", from: RiseAxis.allCases.map(\.rawValue)) ?? RiseAxis.steepest.rawValue
        try RulerServiceCall.printMeasured(.rise, for: name, parsed: parsed, output: output, request: { resultUnit in
            ["span": .string(LengthArgument.requestText(span)), "axis": .string(axis), "result_unit": .string(resultUnit.symbol)]
        }, text: { data, resultUnit in Self.text(data, span: span, axis: axis, unit: resultUnit) })
        return 0
    }

    /// The answer for people: the rise, the high end named in the level's frame, the angle.
    static func text(_ data: JSONValue, span: Length, axis: String, unit: LengthUnit) -> String {
        let rise = data["rise"]?.numberValue ?? .nan
        let uncertainty = data["uncertainty"]?.numberValue ?? .nan
        let angle = data["angle_deg"]?.numberValue ?? .nan
        let over = LengthArgument.text(span.value, span.unit)
        var lines = [
            "rise       \(LengthArgument.measured(rise, unit)) over \(over) along \(axis),"
                + " ± \(LengthArgument.measured(uncertainty, unit)) (k = 2)",
        ]
        if let end = data["high_end"]?.stringValue {
            var high = "high end   \(end): \(Frame.describe(end)) is higher"
            if axis == RiseAxis.steepest.rawValue {
                high = "high end   \(end): \(Frame.describe(end)) is nearest uphill"
                if let azimuth = data["azimuth_deg"]?.numberValue {
                    high += "; uphill is \(fixed(azimuth, 1, signed: true))° from +x toward +y"
                }
            }
            lines.append(high)
        } else {
            lines.append("high end   none: level along \(axis)")
        }
        let angleName = axis == RiseAxis.steepest.rawValue ? "tilt" : axis
        lines.append("angle      \(angleName) \(fixed(angle, 3, signed: axis != RiseAxis.steepest.rawValue))°")
        return lines.joined(separator: "\n")
    }
}

/// The level frame the rise and shim answers are given in, for their help and text.
enum Frame {
    /// The agent's default `length_unit`, which its services answer in unless asked otherwise.
    static let defaultResultUnit = LiveSettings().lengthUnit

    static let text = """
        The frame is the level's, after the mount: x to the front, y to the left, z up; so +x is the
        front, -x the rear, +y the left and -y the right. Without hardware, try --sensor sim --sim-roll 1.
        """

    /// `+x` → `the front end`, and so on.
    static func describe(_ end: String) -> String {
        switch end {
        case "+x": "the front end"
        case "-x": "the rear end"
        case "+y": "the left side"
        case "-y": "the right side"
        default: "the \(end) end"
        }
    }
}
