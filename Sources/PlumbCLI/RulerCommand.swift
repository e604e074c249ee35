import Contract
import Geometry
import Ruler

/// `plumb ruler`: a ruler's graduations as the agent's `ruler` service lays them out, and the
/// ruler drawn as SVG.
struct RulerCommand: Subcommand {
    static let name = "ruler"
    static let summary = "Lay out a ruler's graduations, read an indicator, draw it as SVG."
    static let usage = "plumb ruler LENGTH [--style metric|decimal|fractional] [--px-per-unit N] [--indicator-px N] "
        + "[--json] [--svg FILE]"
    static let maxPositionals = 3
    static let specs: [OptionSpec] = [
        .value("--style", "STYLE", "metric (mm, cm, m: tenths), decimal (in, ft: tenths) or fractional (in: 1/16)."),
        .value("--px-per-unit", "N", "Pixels per unit of LENGTH (default the classic 80 px/cm, 200 px/in)."),
        .value("--indicator-px", "N", "Read the ruler at N px from its start; the SVG draws a red line there."),
        .flag("--json", "Print the MQTT ruler service's data object instead of text."),
        .value("--svg", "FILE", "Also draw the ruler as a standalone SVG file."),
    ]
    static let helpSummary = "Lays out a ruler LENGTH long as the MQTT ruler service does: LENGTH carries its unit\n"
        + "(30cm, 12in, \"1 3/16in\" or 1 3/16in), each unit is divided by the style, and a tick's pixel\n"
        + "position is its length times the density. At most 20,000 ticks; a longer ruler needs a coarser\n"
        + "style or a larger unit."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw UsageError("give the ruler's length with its unit, such as 'plumb ruler 30cm'"
                + " or 'plumb ruler 1 3/16in'.")
        }
        let length = try LengthArgument.positive(parsed.joinedPositionals, naming: "the ruler's length", unit: nil,
                                                 example: "plumb ruler 30cm")
        let style = try parsed.string("--style").map { text throws(UsageError) in
            guard let style = GraduationStyle(parsing: text) else {
                throw UsageError("--style takes metric, decimal or fractional; got '\(text)'.")
            }
            return style
        }
        let pixelsPerUnit = try parsed.double("--px-per-unit", what: "a number of pixels per unit")
        let indicatorPx = try parsed.double("--indicator-px", what: "a pixel position from the ruler's start")
        let layout = try Self.layout(length, style: style, pixelsPerUnit: pixelsPerUnit)
        var indicator: Length?
        if let indicatorPx {
            do {
                indicator = try layout.length(atPixel: indicatorPx)
            } catch {
                throw UsageError("--indicator-px: \(error.message)")
            }
        }
        if layout.tickCount > RulerLayout.maximumTicks {
            // The domain's message says how many ticks it would take and what fits instead.
            do { _ = try layout.checkedTicks() } catch { throw CommandFailure(error.message) }
        }

        if let file = parsed.string("--svg") {
            try output.write(RulerDrawing.svg(layout: layout, indicatorPx: indicatorPx), toFile: file)
        }
        if parsed.has("--json") {
            var request: [String: JSONValue] = [
                "length": .string(LengthArgument.requestText(length)),
                "style": .string(layout.style.rawValue),
            ]
            if let pixelsPerUnit { request["px_per_unit"] = .number(pixelsPerUnit) }
            if let indicatorPx { request["indicator_px"] = .number(indicatorPx) }
            output.print(try RulerServiceCall.data(.ruler, request).jsonText)
            return 0
        }
        output.print(summary(of: layout, indicatorPx: indicatorPx, reading: indicator))
        return 0
    }

    /// The layout, with a message naming the flag that made it impossible.
    private static func layout(_ length: Length, style: GraduationStyle?,
                               pixelsPerUnit: Double?) throws(UsageError) -> RulerLayout {
        // The length is already checked, so an error with the style alone is the style's.
        if let style {
            do { _ = try RulerLayout(length: length, style: style) } catch {
                throw UsageError("--style \(style.rawValue): \(error.message)")
            }
        }
        do {
            return try RulerLayout(length: length, style: style, pixelsPerUnit: pixelsPerUnit)
        } catch {
            throw UsageError("--px-per-unit: \(error.message)")
        }
    }

    /// The readable summary: the length in every unit, the graduations, the pixels, a picture of
    /// the first units and what the indicator reads.
    static func summary(of layout: RulerLayout, indicatorPx: Double?, reading: Length?) -> String {
        let unit = layout.length.unit
        // The last tick's whole units, worked out as the layout counts ticks.
        let wholeUnits = (layout.tickCount - 1) / layout.style.subdivisions
        var lines = [
            "length     \(LengthArgument.text(layout.length.value, unit)) (\(LengthArgument.everyUnit(layout.length)))",
            "style      \(layout.style.rawValue): \(layout.style.subdivisions) divisions per \(unit.symbol)",
            "density    \(plain(layout.density.pixelsPerUnit, 6)) px/\(unit.symbol)",
            "width      \(plain(layout.widthPx, 3)) px",
            "ticks      \(layout.tickCount), labelled 0 to \(wholeUnits)",
        ]
        if let indicatorPx, let reading {
            lines.append("indicator  \(plain(indicatorPx, 3)) px reads \(LengthArgument.text(reading.value, unit))"
                + " (\(LengthArgument.everyUnit(reading)))")
        }
        lines += picture(of: layout)
        return lines.joined(separator: "\n")
    }

    /// The first two units (or the whole ruler if shorter) in characters, one a tick, the taller
    /// the tick the taller the mark, with the unit labels under them:
    ///
    ///     |::::!::::|::::!::::|
    ///     0         1         2
    static func picture(of layout: RulerLayout) -> [String] {
        let shown = min(layout.tickCount, 2 * layout.style.subdivisions + 1)
        // By height, so each style reads as it is drawn: the unit, the half, and so on down.
        func mark(_ height: Double) -> Character {
            switch height {
            case 1...: "|"
            case 0.75...: "!"
            case 0.5...: ":"
            case 0.25...: "'"
            case 0.125...: "."
            default: ","
            }
        }
        var ruler = ""
        var labels = ""
        for (index, tick) in layout.ticks().prefix(shown).enumerated() {
            ruler.append(mark(tick.height))
            if let label = tick.label, labels.count <= index {
                labels += String(repeating: " ", count: index - labels.count) + label
            }
        }
        let more = shown < layout.tickCount ? " …" : ""
        return ["picture    " + ruler + more, "           " + labels]
    }
}
