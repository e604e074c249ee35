import FoundationEssentials
import StrictJSON

/// Reads a payload from another device as JSON into `type`, or nil when it is not JSON of that
/// shape. The one place the fleet parses JSON.
///
/// A payload from another device is input from outside: it must be strict RFC 8259 JSON
/// (``StrictJSON``, Jansson: no trailing comma, no duplicate key), or it is malformed, whatever
/// a lenient parser would make of it. JSONDecoder, from FoundationEssentials like the rest of the
/// product (Foundation's JSONSerialization would link ICU into `plumb`), then maps the checked
/// text onto the types below, which decode only the keys the fleet shows and leave the rest
/// alone; a key of the wrong type makes the payload malformed.
func decodePayload<T: Decodable>(_ type: T.Type, from payload: [UInt8]) -> T? {
    guard (try? StrictJSON.parse(payload, allowingScalars: false)) != nil else { return nil }
    return try? payloadDecoder.decode(type, from: Data(payload))
}

/// One decoder for every payload: its options never change, and swift-foundation's JSONDecoder
/// is Sendable (it guards its options itself).
private let payloadDecoder = JSONDecoder()

/// What `plumb fleet` takes from `P/state`.
struct StateFields: Decodable, Sendable {
    var tilt: Double?
    var unit: String?
    var level: Bool?
    var stable: Bool?
    var sensor: String?
    var alarm: Bool?
    var ts: String?
}

/// What `plumb fleet` takes from `P/config`: the device's display name.
struct ConfigFields: Decodable, Sendable {
    var name: String?
}

/// What `plumb fleet` takes from `P/health`.
struct HealthFields: Decodable, Sendable {
    var version: String?
}

/// What `plumb fleet` takes from `P/calibration`; `method` null is no calibration.
struct CalibrationFields: Decodable, Sendable {
    var method: String?
    var date: String?
}

/// What `plumb fleet` takes from `P/vibration`.
struct VibrationFields: Decodable, Sendable {
    var running: Bool?
    var zone: String?
}

extension String {
    /// The text with control characters (C0, DEL, C1) replaced by `?` and cut to `limit`
    /// characters: names and versions come from other devices and go to a terminal, where an
    /// escape sequence would rewrite the screen.
    func sanitisedForDisplay(limit: Int = 64) -> String {
        var result = ""
        for scalar in unicodeScalars.prefix(limit) {
            let value = scalar.value
            result.unicodeScalars.append(value < 0x20 || (0x7F...0x9F).contains(value) ? "?" : scalar)
        }
        return result
    }
}

/// `ts` as P/state writes it: ISO 8601 UTC, with or without milliseconds.
func parseTimestamp(_ text: String) -> Date? {
    if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
    return try? Date.ISO8601FormatStyle().parse(text)
}
