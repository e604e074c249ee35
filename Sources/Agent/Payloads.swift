import Foundation
import PlumbDomain

/// `P/state`: the reading, in the schema of `plumb read --json` plus the agent's fields.
struct StatePayload: Encodable {
    var roll: Double?
    var pitch: Double?
    var tilt: Double?
    var unit: String
    var level: Bool?
    var alarm: Bool?
    var gravity: Vector3
    var sensor: String
    var ts: String
    var seq: Int

    private enum CodingKeys: String, CodingKey { case roll, pitch, tilt, unit, level, alarm, gravity, sensor, ts, seq }

    // Explicit so that unknown values are null rather than missing: every key is always present.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roll, forKey: .roll)
        try container.encode(pitch, forKey: .pitch)
        try container.encode(tilt, forKey: .tilt)
        try container.encode(unit, forKey: .unit)
        try container.encode(level, forKey: .level)
        try container.encode(alarm, forKey: .alarm)
        try container.encode(gravity, forKey: .gravity)
        try container.encode(sensor, forKey: .sensor)
        try container.encode(ts, forKey: .ts)
        try container.encode(seq, forKey: .seq)
    }

    init(attitude: Attitude?, unit: AngleUnit, level: Bool?, alarm: Bool?, gravity: Vector3, sensorOK: Bool, seq: Int) {
        let decimals = unit.displayDecimals
        roll = attitude?.roll.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        pitch = attitude?.pitch.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        tilt = attitude?.tilt.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        self.unit = unit.rawValue
        self.level = level
        self.alarm = alarm
        self.gravity = gravity.rounded(toDecimals: 5)
        sensor = sensorOK ? "ok" : "fault"
        ts = timestamp()
        self.seq = seq
    }
}

/// An event for `P/event`: a type, a timestamp and details.
struct AgentEvent: Sendable {
    /// `level_entered`, `level_left`, `alarm_raised`, `alarm_cleared`, `sensor_fault`,
    /// `sensor_recovered`, `config_applied`, `config_rejected`, `zeroed`.
    var type: String
    var details: [String: JSONValue]
    var ts = timestamp()

    var payload: [UInt8] {
        var object = details
        object["type"] = .string(type)
        object["ts"] = .string(ts)
        return JSONValue.object(object).bytes
    }
}
