import Contract
import Geometry
import Ruler
import RulerService

/// `plumb shim`: how much to raise each foot of a machine to level it, from one averaged
/// reading, as the agent's `shim` service answers it.
struct ShimCommand: Subcommand {
    static let name = "shim"
    static let summary = "Work out the shim under each foot that levels a machine."
    static let usage = "plumb shim --length L --width W [--unit U] [--feet 3|4] [--result-unit U] [--mount M] "
        + "[--bus PATH | --sensor sim [--sim-roll D --sim-pitch D …]] [--address ADDR] "
        + "[--state-dir DIR | --config FILE | --raw] [--json]"
    static let specs = SensorOptions.specs + CalibrationOptions.specs + [
        .value("--length", "L", "The footprint along x, front to rear feet, with its unit: 1.2m, 47in. Required."),
        .value("--width", "W", "The footprint along y, left to right feet, with its unit: 0.8m, 31.5in. Required."),
        .value("--unit", "U", "Unit of a --length or --width written without one: mm, cm, m, in or ft."),
        .value("--feet", "N", "4 (default: one at each corner) or 3 (one at the front centre, two at the rear)."),
        .value("--result-unit", "U", "Unit of the shims and foot positions: mm (default), cm, m, in or ft."),
        .mount,
        .flag("--json", "Print the MQTT shim service's data object instead of text."),
    ]
    static let helpSummary = "Reads one second of samples (100 at 100 Hz) with the level at the centre of a machine's\n"
        + "footprint and works out how much to raise each foot so all stand as high as the highest, which\n"
        + "gets no shim. Feet: front_left, front_right, rear_left, rear_right; with 3, front, rear_left,\n"
        + "rear_right. Uncertainties are 95 % (k = 2) from the reading's noise."
    static let footer = Frame.text + "\n\n" + CalibrationOptions.helpText

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let unit = try parsed.lengthUnit("--unit")
        let length = try footprint("--length", parsed, unit: unit, example: "--length 1.2m")
        let width = try footprint("--width", parsed, unit: unit, example: "--width 0.8m")
        let feet = try parsed.choice("--feet", from: ["3", "4"]).flatMap { Int($0) } ?? 4
        try RulerServiceCall.printMeasured(.shim, for: name, parsed: parsed, output: output, request: { resultUnit in
            var request: [String: JSONValue] = [
                "length": .string(LengthArgument.requestText(length)), "width": .string(LengthArgument.requestText(width)),
                "feet": .integer(feet), "result_unit": .string(resultUnit.symbol),
            ]
            if let unit { request["unit"] = .string(unit.symbol) }
            return request
        }, text: { data, resultUnit in Self.text(data, length: length, width: width, unit: resultUnit) })
        return 0
    }

    private static func footprint(_ name: String, _ parsed: ParsedArguments, unit: LengthUnit?,
                                  example: String) throws(UsageError) -> Length {
        guard let text = parsed.string(name) else {
            throw UsageError("\(name) is required: the footprint with its unit,"
                + " such as 'plumb shim --length 1.2m --width 0.8m'.")
        }
        return try LengthArgument.positive(text, naming: name, unit: unit, example: example)
    }

    /// The plan for people: a row a foot, then which foot stays.
    static func text(_ data: JSONValue, length: Length, width: Length, unit: LengthUnit) -> String {
        let feet = data["feet"]?.elements ?? []
        // Positions are exact (half the footprint); shims are measured, shown to a micrometre.
        func position(_ foot: JSONValue, _ key: String) -> String {
            foot[key]?.numberValue.map { LengthArgument.text($0, unit, signed: true) } ?? "n/a"
        }
        func measured(_ foot: JSONValue, _ key: String) -> String {
            foot[key]?.numberValue.map { LengthArgument.measured($0, unit) } ?? "n/a"
        }
        let rows = feet.map { foot in
            [foot["foot"]?.stringValue ?? "?", position(foot, "x"), position(foot, "y"), measured(foot, "shim"),
             "± " + measured(foot, "uncertainty")]
        }
        let header = ["foot", "x (front)", "y (left)", "shim", "± (k = 2)"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.indices.map { $0 == 0 ? cells[$0].padded(to: widths[$0]) : cells[$0].rightAligned(to: widths[$0]) }
                .joined(separator: "   ")
        }
        let highest = data["highest_foot"]?.stringValue ?? "?"
        let largest = data["largest_shim"]?.numberValue.map { LengthArgument.measured($0, unit) } ?? "n/a"
        var lines = ["footprint  \(LengthArgument.text(length.value, length.unit)) long (x) × "
            + "\(LengthArgument.text(width.value, width.unit)) wide (y), \(feet.count) feet, the level at its centre", ""]
        lines.append(line(header))
        lines += rows.map(line)
        lines += ["", "highest    \(highest): leave it as it is; raise each other foot by its shim (largest \(largest))"]
        return lines.joined(separator: "\n")
    }
}
