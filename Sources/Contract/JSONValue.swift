import FoundationEssentials

/// A JSON value: decoded from settings payloads (telling booleans from numbers by their tokens,
/// which `JSONSerialization`'s `NSNumber` cannot), and built in code for payloads whose keys
/// vary (the agent's events and health).
public enum JSONValue: Sendable, Hashable, Codable {
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)
    case null
    case object([String: JSONValue])
    case array([JSONValue])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): value.isFinite ? try container.encode(value) : try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    /// Compact JSON with sorted keys, so equal values give equal bytes.
    public var bytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { Array($0) } ?? Array("null".utf8)
    }
}

extension JSONValue {
    /// A number's value, integer or real; nil for anything else (including `null`).
    public var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}
