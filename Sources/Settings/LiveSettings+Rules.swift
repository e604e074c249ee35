import Geometry
import Level
import VibrationVocabulary

/// The accepted range of one numeric live setting, as data: validation reads it, and so can a
/// Home Assistant number entity (min, max, step, unit).
public struct NumericRule: Sendable, Equatable {
    /// The live key, such as `level_tolerance`.
    public let key: String
    /// The smallest accepted value, inclusive, in ``unit``.
    public let minimum: Double
    /// The largest accepted value, inclusive, in ``unit``.
    public let maximum: Double
    /// A sensible increment for a slider or spin box. Not enforced: any value in range is valid.
    public let step: Double
    /// `°` for angles (always degrees, whatever `angle_unit` says), `s` for seconds, `Hz`, or
    /// the empty string for a fraction (`running_hysteresis`).
    public let unit: String
    /// When not nil, the only accepted values (`sample_rate_hz`); the range then spans them.
    public let allowedValues: [Double]?

    public init(key: String, minimum: Double, maximum: Double, step: Double, unit: String,
                allowedValues: [Double]? = nil) {
        self.key = key
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.unit = unit
        self.allowedValues = allowedValues
    }

    /// Whether `value` is accepted. Angles converted from slopes may land a rounding error off a
    /// bound, so angle rules allow a nanodegree of slack; nothing else does.
    public func accepts(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if let allowedValues { return allowedValues.contains(value) }
        let slack = unit == "°" ? 1e-9 : 0
        return value >= minimum - slack && value <= maximum + slack
    }

    /// What the number counts, for "a finite decimal number …": `of degrees`, `of seconds`,
    /// `of hertz`, `(a fraction)`.
    var quantity: String {
        switch unit {
        case "°": "of degrees"
        case "s": "of seconds"
        case "Hz": "of hertz"
        case "": "(a fraction)"
        default: "of " + unit
        }
    }

    /// `0.5°`, `2 s`, `0.25`: a value with this rule's unit, as a message shows it.
    func withUnit(_ value: Double) -> String {
        let gap = unit == "°" || unit.isEmpty ? "" : " "
        return "\(formatNumber(value))\(gap)\(unit)"
    }

    /// `0.001° to 45°`, or `6.25, 12.5, … 3200 Hz`.
    var acceptedDescription: String {
        if let allowedValues {
            return allowedValues.map(formatNumber).joined(separator: ", ") + " " + unit
        }
        return "\(withUnit(minimum)) to \(withUnit(maximum))"
    }
}

extension LiveSettings {
    /// The range of every numeric live setting, in ``keys`` order. The other settings have
    /// their own rules: units, `filter` and `vibration_class` are one of their enums' raw values,
    /// `vibration` is true or false, `mount` is anything `Mount(parsing:)` reads,
    /// `running_threshold` is a velocity or an acceleration within
    /// ``runningThresholdRange(_:)``, and `name` is 1 to 64 printable characters.
    ///
    /// Besides these, four rules tie settings together:
    /// - `alarm_threshold > level_tolerance + level_hysteresis`;
    /// - `average_window_s × sample_rate_hz ≥ 1` (the window holds at least one sample);
    /// - `heartbeat_s ≥ min_interval_s`;
    /// - `vibration_interval_s ≥ vibration_window_s` (a message sums up at least one window).
    public static let rules: [NumericRule] = [
        // Below a thousandth of a degree is far beyond what the ADXL345 resolves even averaged;
        // past 45° "level" means nothing.
        NumericRule(key: LiveKey.levelTolerance.rawValue, minimum: 0.001, maximum: 45, step: 0.001, unit: "°"),
        // 0 disables the band; 10° is already wider than any sensible tolerance.
        NumericRule(key: LiveKey.levelHysteresis.rawValue, minimum: 0, maximum: 10, step: 0.001, unit: "°"),
        // Up to on-edge: tilt is 0…180°, and past 90° the machine is over, not tilted.
        NumericRule(key: LiveKey.alarmThreshold.rawValue, minimum: 0.01, maximum: 90, step: 0.01, unit: "°"),
        // 0 reports at once; an hour is the longest a person would wait for a state change.
        NumericRule(key: LiveKey.levelDwellS.rawValue, minimum: 0, maximum: 3600, step: 0.1, unit: "s"),
        // Any rate a supported chip could come near: the chip runs at the rate it offers nearest
        // this one (its description's), and P/health's sample_rate_hz says which. Settings never
        // knows the chip, so a rate is not refused for being between two of its rates.
        NumericRule(key: LiveKey.sampleRateHz.rawValue, minimum: sampleRateRangeHz.lowerBound,
                    maximum: sampleRateRangeHz.upperBound, step: 0.001, unit: "Hz"),
        // A minute of samples is plenty for a machine at rest; below 10 ms is no average at all.
        NumericRule(key: LiveKey.averageWindowS.rawValue, minimum: 0.01, maximum: 60, step: 0.01, unit: "s"),
        // The smallest change worth a message; above 10° a reading would almost never publish.
        NumericRule(key: LiveKey.publishDeadbandDeg.rawValue, minimum: 0.001, maximum: 10, step: 0.001, unit: "°"),
        NumericRule(key: LiveKey.minIntervalS.rawValue, minimum: 0, maximum: 3600, step: 0.1, unit: "s"),
        // A day at most, so a dead agent is noticed by its retained state going stale.
        NumericRule(key: LiveKey.heartbeatS.rawValue, minimum: 1, maximum: 86_400, step: 1, unit: "s"),
        // At least 0.5 s, so a window holds five cycles of the velocity band's 10 Hz edge (2 Hz
        // resolution); at most 10 s, so a window at 3200 Hz is 32 000 samples per axis (750 KiB
        // of doubles for the three) and a change still shows within seconds.
        NumericRule(key: LiveKey.vibrationWindowS.rawValue, minimum: 0.5, maximum: 10, step: 0.1, unit: "s"),
        // As short as the shortest window; an hour at most, so the retained figures stay fresh.
        NumericRule(key: LiveKey.vibrationIntervalS.rawValue, minimum: 0.5, maximum: 3600, step: 0.5, unit: "s"),
        // Below 0.9: the stop level is the threshold × (1 − hysteresis), and at a tenth of the
        // threshold the figure is already near the chip's noise, where a machine would never stop.
        NumericRule(key: LiveKey.runningHysteresis.rawValue, minimum: 0, maximum: 0.9, step: 0.01, unit: ""),
        // 0 reports at once; an hour, like level_dwell_s, is the longest wait worth having.
        NumericRule(key: LiveKey.runningStartS.rawValue, minimum: 0, maximum: 3600, step: 1, unit: "s"),
        // Up to six hours: a bread maker's rise or a dishwasher's drying is a long still pause
        // that should not end the run.
        NumericRule(key: LiveKey.runningStopS.rawValue, minimum: 0, maximum: 21_600, step: 1, unit: "s"),
    ]

