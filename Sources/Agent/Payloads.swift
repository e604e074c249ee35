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
        let decimals = unit == .mmPerM ? 2 : unit == .inPerFt ? 4 : 3
        roll = attitude?.roll.value(in: unit).map { rounded($0, decimals) }
        pitch = attitude?.pitch.value(in: unit).map { rounded($0, decimals) }
        tilt = attitude?.tilt.value(in: unit).map { rounded($0, decimals) }
        self.unit = unit.rawValue
        self.level = level
        self.alarm = alarm
        self.gravity = Vector3(x: rounded(gravity.x, 5), y: rounded(gravity.y, 5), z: rounded(gravity.z, 5))
        sensor = sensorOK ? "ok" : "fault"
        ts = timestamp()
        self.seq = seq
    }
}

/// Rounds to `decimals` places without producing `-0`.
func rounded(_ value: Double, _ decimals: Int) -> Double {
    let scale = pow(10, Double(decimals))
    let result = (value * scale).rounded() / scale
    return result == 0 ? 0 : result
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
