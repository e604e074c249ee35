import Geometry
import Level
import VibrationVocabulary

/// The settings that can change while the agent runs: set in the config file's `level:` and
/// `vibration:` sections (and `sensor.sample_rate_hz`, `device.name`), changed over MQTT,
/// persisted in the state directory.
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
    /// How the window of block means becomes one gravity estimate (`filter`): one of
    /// ``GravityFilter``'s cases, `mean` by default.
    public package(set) var filter: GravityFilter = .mean
    /// Degrees of roll, pitch or tilt change that make a new state message worth sending.
    public package(set) var publishDeadbandDeg: Double = 0.05
    /// Seconds between state messages caused by movement.
    public package(set) var minIntervalS: Double = 0.5
    /// Seconds after which a state message, and a `P/vibration` message while vibration is on,
    /// is sent even without movement. At least ``minIntervalS``.
    public package(set) var heartbeatS: Double = 30
    /// Whether the vibration analysis runs (`vibration`). Off, there is no `P/vibration` and no
    /// vibration entity in Home Assistant.
    ///
    /// On by default: the analysis is three FFTs per window, one per axis, of the window's
    /// samples; even at 3200 Hz that is about 0.6 Mflop a second (5·N·log₂N for N = 3200),
    /// little next to reading the chip.
    public package(set) var isVibrationEnabled = true
    /// Seconds of samples in one vibration analysis window (`vibration_window_s`), 0.5 to 10.
    ///
    /// The frequency resolution is 1 / window: 1 Hz at the default 1 s, 2 Hz at 0.5 s, which
    /// still puts five cycles of the band's 10 Hz edge in a window. 10 s (32 000 samples per axis
    /// at 3200 Hz) bounds the memory and the FFTs' size.
    public package(set) var vibrationWindowS: Double = 1
    /// Seconds between `P/vibration` messages caused by the figures moving beyond the deadband
    /// (`vibration_interval_s`), at least ``vibrationWindowS``: a message sums up at least one
    /// whole window. A zone or running change is published at once, a steady machine every
    /// ``heartbeatS``.
    public package(set) var vibrationIntervalS: Double = 10
    /// The machine group whose ISO 10816 zone boundaries judge the velocity (`vibration_class`).
    public package(set) var vibrationClass: MachineClass = .default
    /// The vibration above which the machine counts as running (`running_threshold`): a velocity
    /// in mm/s or an acceleration in g, within ``runningThresholdRange(_:)``.
    public package(set) var runningThreshold: RunningThreshold = .default
    /// How far below ``runningThreshold`` the figure must fall to count as stopped, as a fraction
    /// of it (`running_hysteresis`), 0 to 0.9: with 0.25, the default 1 mm/s threshold stops at 0.75.
    public package(set) var runningHysteresis: Double = 0.25
    /// Seconds the figure must stay above the threshold before the machine counts as running
    /// (`running_start_s`). 5 s by default: a knock or a door closing is not a start.
    public package(set) var runningStartS: Double = 5
    /// Seconds the figure must stay below the stop level before the machine counts as
    /// stopped (`running_stop_s`). 120 s by default: longer than a washer's pauses between
    /// its wash movements and a dishwasher's between its phases, so a cycle is one run.
    public package(set) var runningStopS: Double = 120
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
    /// `P/config`, the `<key>` of `P/config/<key>/set`, and the keys of the config file's
    /// `level:` and `vibration:` sections.
    public static let keys: [String] = LiveKey.allCases.map(\.rawValue)

    /// The sample rates `sample_rate_hz` accepts, in hertz. The chip runs at the rate it offers
    /// nearest the one asked for (3.9 to 4000 Hz across the supported chips), and `P/health`'s
    /// `sample_rate_hz` reports it.
    public static let sampleRateRangeHz: ClosedRange<Double> = 1...4000
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
    case filter
    case publishDeadbandDeg = "publish_deadband_deg"
    case minIntervalS = "min_interval_s"
    case heartbeatS = "heartbeat_s"
    case vibration
    case vibrationWindowS = "vibration_window_s"
    case vibrationIntervalS = "vibration_interval_s"
    case vibrationClass = "vibration_class"
    case runningThreshold = "running_threshold"
    case runningHysteresis = "running_hysteresis"
    case runningStartS = "running_start_s"
    case runningStopS = "running_stop_s"
    case name

    /// The list for "the settings are …" in a message.
    package static let list = allCases.map(\.rawValue).joined(separator: ", ")

    /// The keys of the vibration analysis and the running state: the config file's `vibration:`
    /// section.
    package static let vibrationKeys: [LiveKey] = [
        .vibration, .vibrationWindowS, .vibrationIntervalS, .vibrationClass, .runningThreshold, .runningHysteresis,
        .runningStartS, .runningStopS,
    ]
}
