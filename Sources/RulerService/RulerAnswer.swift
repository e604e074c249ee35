import Contract
import PlumbDomain
import Ruler

extension RulerRequestHandler {
    /// The `ruler` service: a ruler's ticks, and what an indicator at a pixel reads.
    ///
    /// Keys: `length` (a number with `unit`, or a text such as "30cm"), `unit`, `style`
    /// (default the unit's standard), `px_per_unit` (default the classic density) and
    /// `indicator_px`. More than ``RulerLayout/maximumTicks`` ticks is `too_large`, found
    /// before any tick is built.
    func rulerData(_ object: [String: JSONValue]) throws(RequestFailure) -> JSONValue {
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
            "ticks": .array(ticks.map(Self.json)),
        ]
        if let indicatorPx, let indicator {
            data["indicator"] = .object([
                "px": .number(indicatorPx),
                "at": Reported.length(indicator),
                "length": Reported.everyUnit(indicator),
            ])
        }
        return .object(data)
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
