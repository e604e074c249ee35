import Geometry
import Ruler

extension RequestFields {
    /// A physical length from `key` and the shared `unit` key: a number with `unit`, or a text
    /// with its own unit (`"1.2m"`, `"1 3/16in"`), when `unit` is optional but must agree.
    /// Checked to be finite, greater than 0 and at most 1 km.
    ///
    /// - Parameter example: a request that shows the key in use, for the message when it is missing.
    func positiveLength(_ key: String, example: String) throws(RequestFailure) -> Length {
        guard let written = try numberOrText(key, example: "\"1.2m\"") else {
            throw .badRequest("a \(service) request needs \"\(key)\", such as \(example).")
        }
        let unit = try unitOf(key, written: written, example: example)
        do {
            return try Length(written.value, unit).checkedPositive(naming: "\"\(key)\"")
        } catch {
            throw RequestFailure(error)
        }
    }

    /// The unit of `written`: the one in its text, the `unit` key's, or both when they agree.
    private func unitOf(_ key: String, written: LengthText, example: String) throws(RequestFailure) -> LengthUnit {
        let given = try lengthUnit("unit")
        switch written.unit {
        case nil:
            guard let given else {
                throw .badRequest("\"\(key)\" has no unit; give \"unit\" (\(Self.unitList(allowingPixels: false)))"
                    + " or write it in the value, such as \(example).")
            }
            return given
        case .px?:
            throw .badRequest("\"\(key)\" must be a physical length in \(Self.unitList(allowingPixels: false)); px is not one.")
        case .length(let own)?:
            if let given, given != own {
                throw .badRequest("\"\(key)\" is written in \(own.symbol) but \"unit\" says \(given.symbol);"
                    + " give one unit or make them agree.")
            }
            return own
        }
    }

    /// The `result_unit` key, or `fallback` when it is absent.
    func resultUnit(default fallback: LengthUnit) throws(RequestFailure) -> LengthUnit {
        try lengthUnit("result_unit") ?? fallback
    }
}
