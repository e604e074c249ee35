import Configuration
import Foundation
import Geometry
import GeometryTesting
import Settings
import Testing

@Suite("The effective config, P/config")
struct EffectiveConfigTests {
    @Test("The live keys are the documented ones, in the documented order")
    func keys() {
        #expect(LiveSettings.keys == [
            "angle_unit", "length_unit", "level_tolerance", "level_hysteresis", "alarm_threshold", "level_dwell_s",
            "mount", "sample_rate_hz", "average_window_s", "filter", "publish_deadband_deg", "min_interval_s",
            "heartbeat_s", "vibration", "vibration_window_s", "vibration_interval_s", "vibration_class",
            "running_threshold", "running_hysteresis", "running_start_s", "running_stop_s", "name",
        ])
    }

    @Test("Every key is present, with the defaults as numbers of degrees and names")
    func completeWithDefaults() throws {
        let object = try effectiveObject(LiveSettings())
        #expect(Set(object.keys) == Set(LiveSettings.keys))
        #expect(object["angle_unit"] as? String == "deg")
        #expect(object["length_unit"] as? String == "mm")
        #expect(object["level_tolerance"] as? Double == 0.1)
        #expect(object["level_hysteresis"] as? Double == 0.02)
        #expect(object["alarm_threshold"] as? Double == 5)
        #expect(object["level_dwell_s"] as? Double == 3)
        #expect(object["mount"] as? String == "flat")
        #expect(object["sample_rate_hz"] as? Double == 100)
        #expect(object["average_window_s"] as? Double == 1)
        #expect(object["publish_deadband_deg"] as? Double == 0.05)
        #expect(object["min_interval_s"] as? Double == 0.5)
        #expect(object["heartbeat_s"] as? Double == 30)
        #expect(object["filter"] as? String == "mean")
        #expect(object["vibration"] as? Bool == true)
        #expect(object["vibration_window_s"] as? Double == 1)
        #expect(object["vibration_interval_s"] as? Double == 10)
        #expect(object["vibration_class"] as? String == "class_i")
        #expect(object["running_threshold"] as? String == "1 mm/s")
        #expect(object["running_hysteresis"] as? Double == 0.25)
        #expect(object["running_start_s"] as? Double == 5)
        #expect(object["running_stop_s"] as? Double == 120)
        #expect(object["name"] as? String == "Plumb")
    }

    @Test("Thresholds given in slope units are reported in degrees")
    func thresholdsInDegrees() throws {
        let settings = try applying(#"{"angle_unit": "mm_per_m", "level_tolerance": "1.5 mm/m", "alarm_threshold": "10%"}"#)
        let effective = settings.effective
        expectClose(effective.levelTolerance, atan(0.0015) * 180 / .pi)
        expectClose(effective.alarmThreshold, atan(0.1) * 180 / .pi)
        #expect(effective.angleUnit == "mm_per_m")
        let object = try effectiveObject(settings)
        #expect(object["level_tolerance"] as? Double == effective.levelTolerance, "a number, not a string")
    }

    @Test("The mount is reported by name, as it was written")
    func mountName() throws {
        #expect(try applying(#"{"mount": "upright"}"#).effective.mount == "upright")
        #expect(try applying(#"{"mount": "X, -Z, +Y"}"#).effective.mount == "x,-z,y")
    }

    @Test("The encoding is compact JSON with sorted keys, and equal settings give equal bytes")
    func sortedCompactEncoding() throws {
        let text = String(decoding: LiveSettings().encodedEffectiveConfig(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"alarm_threshold":5,"angle_unit":"deg","average_window_s":1,"#))
        #expect(!text.contains("\n"))
        let positions = LiveSettings.keys.sorted().map { text.range(of: "\"\($0)\"")!.lowerBound }
        #expect(positions == positions.sorted())
        #expect(LiveSettings().encodedEffectiveConfig() == LiveSettings().encodedEffectiveConfig())
    }

    @Test("Sending the effective config back is accepted and changes nothing measurable")
    func effectiveRoundTrip() throws {
        let settings = try applying("""
            {"angle_unit":"in_per_ft","level_tolerance":"0.7 mm/m","level_hysteresis":"0.01%","alarm_threshold":"1 in/ft",
             "mount":"z,x,y","sample_rate_hz":800,"name":"Round trip"}
            """)
        let again = try settings.applying(json: settings.encodedEffectiveConfig())
        #expect(again.effective == settings.effective)
        expectClose(again.levelTolerance.degrees, settings.levelTolerance.degrees)
        expectClose(again.alarmThreshold.degrees, settings.alarmThreshold.degrees)
        #expect(again.mount.remap == settings.mount.remap)
    }

    @Test("Changing angle_unit never changes a threshold's physical meaning", arguments: AngleUnit.allCases)
    func unitIsDisplayOnly(unit: AngleUnit) throws {
        let settings = try applying(#"{"level_tolerance": "1.5 mm/m", "level_hysteresis": "0.01%", "alarm_threshold": 3}"#)
        let changed = try applying("angle_unit", raw: unit.rawValue, to: settings)
        #expect(changed.levelTolerance == settings.levelTolerance)
        #expect(changed.levelHysteresis == settings.levelHysteresis)
        #expect(changed.alarmThreshold == settings.alarmThreshold)
        #expect(changed.publishDeadbandDeg == settings.publishDeadbandDeg)
        #expect(changed.effective.levelTolerance == settings.effective.levelTolerance)
        #expect(changed.effective.alarmThreshold == settings.effective.alarmThreshold)
        // And a bare number is always degrees, whatever the unit in force.
        #expect(try applying("level_tolerance", raw: "0.2", to: changed).levelTolerance == Angle(degrees: 0.2))
    }

    @Test("The effective config decodes with the same keys it encodes")
    func effectiveIsCodable() throws {
        let settings = try applying(#"{"name": "Codable", "length_unit": "ft"}"#)
        let decoded = try JSONDecoder().decode(EffectiveConfig.self, from: Data(settings.encodedEffectiveConfig()))
        #expect(decoded == settings.effective)
    }

    @Test("Rules cover every numeric key, with bounds that validation enforces")
    func rulesAsData() throws {
        let numeric = ["level_tolerance", "level_hysteresis", "alarm_threshold", "level_dwell_s", "sample_rate_hz",
                       "average_window_s", "publish_deadband_deg", "min_interval_s", "heartbeat_s", "vibration_window_s",
                       "vibration_interval_s", "running_hysteresis", "running_start_s", "running_stop_s"]
        #expect(LiveSettings.rules.map(\.key) == numeric)
        #expect(LiveSettings.rules.map(\.key) == LiveSettings.keys.filter(numeric.contains), "in keys order")
        for rule in LiveSettings.rules {
            #expect(rule.minimum <= rule.maximum)
            #expect(rule.step > 0)
            #expect(["°", "s", "Hz", ""].contains(rule.unit))
            // Values just outside are refused. Combination rules are relaxed around the bound so
            // only the range decides.
            let base = try applying(#"{"alarm_threshold": 90, "level_tolerance": 0.001, "level_hysteresis": 0, "min_interval_s": 0, "heartbeat_s": 86400, "sample_rate_hz": 3200, "average_window_s": 60, "vibration_window_s": 0.5, "vibration_interval_s": 3600}"#)
            let below = rule.allowedValues == nil ? rule.minimum - rule.step : 3.125
            let above = rule.allowedValues == nil ? rule.maximum + rule.step : 6400
            #expect(rejected("{\"\(rule.key)\": \(below)}", to: base) != nil, "\(rule.key) below")
            #expect(rejected("{\"\(rule.key)\": \(above)}", to: base) != nil, "\(rule.key) above")
        }
        let rate = try #require(LiveSettings.rules.first { $0.key == "sample_rate_hz" })
        #expect(rate.allowedValues == nil && rate.minimum == 1 && rate.maximum == 4000)
        #expect(rate.accepts(100) && rate.accepts(150) && !rate.accepts(0.5) && !rate.accepts(5000))
        let tolerance = try #require(LiveSettings.rules.first { $0.key == "level_tolerance" })
        #expect(tolerance.minimum == 0.001 && tolerance.maximum == 45 && tolerance.unit == "°")
    }
}
