import Contract
import Geometry
import Ruler

/// The keys of one request object, read with the checks every service shares: unknown keys are
/// refused (naming the accepted ones), a key of the wrong type is refused by name, and `null`
/// counts as leaving a key out.
struct RequestFields {
    /// The service, for messages.
    let service: RulerServiceName
    private let values: [String: JSONValue]

    /// - Parameter accepted: the service's keys, besides `transaction` and `sent_at`, which
    ///   every service takes.
    init(service: RulerServiceName, object: [String: JSONValue], accepted: [String]) throws(RequestFailure) {
        let allowed = accepted + ["transaction", "sent_at"]
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .badRequest("a \(service.rawValue) request has no key \"\(unknown)\"; the accepted keys are "
                + allowed.map { "\"\($0)\"" }.joined(separator: ", ") + ".")
        }
        self.service = service
        values = object.filter { $0.value != .null }
    }

    /// Whether `key` was given (and not `null`).
    func has(_ key: String) -> Bool { values[key] != nil }

    /// A number, or nil when absent.
    func number(_ key: String, example: String) throws(RequestFailure) -> Double? {
        guard let value = values[key] else { return nil }
        switch value {
        case .number(let number): return number
        case .integer(let number): return Double(number)
        default: throw wrongType(key, value, expected: "a number, such as \(example)")
        }
    }

    /// A string, or nil when absent.
    func string(_ key: String, example: String) throws(RequestFailure) -> String? {
        guard let value = values[key] else { return nil }
        guard case .string(let text) = value else {
            throw wrongType(key, value, expected: "a string, such as \(example)")
        }
        return text
    }

    /// A number or a text such as "1 3/16in", or nil when absent.
    func numberOrText(_ key: String, example: String) throws(RequestFailure) -> LengthText? {
        guard let value = values[key] else { return nil }
        switch value {
        case .number(let number): return LengthText(value: number, unit: nil)
        case .integer(let number): return LengthText(value: Double(number), unit: nil)
        case .string(let text):
            do {
                return try LengthText(parsing: text)
            } catch {
                throw .badRequest("\"\(key)\": \(error.description)")
            }
        default: throw wrongType(key, value, expected: "a number or a text with its unit, such as \(example)")
        }
    }

    /// A unit of any kind (`mm`, `cm`, `m`, `in`, `ft`, `px`), or nil when absent.
    func rulerUnit(_ key: String) throws(RequestFailure) -> RulerUnit? {
        guard let text = try string(key, example: "\"cm\"") else { return nil }
        guard let unit = RulerUnit(parsing: text) else {
            throw .badRequest("\"\(key)\": \"\(text)\" is not a unit; give one of \(Self.unitList(allowingPixels: true)).")
        }
        return unit
    }

    /// A physical unit (`mm`, `cm`, `m`, `in`, `ft`), or nil when absent.
    func lengthUnit(_ key: String) throws(RequestFailure) -> LengthUnit? {
        guard let unit = try rulerUnit(key) else { return nil }
        guard let physical = unit.lengthUnit else {
            throw .badRequest("\"\(key)\" must be a length unit, one of \(Self.unitList(allowingPixels: false));"
                + " px is not a length.")
        }
        return physical
    }

    static func unitList(allowingPixels: Bool) -> String {
        RulerUnit.allCases.filter { allowingPixels || $0 != .px }.map(\.symbol).joined(separator: ", ")
    }

    private func wrongType(_ key: String, _ value: JSONValue, expected: String) -> RequestFailure {
        let got = switch value {
        case .string: "a string"
        case .number, .integer: "a number"
        case .bool: "true or false"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
        return .badRequest("\"\(key)\" must be \(expected); got \(got).")
    }
}
