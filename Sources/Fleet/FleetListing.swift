import FoundationEssentials
import Geometry

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
public struct FleetListing: Sendable {
    public var baseTopic: String
    public var devices: [FleetDevice]
    public var now: Date

    public init(baseTopic: String, devices: [FleetDevice], now: Date) {
        self.baseTopic = baseTopic
        self.devices = devices
        self.now = now
    }

    /// The listing as one line of JSON, keys in alphabetical order within each object.
    public var json: String {
        var json = JSONText(capacity: 64 + devices.count * 420)
        json.beginObject()
        json.member("base_topic", string: baseTopic)
        json.member("count", number: Double(devices.count))
        json.key("devices")
        json.beginArray()
        for device in devices {
            json.element()
            write(device, to: &json)
        }
        json.endArray()
        json.endObject()
        return json.text
    }

    private func write(_ device: FleetDevice, to json: inout JSONText) {
        json.beginObject()
        json.member("alarm", bool: device.alarm)
        json.member("base_topic", string: device.baseTopic)
        json.member("calibration_date", string: device.calibrationDate)
        json.member("calibration_method", string: device.calibrationMethod)
        json.member("id", string: device.id)
        json.member("level", bool: device.level)
        json.member("malformed", strings: device.malformed.sorted().map(\.rawValue))
        json.member("name", string: device.name)
        json.member("problem", string: device.problem?.rawValue)
        // Only with vibration figures: a device without the analysis has no running state at all.
        if device.hasVibration { json.member("running", bool: device.running) }
        json.member("sensor", string: device.sensor)
        json.member("site", string: device.site)
        json.member("stable", bool: device.stable)
        json.member("state_age_s", number: device.stateAge(at: now).map { $0.rounded(toDecimals: 1) })
        json.member("state_ts", string: device.stateTimestamp)
        json.member("status", string: device.online.map { $0 ? "online" : "offline" })
        json.member("tilt", number: device.tilt)
        json.member("unit", string: device.unit)
        json.member("version", string: device.version)
        if device.hasVibration { json.member("zone", string: device.zone) }
        json.endObject()
    }
}
