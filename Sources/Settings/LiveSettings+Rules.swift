import PlumbDomain

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
    /// `°` for angles (always degrees, whatever `angle_unit` says), `s` for seconds, `Hz`.
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

    /// `degrees`, `seconds`, `hertz`.
    var unitName: String {
        switch unit {
        case "°": "degrees"
        case "s": "seconds"
        case "Hz": "hertz"
        default: unit
        }
    }

    /// `0.001° to 45°`, or `6.25, 12.5, … 3200 Hz`.
    var acceptedDescription: String {
        if let allowedValues {
            return allowedValues.map(formatNumber).joined(separator: ", ") + " " + unit
        }
        let gap = unit == "°" ? "" : " "
        return "\(formatNumber(minimum))\(gap)\(unit) to \(formatNumber(maximum))\(gap)\(unit)"
    }
}

extension LiveSettings {
    /// The range of every numeric live setting, in ``keys`` order. The text settings have their
    /// own rules: units are one of their enums' raw values, `mount` is anything
    /// `Mount(parsing:)` reads, and `name` is 1 to 64 printable characters.
    ///
    /// Besides these, three rules tie settings together:
    /// - `alarm_threshold > level_tolerance + level_hysteresis`;
    /// - `average_window_s × sample_rate_hz ≥ 1` (the window holds at least one sample);
    /// - `heartbeat_s ≥ min_interval_s`.
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
        NumericRule(key: LiveKey.sampleRateHz.rawValue, minimum: supportedSampleRatesHz[0],
                    maximum: supportedSampleRatesHz[supportedSampleRatesHz.count - 1], step: 6.25, unit: "Hz",
                    allowedValues: supportedSampleRatesHz),
        // A minute of samples is plenty for a machine at rest; below 10 ms is no average at all.
        NumericRule(key: LiveKey.averageWindowS.rawValue, minimum: 0.01, maximum: 60, step: 0.01, unit: "s"),
        // The smallest change worth a message; above 10° a reading would almost never publish.
        NumericRule(key: LiveKey.publishDeadbandDeg.rawValue, minimum: 0.001, maximum: 10, step: 0.001, unit: "°"),
        NumericRule(key: LiveKey.minIntervalS.rawValue, minimum: 0, maximum: 3600, step: 0.1, unit: "s"),
        // A day at most, so a dead agent is noticed by its retained state going stale.
        NumericRule(key: LiveKey.heartbeatS.rawValue, minimum: 1, maximum: 86_400, step: 1, unit: "s"),
    ]

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
                "\(shown) Hz is not a rate the ADXL345 offers; \(key.rawValue) is one of \(rule.acceptedDescription).")
        }
        let gap = rule.unit == "°" ? "" : " "
        let inUnit = "\(formatNumber(value))\(gap)\(rule.unit)"
        // "50°", or "101 % (45.285051278°)" when the value was written in another unit.
        let written = shown == formatNumber(value) ? inUnit : "\(shown) (\(inUnit))"
        throw SettingsRejection(key, value: shown, reason:
            "\(written) is out of range; \(key.rawValue) accepts \(rule.acceptedDescription).")
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
