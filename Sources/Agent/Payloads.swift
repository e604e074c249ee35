import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PlumbDomain

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

/// An event for `P/event`: a type, a timestamp and details.
struct AgentEvent: Sendable {
    var type: EventType
    var details: [String: JSONValue]
    var ts = timestamp()

    var payload: [UInt8] {
        var object = details
        object["type"] = .string(type.rawValue)
        object["ts"] = .string(ts)
        return JSONValue.object(object).bytes
    }
}
