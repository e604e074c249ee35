import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A JSON value built in code, for payloads whose keys vary (events, health).
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
    public var bytes: [UInt8] { encodeJSON(self) }
}

/// Compact JSON with sorted keys.
func encodeJSON(_ value: some Encodable) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
}

/// ISO 8601 UTC with milliseconds: `2026-11-30T17:42:37.123Z`.
func timestamp(_ date: Date = Date()) -> String {
    date.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true)
        .timeSeparator(.colon).dateSeparator(.dash).dateTimeSeparator(.standard))
}