    /// The accepted values of `running_threshold` in each of its units, inclusive.
    ///
    /// Velocity: 0.01 to 100 mm/s. The ADXL345's noise in the velocity band is about 0.05–0.2
    /// mm/s, so below 0.01 a machine would always run; ISO's zone D starts at 18 mm/s even for
    /// the largest machines, so past 100 nothing would. Acceleration: 0.001 to 16 g, the chip's
    /// widest range.
    public static func runningThresholdRange(_ unit: RunningThreshold.Unit) -> ClosedRange<Double> {
        switch unit {
        case .millimetresPerSecond: 0.01...100
        case .gravities: 0.001...16
        }
    }

    /// The rule for `key`; every numeric key has one.
    static func rule(_ key: LiveKey) -> NumericRule {
        rules.first { $0.key == key.rawValue }!
    }

    /// The longest display name, in characters.
    public static let maximumNameLength = 64

    /// Checks one value against its key's rule.
    static func checkRange(_ key: LiveKey, _ value: Double, shown: String) throws(SettingsRejection) {
        let rule = rule(key)
        guard !rule.accepts(value) else { return }
        if rule.allowedValues != nil {
            throw SettingsRejection(key, value: shown, reason:
                "\(shown) \(rule.unit) is not accepted; \(key.rawValue) is one of \(rule.acceptedDescription).")
        }
        let inUnit = rule.withUnit(value)
        // "50°", or "101 % (45.285051278°)" when the value was written in another unit.
        let written = shown == formatNumber(value) ? inUnit : "\(shown) (\(inUnit))"
        throw SettingsRejection(key, value: shown, reason:
            "\(written) is out of range; \(key.rawValue) accepts \(rule.acceptedDescription).")
    }

    /// Checks a running threshold against ``runningThresholdRange(_:)`` for its unit.
    static func checkRunningThreshold(_ key: LiveKey, _ threshold: RunningThreshold,
                                      shown: String) throws(SettingsRejection) {
        let range = runningThresholdRange(threshold.unit)
        guard !range.contains(threshold.value) else { return }
        func describe(_ unit: RunningThreshold.Unit) -> String {
            let range = runningThresholdRange(unit)
            return "\(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound)) \(unit.rawValue)"
        }
        let written = shown == threshold.description ? shown : "\(shown) (\(threshold))"
        throw SettingsRejection(key, value: shown, reason:
            "\(written) is out of range; \(key.rawValue) accepts a velocity of \(describe(.millimetresPerSecond))"
            + " or an acceleration of \(describe(.gravities)).")
    }

    /// A display name: trimmed, 1 to 64 characters, none of them control characters or line
    /// breaks.
    package static func checkName(_ text: String, key: LiveKey = .name) throws(SettingsRejection) -> String {
        let name = String(text.trimmingWhitespace)
        guard !name.isEmpty else {
            throw SettingsRejection(key, value: text, reason: "a name cannot be empty; give 1 to 64 printable characters.")
        }
        guard name.count <= maximumNameLength else {
            throw SettingsRejection(key, value: text, reason:
                "a name is at most \(maximumNameLength) characters; this one has \(name.count).")
        }
        let unprintable = name.unicodeScalars.first {
            switch $0.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: true
            default: false
            }
        }
        if let unprintable {
            let code = "U+" + String(unprintable.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw SettingsRejection(key, value: text, reason:
                "a name holds only printable characters; this one contains \(code).")
        }
        return name
    }

