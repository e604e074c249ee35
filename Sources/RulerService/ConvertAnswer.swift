import Contract
import Geometry
import Ruler

extension RulerRequestHandler {
    /// The `convert` service: a value from one unit to another, pixels included.
    ///
    /// Keys: `value` (a number with `from`, or a text such as "1 3/16in"), `from`, `to`, and,
    /// when a side is px, `px_per_unit` and `px_unit` (the density's physical unit; default the
    /// physical unit on the other side, at the classic 80 px/cm or 200 px/in). Negative values
    /// convert; the physical side must be within ±1 km.
    func convertData(_ object: [String: JSONValue]) throws(RequestFailure) -> JSONValue {
        let fields = try RequestFields(service: .convert, object: object,
                                       accepted: ["value", "from", "to", "px_per_unit", "px_unit"])
        guard let written = try fields.numberOrText("value", example: "12 or \"1 3/16in\"") else {
            throw .badRequest("a convert request needs \"value\", such as \(Self.example(.convert)).")
        }
        let from = try fields.rulerUnit("from")
        if let own = written.unit, let from, own != from {
            throw .badRequest("\"value\" is written in \(own.symbol) but \"from\" says \(from.symbol);"
                + " give one unit or make them agree.")
        }
        guard let source = written.unit ?? from else {
            throw .badRequest("\"value\" has no unit; give \"from\" (\(RequestFields.unitList(allowingPixels: true)))"
                + " or write it in the value, such as \"12in\".")
        }
        guard let target = try fields.rulerUnit("to") else {
            throw .badRequest("a convert request needs \"to\", one of \(RequestFields.unitList(allowingPixels: true)),"
                + " such as \(Self.example(.convert)).")
        }
        let density = try Self.pixelDensity(fields, from: source, to: target)
        let conversion = Conversion(value: written.value, from: source, to: target, density: density)
        if let physical = conversion.physicalSide {
            try Self.checkWithinLimit(physical)
        }
        var data: [String: JSONValue] = [
            "value": .number(written.value),
            "from": .string(source.symbol),
            "to": .string(target.symbol),
            "result": Reported.number(conversion.result, decimals: Reported.lengthDecimals),
            "exact": .bool(conversion.isExact(decimals: Reported.lengthDecimals)),
        ]
        if let density, source != target {
            data["px_per_unit"] = .number(density.pixelsPerUnit)
            data["px_unit"] = .string(density.unit.symbol)
        }
        return .object(data)
    }

    /// The density for a conversion to or from pixels; nil when neither side is px, where the
    /// density keys are refused rather than silently ignored.
    private static func pixelDensity(_ fields: RequestFields, from source: RulerUnit,
                                     to target: RulerUnit) throws(RequestFailure) -> PixelDensity? {
        let pixelsPerUnit = try fields.number("px_per_unit", example: "80")
        let pixelUnit = try fields.lengthUnit("px_unit")
        guard source == .px || target == .px else {
            guard pixelsPerUnit == nil, pixelUnit == nil else {
                throw .badRequest("\"px_per_unit\" and \"px_unit\" apply only when \"from\" or \"to\" is px;"
                    + " leave them out.")
            }
            return nil
        }
        // px to px has no physical side; the density goes unused, and centimetres are as good as any.
        let unit = pixelUnit ?? source.lengthUnit ?? target.lengthUnit ?? .cm
        let density = PixelDensity(pixelsPerUnit: pixelsPerUnit ?? PixelDensity.classic(for: unit).pixelsPerUnit,
                                   per: unit)
        guard density.pixelsPerUnit.isFinite, density.pixelsPerUnit > 0 else {
            throw .badRequest("\"px_per_unit\" must be greater than 0; leave it out for the classic"
                + " \(Int(PixelDensity.classic(for: unit).pixelsPerUnit)) px/\(unit.symbol).")
        }
        return density
    }

    /// Refuses a length beyond ±1 km: a convert is arithmetic, but not on any number at all.
    private static func checkWithinLimit(_ length: Length) throws(RequestFailure) {
        let limit = RulerLayout.maximumLength
        guard length.value.isFinite, abs(length.millimetres) <= limit.millimetres else {
            throw .badRequest("\(length) is outside ±\(limit); convert a length within 1 km either way.")
        }
    }
}
