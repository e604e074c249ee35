import Contract
import Geometry
import Ruler

extension RulerRequestHandler {
    /// The `ruler` service: a ruler's ticks, and what an indicator at a pixel reads.
    ///
    /// Keys: `length` (a number with `unit`, or a text such as "30cm"), `unit`, `style`
    /// (default the unit's standard), `px_per_unit` (default the classic density) and
    /// `indicator_px`. More than ``RulerLayout/maximumTicks`` ticks is `too_large`, found
    /// before any tick is built.
    func rulerData(_ object: [String: JSONValue]) throws(RequestFailure) -> RulerReplyData {
        let fields = try RequestFields(service: .ruler, object: object,
                                       accepted: ["length", "unit", "style", "px_per_unit", "indicator_px"])
        let length = try fields.positiveLength("length", example: Self.example(.ruler))
        var style: GraduationStyle?
        if let text = try fields.string("style", example: "\"metric\"") {
            guard let named = GraduationStyle(parsing: text) else {
                throw .badRequest("\"style\": \"\(text)\" is not a graduation style; give "
                    + GraduationStyle.allCases.map(\.rawValue).joined(separator: ", ") + ", or leave it out.")
            }
            style = named
        }
        let pixelsPerUnit = try fields.number("px_per_unit", example: "80")
        let indicatorPx = try fields.number("indicator_px", example: "412")
        let layout: RulerLayout
        var indicator: Length?
        let ticks: [Tick]
        do {
            layout = try RulerLayout(length: length, style: style, pixelsPerUnit: pixelsPerUnit)
            // The tick limit first, so a ruler too large to lay out is too_large whatever else is asked.
            ticks = try layout.checkedTicks()
            if let indicatorPx { indicator = try layout.length(atPixel: indicatorPx) }
        } catch {
            throw RequestFailure(error)
        }
        var data: [String: JSONValue] = [
            "length": Reported.everyUnit(layout.length),
            "unit": .string(layout.length.unit.symbol),
            "style": .string(layout.style.rawValue),
            "px_per_unit": Reported.number(layout.density.pixelsPerUnit, decimals: Reported.lengthDecimals),
            "width_px": Reported.number(layout.widthPx, decimals: Reported.pixelDecimals),
            "tick_count": .integer(layout.tickCount),
        ]
        if let indicatorPx, let indicator {
            data["indicator"] = .object([
                "px": .number(indicatorPx),
                "at": Reported.length(indicator),
                "length": Reported.everyUnit(indicator),
            ])
        }
        return RulerReplyData(summary: data, ticks: ticks)
    }
}

/// The `ruler` service's answer: its ticks kept as ``Tick`` values, and everything else.
///
/// A ruler may have 10,000 ticks: as a `JSONValue` tree that is about 5.5 MB (a dictionary per
/// tick) for a 1.2 MB reply, on an agent that runs in 18. So the agent writes the ticks straight
/// into the reply's bytes (``write(to:)``); ``json`` builds the tree for those who want a value.
/// Both give the same text.
struct RulerReplyData: Sendable, Equatable {
    /// Every member of the data object but `ticks`.
    var summary: [String: JSONValue]
    var ticks: [Tick]

    /// The data object as a value.
    var json: JSONValue {
        var object = summary
        object["ticks"] = .array(ticks.map(Self.json))
        return .object(object)
    }

    /// About how long the written object is: most ticks write in under 80 bytes.
    var estimatedBytes: Int { 512 + 80 * ticks.count }

    /// The data object as compact JSON with sorted keys, the same text as ``json`` gives.
    func write(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        let keys = (Array(summary.keys) + ["ticks"]).sorted()
        for (index, key) in keys.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            ReplyEncoding.writeString(key, to: &output)
            output.append(UInt8(ascii: ":"))
            if let value = summary[key] {
                ReplyEncoding.write(value, to: &output)
            } else {
                writeTicks(to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The ticks array, each tick's members in key order: at, height, label, px, rank.
    private func writeTicks(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        for (index, tick) in ticks.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: #"{"at":"#.utf8)
            ReplyEncoding.writeNumber(tick.at, to: &output)
            output.append(contentsOf: #","height":"#.utf8)
            ReplyEncoding.writeNumber(tick.height, to: &output)
            output.append(contentsOf: #","label":"#.utf8)
            if let label = tick.label {
                ReplyEncoding.writeString(label, to: &output)
            } else {
                output.append(contentsOf: "null".utf8)
            }
            output.append(contentsOf: #","px":"#.utf8)
            ReplyEncoding.writeNumber(tick.px, to: &output)
            output.append(contentsOf: #","rank":"#.utf8)
            output.append(contentsOf: String(tick.rank).utf8)
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
    }

    private static func json(_ tick: Tick) -> JSONValue {
        .object([
            // `at` is exact by construction (i / subdivisions): no rounding to undo.
            "at": .number(tick.at),
            "px": .number(tick.px),
            "rank": .integer(tick.rank),
            "height": .number(tick.height),
            "label": tick.label.map(JSONValue.string) ?? .null,
        ])
    }
}
