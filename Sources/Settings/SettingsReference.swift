import Geometry
import Level
import VibrationVocabulary

/// The live settings' reference, written from the settings themselves: their keys, defaults,
/// rules and where each lives in `plumb.yaml`, so the table cannot drift from what validation
/// accepts. `make docs` writes it to `docs/reference/settings.md`.
public enum SettingsReference {
    /// The Markdown page.
    public static func markdown() -> String {
        var lines = [
            "# Live settings",
            "",
            "<!-- Written by `make docs` from the settings' own keys, defaults and rules (Sources/Settings): "
                + "edit those and run `make docs`, never this file. -->",
            "",
            "The settings that can change while Plumb runs: over MQTT (a JSON object on `P/config/set`, or one",
            "value on `P/config/<key>/set`; [MQTT](agent-behaviour.md#settings-over-mqtt-validated-applied-live-persisted)),",
            "from Home Assistant's setting entities, or in `plumb.yaml` ([configuration](configuration.md)). A",
            "change over MQTT is validated, applied at once, saved in `state_dir/settings.json`",
            "([state files](state-files.md)) and reported on `P/config` and `P/result`. Every key has the same",
            "name on MQTT, in `P/config` and in the file.",
            "",
            "| key | default | accepted | in plumb.yaml | what it does |",
            "|---|---|---|---|---|",
        ]
        let defaults = LiveSettings()
        for key in LiveKey.allCases {
            lines.append("| `\(key.rawValue)` | \(defaultText(key, defaults)) | \(accepted(key)) | \(fileKey(key)) | "
                + "\(summary(key)) |")
        }
        lines += ["", "Four rules tie settings together; a change that breaks one is refused whole:", ""]
        lines += crossRules.map { "- " + $0 }
        lines += [
            "",
            "A number for `level_tolerance`, `level_hysteresis` or `alarm_threshold` means degrees; a string",
            "carries its unit (`\"1.5 mm/m\"`, `\"0.2%\"`, `\"0.1deg\"`, `\"0.5 in/ft\"`). `P/config` reports",
            "degrees. A number for `running_threshold` means mm/s; a string carries its unit (`\"0.5 mm/s\"`,",
            "`\"0.02 g\"`).",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rules between settings, as validation checks them.
    static let crossRules = [
        "`alarm_threshold` above `level_tolerance` + `level_hysteresis`;",
        "`average_window_s` × `sample_rate_hz` at least 1 (the window holds a sample);",
        "`heartbeat_s` at least `min_interval_s`;",
        "`vibration_interval_s` at least `vibration_window_s` (a message sums up at least one window).",
    ]

    /// The default, as the file or a message writes it.
    package static func defaultText(_ key: LiveKey, _ settings: LiveSettings) -> String {
        let effective = settings.effective
        if key == .name { return "the device's name (`device.name`)" }
        if let rule = LiveSettings.rules.first(where: { $0.key == key.rawValue }) {
            let value: Double = switch key {
            case .levelTolerance: effective.levelTolerance
            case .levelHysteresis: effective.levelHysteresis
            case .alarmThreshold: effective.alarmThreshold
            case .levelDwellS: effective.levelDwellS
            case .sampleRateHz: effective.sampleRateHz
            case .averageWindowS: effective.averageWindowS
            case .publishDeadbandDeg: effective.publishDeadbandDeg
            case .minIntervalS: effective.minIntervalS
            case .heartbeatS: effective.heartbeatS
            case .vibrationWindowS: effective.vibrationWindowS
            case .vibrationIntervalS: effective.vibrationIntervalS
            case .runningHysteresis: effective.runningHysteresis
            case .runningStartS: effective.runningStartS
            case .runningStopS: effective.runningStopS
            default: .nan
            }
            return rule.withUnit(value)
        }
        let text: String = switch key {
        case .angleUnit: effective.angleUnit
        case .lengthUnit: effective.lengthUnit
        case .mount: effective.mount
        case .filter: effective.filter
        case .vibration: effective.vibration ? "true" : "false"
        case .vibrationClass: effective.vibrationClass
        case .runningThreshold: effective.runningThreshold
        default: ""
        }
        return "`" + text + "`"
    }

    /// What validation accepts.
    package static func accepted(_ key: LiveKey) -> String {
        if let rule = LiveSettings.rules.first(where: { $0.key == key.rawValue }) {
            return rule.acceptedDescription
        }
        func names(_ values: [String]) -> String { values.map { "`\($0)`" }.joined(separator: ", ") }
        switch key {
        case .angleUnit: return names(AngleUnit.allCases.map(\.rawValue))
        case .lengthUnit: return names(LengthUnit.allCases.map(\.rawValue))
        case .filter: return names(GravityFilter.allCases.map(\.rawValue))
        case .vibrationClass: return names(MachineClass.allCases.map(\.rawValue))
        case .vibration: return "`true`, `false`"
        case .mount: return "`flat`, `upright`, or an axis remap such as `x,-z,y`"
        case .runningThreshold:
            let velocity = LiveSettings.runningThresholdRange(.millimetresPerSecond)
            let acceleration = LiveSettings.runningThresholdRange(.gravities)
            return "a velocity, \(formatNumber(velocity.lowerBound)) to \(formatNumber(velocity.upperBound)) mm/s, or an "
                + "acceleration, \(formatNumber(acceleration.lowerBound)) to \(formatNumber(acceleration.upperBound)) g"
        case .name: return "1 to \(LiveSettings.maximumNameLength) printable characters"
        default: return ""
        }
    }

    /// Where the key is written in `plumb.yaml`.
    package static func fileKey(_ key: LiveKey) -> String {
        switch key {
        case .sampleRateHz: "`sensor.sample_rate_hz`"
        case .name: "`device.name`"
        default: LiveKey.vibrationKeys.contains(key) ? "`vibration.\(key.rawValue)`" : "`level.\(key.rawValue)`"
        }
    }

    /// What the setting does, in one cell.
    package static func summary(_ key: LiveKey) -> String {
        switch key {
        case .angleUnit: "the unit readings are shown and published in (`P/state`'s `roll`, `pitch`, `tilt`; the picture; Slope)"
        case .lengthUnit: "the unit of lengths in the ruler service's replies"
        case .levelTolerance: "the tilt within which the machine is level"
        case .levelHysteresis: "the band beyond the tolerance a level machine must cross to become not level, so a reading at the edge does not flicker"
        case .alarmThreshold: "the tilt that raises the alarm"
        case .levelDwellS: "seconds a new level or alarm state must hold before it is reported"
        case .mount: "how the device sits: `flat` (the chip's z up), `upright` (a bar level on its edge), or a remap of its axes"
        case .sampleRateHz: "the rate asked of the chip; it runs at its offered rate nearest this (a tie goes to the faster), which `P/health`'s `sample_rate_hz` reports. The vibration band ends at the rate ÷ 2.56"
        case .averageWindowS: "seconds of samples in the moving window one reading is made of"
        case .filter: "how the window becomes one reading: `mean` (a moving average), `median` (robust to a knock), `lowpass` (for running machinery)"
        case .publishDeadbandDeg: "the smallest change of the attitude, in degrees, that publishes `P/state`"
        case .minIntervalS: "at most one `P/state` this often"
        case .heartbeatS: "at least one `P/state` (and `P/vibration`) this often, changed or not"
        case .vibration: "run the vibration analysis; `false` publishes no `P/vibration`, and Home Assistant's vibration entities read unavailable"
        case .vibrationWindowS: "seconds of samples per analysis window; the frequency resolution is 1 ÷ window"
        case .vibrationIntervalS: "`P/vibration` at most this often while the figures move, at once on a zone or running change"
        case .vibrationClass: "the machine group the ISO 10816 zone is judged by (10816-1 classes by size, 10816-3 groups by power and support)"
        case .runningThreshold: "running above this; a velocity suits motors and pumps, an acceleration machines whose vibration lies below 10 Hz"
        case .runningHysteresis: "stopped only below `running_threshold` × (1 − this)"
        case .runningStartS: "seconds above the threshold before `running` turns true"
        case .runningStopS: "seconds below the stop level before `running` turns false; longer than the machine's longest pause"
        case .name: "the device's name in Home Assistant and `plumb fleet`"
        }
    }
}
