import Contract
import Geometry
import Ruler

extension RulerRequestHandler {
    /// The `rise` service: how much higher one end of a span stands, from the current reading.
    ///
    /// Keys: `span` (a number with `unit`, or a text such as "1.2m"), `unit`, `axis` (roll,
    /// pitch or steepest; default steepest) and `result_unit` (default the live `length_unit`).
    /// The request is checked before the reading, so a bad request is `bad_request` even when
    /// there is no reading.
    func riseData(_ object: [String: JSONValue], reading: CurrentReading?) throws(RequestFailure) -> JSONValue {
        let fields = try RequestFields(service: .rise, object: object, accepted: ["span", "unit", "axis", "result_unit"])
        let span = try fields.positiveLength("span", example: Self.example(.rise))
        var axis = RiseAxis.steepest
        if let text = try fields.string("axis", example: "\"steepest\"") {
            guard let named = RiseAxis(rawValue: text.lowercased()) else {
                throw .badRequest("\"axis\": \"\(text)\" is not an axis; give "
                    + RiseAxis.allCases.map(\.rawValue).joined(separator: ", ") + ", or leave it out for steepest.")
            }
            axis = named
        }
        let requestedUnit = try fields.lengthUnit("result_unit")
        let (surface, reading) = try Self.surface(from: reading)
        let resultUnit = requestedUnit ?? reading.lengthUnit
        let rise = surface.rise(over: span, axis: axis, in: resultUnit)
        var data: [String: JSONValue] = [
            "span": .object(["value": Reported.length(span), "unit": .string(span.unit.symbol)]),
            "axis": .string(axis.rawValue),
            "rise": Reported.length(rise.rise),
            "result_unit": .string(resultUnit.symbol),
            "high_end": rise.highEnd.map { .string($0.rawValue) } ?? .null,
            "angle_deg": Reported.degrees(rise.angle),
            "uncertainty": Reported.length(rise.uncertainty),
            "reading_age_s": Reported.number(reading.age, decimals: Reported.ageDecimals),
            "stable": .bool(reading.isStable),
        ]
        if axis == .steepest {
            data["azimuth_deg"] = rise.azimuth.map(Reported.degrees) ?? .null
        }
        data.merge(Self.uncertaintyFields(reading, answerUncertainty: rise.uncertainty)) { _, new in new }
        return .object(data)
    }
}