    /// The rules that tie settings together. When one is broken, the rejection names a key the
    /// message changed (the one a sender can fix), or the first involved when it changed none.
    package func checkCombination(changed: Set<LiveKey>) throws(SettingsRejection) {
        func blame(_ keys: LiveKey...) -> LiveKey {
            keys.first(where: changed.contains) ?? keys[0]
        }
        let levelBandEnd = levelTolerance + levelHysteresis
        if !(alarmThreshold > levelBandEnd) {
            let key = blame(.alarmThreshold, .levelTolerance, .levelHysteresis)
            throw SettingsRejection(key, value: shownValue(key), reason:
                "alarm_threshold (\(degrees(alarmThreshold))) must be above level_tolerance + level_hysteresis"
                + " (\(degrees(levelTolerance)) + \(degrees(levelHysteresis)) = \(degrees(levelBandEnd))):"
                + " level is only left above that sum, so a lower alarm would sound while the machine still"
                + " reads level. Raise alarm_threshold, or lower level_tolerance or level_hysteresis.")
        }
        let period = 1 / sampleRateHz
        if averageWindowS * sampleRateHz < 1 {
            let key = blame(.averageWindowS, .sampleRateHz)
            throw SettingsRejection(key, value: shownValue(key), reason:
                "average_window_s (\(formatNumber(averageWindowS)) s) must hold at least one sample at"
                + " sample_rate_hz \(formatNumber(sampleRateHz)) (one every \(formatNumber(period)) s):"
                + " set average_window_s to \(formatNumber(period)) or more, or raise sample_rate_hz.")
        }
        if heartbeatS < minIntervalS {
            let key = blame(.heartbeatS, .minIntervalS)
            throw SettingsRejection(key, value: shownValue(key), reason:
                "heartbeat_s (\(formatNumber(heartbeatS)) s) must be at least min_interval_s"
                + " (\(formatNumber(minIntervalS)) s): a heartbeat is a message sent at the latest after"
                + " heartbeat_s, so it cannot come sooner than the shortest interval.")
        }
        if vibrationIntervalS < vibrationWindowS {
            let key = blame(.vibrationIntervalS, .vibrationWindowS)
            throw SettingsRejection(key, value: shownValue(key), reason:
                "vibration_interval_s (\(formatNumber(vibrationIntervalS)) s) must be at least vibration_window_s"
                + " (\(formatNumber(vibrationWindowS)) s): each P/vibration message sums up at least one whole"
                + " window. Raise vibration_interval_s or shorten vibration_window_s.")
        }
    }

    private func degrees(_ angle: Angle) -> String { formatNumber(angle.degrees) + "°" }

    /// The current value of `key` as text, as the effective config shows it.
    func shownValue(_ key: LiveKey) -> String {
        switch key {
        case .angleUnit: angleUnit.rawValue
        case .lengthUnit: lengthUnit.rawValue
        case .levelTolerance: formatNumber(levelTolerance.degrees)
        case .levelHysteresis: formatNumber(levelHysteresis.degrees)
        case .alarmThreshold: formatNumber(alarmThreshold.degrees)
        case .levelDwellS: formatNumber(levelDwellS)
        case .mount: mount.name
        case .sampleRateHz: formatNumber(sampleRateHz)
        case .averageWindowS: formatNumber(averageWindowS)
        case .publishDeadbandDeg: formatNumber(publishDeadbandDeg)
        case .minIntervalS: formatNumber(minIntervalS)
        case .heartbeatS: formatNumber(heartbeatS)
        case .filter: filter.rawValue
        case .vibration: String(isVibrationEnabled)
        case .vibrationWindowS: formatNumber(vibrationWindowS)
        case .vibrationIntervalS: formatNumber(vibrationIntervalS)
        case .vibrationClass: vibrationClass.rawValue
        case .runningThreshold: runningThreshold.description
        case .runningHysteresis: formatNumber(runningHysteresis)
        case .runningStartS: formatNumber(runningStartS)
        case .runningStopS: formatNumber(runningStopS)
        case .name: name
        }
    }
}

/// A number as a person writes it: `0.1`, `100`, `6.25`, never `100.0` or `0.09999999999999999`.
///
/// Rounded to nine decimals first, a nanodegree, far below anything Plumb measures, so the
/// conversions degrees → radians → degrees don't show.
func formatNumber(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    let rounded = abs(value) < 1e9 ? roundedToNanos(value) : value
    if rounded == rounded.rounded(), abs(rounded) < 1e15 {
        return String(Int64(rounded))
    }
    return "\(rounded)"
}

/// `value` rounded to nine decimal places; -0 becomes 0.
func roundedToNanos(_ value: Double) -> Double {
    let result = (value * 1e9).rounded() / 1e9
    return result == 0 ? 0 : result
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    /// The text without leading and trailing whitespace and newlines.
    var trimmingWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
