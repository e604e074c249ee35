import PlumbDomain

/// The settings that can change while the agent runs: set in the config file's `level:`
/// section (and `sensor.sample_rate_hz`, `device.name`), changed over MQTT, persisted in the
/// state directory.
///
/// A value of this type is always valid: every property is within its ``rules`` and the
/// combination rules hold (see ``applying(json:)``). The only ways to a different value are the
/// validating ones (``applying(json:)``, ``applying(key:rawValue:)``, the config file and the
/// state store), so a receiver never re-checks.
///
/// Thresholds are ``Angle``s, physical quantities: ``angleUnit`` only decides how readings are
/// shown, and changing it never changes what a threshold means.
public struct LiveSettings: Sendable, Equatable {
    /// The unit readings are published in. Display only.
    public package(set) var angleUnit: AngleUnit = .deg
    /// The unit lengths (such as shim heights) are shown in. Display only.
    public package(set) var lengthUnit: LengthUnit = .mm
    /// Level at tilt ≤ this.
    public package(set) var levelTolerance = Angle(degrees: 0.1)
    /// Level is left only above `levelTolerance + levelHysteresis`; the alarm clears only at or
    /// below `alarmThreshold − levelHysteresis`.
    public package(set) var levelHysteresis = Angle(degrees: 0.02)
    /// The alarm is raised at tilt > this. Always above `levelTolerance + levelHysteresis`.
    public package(set) var alarmThreshold = Angle(degrees: 5)
    /// Seconds a new level or alarm state must hold before it is reported.
    ///
    /// 3 s by default. The datasheet noise leaves a 1 s average with about 0.018° of tilt noise,
    /// as large as the default 0.02° hysteresis, so hysteresis alone can't stop a machine that
    /// sits right at the tolerance from chattering; requiring the new side to hold for three
    /// averaging windows does (LevelUnderNoiseTests measures 0–1 events in ten minutes, against
    /// 77–91 at 0.5 s). A knock or someone leaning on the machine doesn't flip the state either.
    public package(set) var levelDwellS: Double = 3
    /// How the device is fixed to the machine.
    public package(set) var mount: Mount = .flat
    /// The accelerometer's output data rate in hertz: one of ``supportedSampleRatesHz``.
    public package(set) var sampleRateHz: Double = 100
    /// Seconds of samples in the moving average. Holds at least one sample at ``sampleRateHz``.
    public package(set) var averageWindowS: Double = 1
    /// Degrees of roll, pitch or tilt change that make a new state message worth sending.
    public package(set) var publishDeadbandDeg: Double = 0.05
    /// Seconds between state messages caused by movement.
    public package(set) var minIntervalS: Double = 0.5
    /// Seconds after which a state message is sent even without movement. At least
    /// ``minIntervalS``.
    public package(set) var heartbeatS: Double = 30
    /// The display name, 1 to 64 printable characters. Defaults to the device's name.
    public package(set) var name: String

    /// Every setting at its default, with the display name `Plumb`.
    ///
    /// The agent takes its defaults from `AgentConfiguration.level` (Configuration) instead, where the name
    /// is the device's.
    public init() {
        name = "Plumb"
    }

    /// Every setting at its default, named `name`; callers pass an already validated name.
    package init(name: String) {
        self.name = name
    }

    /// Every live key, in the documented order. These are the JSON keys of `P/config/set` and
    /// `P/config`, the `<key>` of `P/config/<key>/set`, and the keys of the `level:` section.
    public static let keys: [String] = LiveKey.allCases.map(\.rawValue)

    /// The rates the ADXL345 offers that Plumb samples at, in hertz: 6.25 to 3200, doubling;
    /// ``OutputDataRate/supported``, which owns them.
    public static let supportedSampleRatesHz: [Double] = OutputDataRate.supported.map(\.hertz)
}

/// The live keys, as the one place their names and order are written. Also the coding keys of
/// ``EffectiveConfig`` and of `settings.json`, whose properties are named like these cases.
package enum LiveKey: String, CaseIterable, CodingKey, Sendable {
    case angleUnit = "angle_unit"
    case lengthUnit = "length_unit"
    case levelTolerance = "level_tolerance"
    case levelHysteresis = "level_hysteresis"
    case alarmThreshold = "alarm_threshold"
    case levelDwellS = "level_dwell_s"
    case mount
    case sampleRateHz = "sample_rate_hz"
    case averageWindowS = "average_window_s"
    case publishDeadbandDeg = "publish_deadband_deg"
    case minIntervalS = "min_interval_s"
    case heartbeatS = "heartbeat_s"
    case name

    /// The list for "the settings are …" in a message.
    package static let list = allCases.map(\.rawValue).joined(separator: ", ")
}
