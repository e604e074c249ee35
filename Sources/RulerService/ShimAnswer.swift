import Contract
import Geometry
import Ruler

extension RulerRequestHandler {
    /// The `shim` service: how much to raise each foot to level a machine, from the current
    /// reading.
    ///
    /// Keys: `length` (along x, front to rear) and `width` (along y), each a number with `unit`
    /// or a text with its unit; `unit`; `feet` (3 or 4, default 4); `result_unit` (default the
    /// live `length_unit`). The reply's `unit`, `length` and `width` give the footprint in
    /// `unit`, or in the length's own unit when `unit` was left out.
    func shimData(_ object: [String: JSONValue], reading: CurrentReading?) throws(RequestFailure) -> JSONValue {
        let fields = try RequestFields(service: .shim, object: object,
                                       accepted: ["length", "width", "unit", "feet", "result_unit"])
        let example = Self.example(.shim)
        let length = try fields.positiveLength("length", example: example)
        let width = try fields.positiveLength("width", example: example)
        let layout = try Self.footLayout(fields)
        let footprintUnit = try fields.lengthUnit("unit") ?? length.unit
        let requestedUnit = try fields.lengthUnit("result_unit")
        let (surface, reading) = try Self.surface(from: reading)
        let resultUnit = requestedUnit ?? reading.lengthUnit
        let plan = surface.shims(length: length, width: width, feet: layout, in: resultUnit)
        let largest = plan.feet.map(\.uncertainty).max { $0.value < $1.value } ?? Length(0, resultUnit)
        var data: [String: JSONValue] = [
            "feet": .array(plan.feet.map { foot in
                .object([
                    "foot": .string(foot.foot),
                    "x": Reported.length(foot.x),
                    "y": Reported.length(foot.y),
                    "shim": Reported.length(foot.shim),
                    "uncertainty": Reported.length(foot.uncertainty),
                ])
            }),
            "highest_foot": .string(plan.highestFoot),
            "largest_shim": Reported.length(plan.largestShim),
            "result_unit": .string(resultUnit.symbol),
            "unit": .string(footprintUnit.symbol),
            "length": Reported.length(length.converted(to: footprintUnit)),
            "width": Reported.length(width.converted(to: footprintUnit)),
            "reading_age_s": Reported.number(reading.age, decimals: Reported.ageDecimals),
            "stable": .bool(reading.isStable),
        ]
        data.merge(Self.uncertaintyFields(reading, answerUncertainty: largest)) { _, new in new }
        return .object(data)
    }

    /// The `feet` key: 3 or 4, as a whole number (`4.0` is fine, `3.5` is not); 4 when absent.
    private static func footLayout(_ fields: RequestFields) throws(RequestFailure) -> FootLayout {
        guard let count = try fields.number("feet", example: "4") else { return .four }
        // Compared as doubles: converting an arbitrary JSON number to Int could trap.
        guard let layout = FootLayout.allCases.first(where: { Double($0.rawValue) == count }) else {
            throw .badRequest("\"feet\" must be 3 or 4; got \(count). Give 3 for a front foot and two rear ones,"
                + " 4 for one at each corner.")
        }
        return layout
    }
}
