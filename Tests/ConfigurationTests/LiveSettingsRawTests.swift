import Configuration
import Geometry
import Settings
import Testing

@Suite("Live settings over P/config/<key>/set: one raw value")
struct LiveSettingsRawTests {
    @Test("Every key accepts a bare value, with or without JSON quotes", arguments: [
        ("angle_unit", "mm_per_m"), ("angle_unit", "\"percent\""), ("angle_unit", "mm/m"),
        ("length_unit", "in"), ("length_unit", "\"m\""),
        ("level_tolerance", "0.25"), ("level_tolerance", "1.5 mm/m"), ("level_tolerance", "\"1.5 mm/m\""),
        ("level_tolerance", "0.2%"), ("level_tolerance", "0.1deg"),
        ("level_hysteresis", "0.05"), ("alarm_threshold", "2"), ("alarm_threshold", "\"3 %\""),
        ("level_dwell_s", "2.5"), ("level_dwell_s", "\"2\""), ("level_dwell_s", " 2\n"),
        ("mount", "flat"), ("mount", "upright"), ("mount", "x,-z,y"), ("mount", "\"z,y,-x\""),
        ("sample_rate_hz", "400"), ("sample_rate_hz", "6.25"), ("sample_rate_hz", "1e2"),
        ("average_window_s", "0.5"), ("publish_deadband_deg", "0.1"), ("min_interval_s", "1"),
        ("heartbeat_s", "60"), ("name", "Drill press"), ("name", "\"Drill \\\"press\\\"\""), ("name", "42"),
    ])
    func validRawValues(key: String, raw: String) throws {
        let settings = try applying(key, raw: raw)
        #expect(settings.effective == (try applying(key, raw: raw, to: settings)).effective, "applying twice is stable")
    }

    @Test("Raw values mean the same as their JSON counterparts")
    func rawMatchesJSON() throws {
        #expect(try applying("level_tolerance", raw: "1.5 mm/m") == (try applying(#"{"level_tolerance": "1.5 mm/m"}"#)))
        #expect(try applying("level_tolerance", raw: "0.25") == (try applying(#"{"level_tolerance": 0.25}"#)))
        #expect(try applying("mount", raw: "\"x,-z,y\"") == (try applying(#"{"mount": "x,-z,y"}"#)))
        #expect(try applying("name", raw: "\"Drill \\\"press\\\"\"").name == "Drill \"press\"")
        #expect(try applying("name", raw: "42").name == "42", "a bare number is text for a text key")
        #expect(try applying("level_dwell_s", raw: "1e1").levelDwellS == 10)
    }

    @Test("Every key refuses invalid raw values", arguments: [
        ("angle_unit", "radians", "deg, percent, mm_per_m, in_per_ft"),
        ("length_unit", "yard", "mm, cm, m, in, ft"),
        ("level_tolerance", "0", "out of range"),
        ("level_tolerance", "NaN", "not finite"),
        ("level_tolerance", "\"inf\"", "not finite"),
        ("level_tolerance", "2 furlongs", "\"furlongs\" is not a unit"),
        ("level_hysteresis", "11", "out of range"),
        ("alarm_threshold", "95", "out of range"),
        ("level_dwell_s", "NaN", "finite decimal number of seconds"),
        ("level_dwell_s", "inf", "finite decimal number"),
        ("level_dwell_s", "0x10", "finite decimal number"),
        ("level_dwell_s", "1,5", "finite decimal number"),
        ("level_dwell_s", "true", "finite decimal number"),
        ("level_dwell_s", "2 s", "finite decimal number"),
        ("level_dwell_s", "", "finite decimal number"),
        ("mount", "x,y", "three comma-separated axes"),
        ("sample_rate_hz", "0.5", "1 Hz to 4000 Hz"),
        ("average_window_s", "0.001", "out of range"),
        ("publish_deadband_deg", "-1", "out of range"),
        ("min_interval_s", "4000", "out of range"),
        ("heartbeat_s", "0", "out of range"),
        ("name", "", "cannot be empty"),
        ("name", "\"\"", "cannot be empty"),
        ("name", "\"unterminated", "starts with a quote but is not JSON (line 1, column 13): it ends before"),
    ])
    func invalidRawValues(key: String, raw: String, reason: String) throws {
        let rejection = try #require(rawRejection(key, raw))
        #expect(rejection.key == key)
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("An unknown key is refused, listing the valid ones")
    func unknownKey() throws {
        let rejection = try #require(rawRejection("tolerance", "0.1"))
        #expect(rejection.key == "tolerance")
        #expect(rejection.reason.contains("unknown key \"tolerance\""))
        #expect(rejection.reason.contains(LiveSettings.keys.joined(separator: ", ")))
    }

    @Test("Invalid UTF-8 and payloads over 64 KiB are refused")
    func badPayloads() throws {
        do {
            _ = try LiveSettings().applying(key: "name", rawValue: [0x41, 0xFF, 0x42])
            Issue.record("invalid UTF-8 accepted")
        } catch {
            #expect(error.reason.contains("UTF-8"))
        }
        do {
            _ = try LiveSettings().applying(key: "name", rawValue: Array(repeating: 0x41, count: 65_537))
            Issue.record("oversized payload accepted")
        } catch {
            #expect(error.reason.contains("64 KiB"))
        }
    }

    @Test("Combination rules apply to a single key too, and leave the settings unchanged")
    func combinationForOneKey() throws {
        let settings = LiveSettings()
        let rejection = try #require(rawRejection("alarm_threshold", "0.1", to: settings))
        #expect(rejection.key == "alarm_threshold")
        #expect(rejection.reason.contains("must be above"))
        #expect(settings == LiveSettings())
    }
}
