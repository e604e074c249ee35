import Configuration
import Contract
import FoundationEssentials
import Persistence
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level

/// `P/state`: ``ReadingFigures`` (the schema of `plumb read --json`) plus `alarm`, `sensor`,
/// `ts` and `seq`.
struct StatePayload: Encodable {
    var reading: ReadingFigures
    var alarm: Bool?
    var sensorOK: Bool
    var ts = timestamp()
    var seq: Int

    private enum CodingKeys: String, CodingKey { case alarm, sensor, ts, seq }

    func encode(to encoder: any Encoder) throws {
        try reading.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(alarm, forKey: .alarm)
        try container.encode(sensorOK ? "ok" : "fault", forKey: .sensor)
        try container.encode(ts, forKey: .ts)
        try container.encode(seq, forKey: .seq)
    }
}

/// An event for `P/event`: a type, a timestamp and details. What event listeners
/// (``AgentCore/addEventListener(_:)``) are handed, as it goes to `P/event`.
public struct AgentEvent: Sendable {
    public var type: EventType
    /// The event's keys but `type` and `ts`, as docs/reference/mqtt.md documents them per type.
    public var details: [String: JSONValue]
    /// ISO 8601 UTC with milliseconds, when it happened.
    public var ts: String
    /// Whom a calibration event concerns: who asked for what it answers, and who started the
    /// calibration it reports on (a cancel concerns both). Empty for every other event. Not on
    /// the wire: a listener (``AgentCore/addEventListener(_:)``) forwards what concerns its client.
    public var origins: Set<CalibrationOrigin>

    public init(type: EventType, details: [EventKey: JSONValue], ts: String? = nil, origins: Set<CalibrationOrigin> = []) {
        self.init(type: type, encoded: Dictionary(uniqueKeysWithValues: details.map { ($0.key.rawValue, $0.value) }), ts: ts,
                  origins: origins)
    }

    /// An event whose details another encoder wrote (the self-test's figures, from the object
    /// `plumb selftest --json` prints), or that came back over the control socket.
    public init(type: EventType, encoded details: [String: JSONValue], ts: String? = nil,
                origins: Set<CalibrationOrigin> = []) {
        self.type = type
        self.details = details
        self.ts = ts ?? timestamp()
        self.origins = origins
    }

    /// The `P/event` message: the details with `type` and `ts`, compact JSON with sorted keys.
    public var payload: [UInt8] {
        var object = details
        object["type"] = .string(type.rawValue)
        object["ts"] = .string(ts)
        return JSONValue.object(object).bytes
    }
}

/// `P/calibration`: the calibration in force, as `calibration.json` records it but without the
/// tumble's six means and the tumbles kept per temperature (they are in the file): `method`,
/// `date`, `chip`, `residual_mg`, the `calibration` parameters, the `reversal` folded in, the
/// `temperature_c` it was made at and the `drift` model. With none in force every key is there
/// and null, so a template or a script reads one shape whatever the state.
struct CalibrationPayload {
    var record: CalibrationRecord?

    init(_ record: CalibrationRecord?) {
        self.record = record
    }

    var json: JSONValue {
        guard let record else {
            return .object(Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, JSONValue.null) }))
        }
        // Through the record's own Codable, so the keys cannot drift from the file's.
        let whole = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(encodeJSON(record)))) ?? [:]
        var object: [String: JSONValue] = [:]
        for key in Self.keys { object[key] = whole[key] ?? .null }
        return .object(object)
    }

    /// The record's keys `P/calibration` carries.
    static let keys = ["method", "date", "chip", "residual_mg", "calibration", "reversal", "temperature_c", "drift"]
}
