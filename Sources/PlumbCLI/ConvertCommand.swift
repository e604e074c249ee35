import Contract
import Geometry
import Ruler

/// `plumb convert`: a value from one unit to another, pixels included, as the agent's `convert`
/// service answers it.
struct ConvertCommand: Subcommand {
    static let name = "convert"
    static let summary = "Convert a length between mm, cm, m, in, ft and px."
    static let usage = "plumb convert LENGTH TO [--px-per-unit N] [--px-unit U] [--json]"
    /// `1 3/16 in mm` is the most words a conversion takes.
    static let maxPositionals = 4
    static let specs: [OptionSpec] = [
        .value("--px-per-unit", "N", "Pixels per --px-unit when a side is px (default the classic 80 px/cm, 200 px/in)."),
        .value("--px-unit", "U", "The unit the density counts per: mm, cm, m, in or ft (default the other side's)."),
        .flag("--json", "Print the MQTT convert service's data object instead of text."),
    ]
    static let helpSummary = "Converts LENGTH, a value with its unit, to the unit TO: 'plumb convert 1 3/16in mm',\n"
        + "'plumb convert 12 in cm', 'plumb convert 400 px cm'. Lengths are exact (1 in is 25.4 mm) and\n"
        + "reported to 6 decimals; '=' means the figure is exact, '≈' that it is rounded. Pixels convert at\n"
        + "a density, the classic 80 px/cm (200 px/in) unless given. Physical lengths must be within ±1 km."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        guard parsed.positionals.count >= 2, let targetText = parsed.positionals.last else {
            throw UsageError("give a value with its unit and the unit to convert to, such as 'plumb convert 12 in cm'"
                + " or 'plumb convert 1 3/16in mm'.")
        }
        let valueText = parsed.positionals.dropLast().joined(separator: " ")
        let written: LengthText
        do { written = try LengthText(parsing: valueText) } catch { throw UsageError(error.description) }
        guard let source = written.unit else {
            throw UsageError("'\(valueText)' has no unit; write the unit after it, such as 'plumb convert \(valueText) in"
                + " \(targetText)'.")
        }
        guard let target = RulerUnit(parsing: targetText) else {
            throw UsageError("'\(targetText)' is not a unit to convert to; give one of \(LengthArgument.allUnits),"
                + " such as 'plumb convert \(valueText) mm'.")
        }
        let pixelsPerUnit = try parsed.double("--px-per-unit", what: "a number of pixels per unit")
        let pixelUnit = try parsed.lengthUnit("--px-unit")
        if source != .px && target != .px && (pixelsPerUnit != nil || pixelUnit != nil) {
            throw UsageError("--px-per-unit and --px-unit apply only when converting to or from px; leave them out.")
        }
        if let pixelsPerUnit, pixelsPerUnit <= 0 {
            throw UsageError("--px-per-unit must be greater than 0; got \(ParsedArguments.format(pixelsPerUnit))."
                + " Leave it out for the classic 80 px/cm (200 px/in).")
        }

        var request: [String: JSONValue] = ["value": .string(valueText), "to": .string(target.symbol)]
        if let pixelsPerUnit { request["px_per_unit"] = .number(pixelsPerUnit) }
        if let pixelUnit { request["px_unit"] = .string(pixelUnit.symbol) }
        let data = try RulerServiceCall.data(.convert, request)
        if parsed.has("--json") {
            output.print(data.jsonText)
            return 0
        }
        let result = data["result"]?.numberValue.map { plain($0, 6) } ?? "n/a"
        let sign = data["exact"] == .bool(true) ? "=" : "≈"
        var line = "\(Self.numberText(of: valueText)) \(source.symbol) \(sign) \(result) \(target.symbol)"
        if let density = data["px_per_unit"]?.numberValue, let unit = data["px_unit"]?.stringValue {
            line += " (at \(plain(density, 6)) px/\(unit))"
        }
        output.print(line)
        return 0
    }

    /// The number as it was written, without its unit and with single spaces: `1 3/16` from
    /// `1 3/16in`, `1-3/16` from `1-3/16 in`.
    static func numberText(of text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // The unit is the longest tail that reads as one: "mm" rather than "m" in "30mm".
        var end = words.endIndex
        var index = words.endIndex
        while index > words.startIndex {
            index = words.index(before: index)
            if RulerUnit(parsing: words[index...]) != nil { end = index }
        }
        return words[..<end].split(separator: " ").joined(separator: " ")
    }
}
