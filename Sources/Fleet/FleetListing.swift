import FoundationEssentials
import PlumbDomain

/// The fleet as JSON, for scripts: `plumb fleet --json`. One compact line:
///
/// ```json
/// {"base_topic": "plumb", "count": 2, "devices": [{…}, {…}]}
/// ```
///
/// Each device, in the listing order: `id`, `name`, `site`, `base_topic`, `status` (`online`,
/// `offline` or null), `problem` (`offline`, `sensor_fault`, `alarm`, `not_level` or null),
/// `level`, `tilt` (in `unit`), `unit`, `stable`, `sensor`, `alarm`, `state_ts`, `state_age_s`
/// (seconds, one decimal), `version`, `calibration_method`, `calibration_date`, `malformed`
/// (the topics whose payload could not be read, e.g. `["state"]`), and `running` and `zone` only
/// when the device publishes vibration figures. A key whose topic is missing is null.
public struct FleetListing: Encodable, Sendable {
    public var baseTopic: String
    public var devices: [FleetDevice]
    public var now: Date

    public init(baseTopic: String, devices: [FleetDevice], now: Date) {
        self.baseTopic = baseTopic
        self.devices = devices
        self.now = now
    }

    private enum CodingKeys: String, CodingKey {
        case baseTopic = "base_topic", count, devices
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(baseTopic, forKey: .baseTopic)
        try container.encode(devices.count, forKey: .count)
        try container.encode(devices.map { Entry(device: $0, now: now) }, forKey: .devices)
    }

    /// The listing as one line of JSON, keys sorted within each object.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value is a string, number, bool or null: encoding cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// One device's object.
    private struct Entry: Encodable {
        var device: FleetDevice
        var now: Date

        private enum CodingKeys: String, CodingKey {
            case id, name, site, baseTopic = "base_topic", status, problem, level, tilt, unit, stable, sensor, alarm
            case stateTS = "state_ts", stateAgeS = "state_age_s", version, calibrationMethod = "calibration_method"
            case calibrationDate = "calibration_date", malformed, running, zone
        }

        // Explicit so that missing values are written as null rather than left out.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(device.id, forKey: .id)
            try container.encode(device.name, forKey: .name)
            try container.encode(device.site, forKey: .site)
            try container.encode(device.baseTopic, forKey: .baseTopic)
            try container.encode(device.online.map { $0 ? "online" : "offline" }, forKey: .status)
            try container.encode(device.problem?.rawValue, forKey: .problem)
            try container.encode(device.level, forKey: .level)
            try container.encode(device.tilt.flatMap { $0.isFinite ? $0 : nil }, forKey: .tilt)
            try container.encode(device.unit, forKey: .unit)
            try container.encode(device.stable, forKey: .stable)
            try container.encode(device.sensor, forKey: .sensor)
            try container.encode(device.alarm, forKey: .alarm)
            try container.encode(device.stateTimestamp, forKey: .stateTS)
            try container.encode(device.stateAge(at: now).map { $0.rounded(toDecimals: 1) }, forKey: .stateAgeS)
            try container.encode(device.version, forKey: .version)
            try container.encode(device.calibrationMethod, forKey: .calibrationMethod)
            try container.encode(device.calibrationDate, forKey: .calibrationDate)
            try container.encode(device.malformed.sorted().map(\.rawValue), forKey: .malformed)
            if device.hasVibration {
                try container.encode(device.running, forKey: .running)
                try container.encode(device.zone, forKey: .zone)
            }
        }
    }
}
