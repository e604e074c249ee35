import Configuration
import Foundation
import Geometry
import Settings
import Testing

@Suite("Live settings over P/config/set: JSON, validated, all or nothing")
struct LiveSettingsJSONTests {
    @Test("Every key accepts its valid values", arguments: [
        ("{\"angle_unit\": \"percent\"}", "angle_unit", "percent"),
        ("{\"angle_unit\": \"in_per_ft\"}", "angle_unit", "in_per_ft"),
        ("{\"length_unit\": \"ft\"}", "length_unit", "ft"),
        ("{\"length_unit\": \"cm\"}", "length_unit", "cm"),
        ("{\"level_tolerance\": 0.25}", "level_tolerance", "0.25"),
        ("{\"level_tolerance\": \"0.25\"}", "level_tolerance", "0.25"),
        ("{\"level_tolerance\": 45, \"alarm_threshold\": 90}", "level_tolerance", "45"),
        ("{\"level_tolerance\": 0.001}", "level_tolerance", "0.001"),
        ("{\"level_hysteresis\": 0}", "level_hysteresis", "0"),
        ("{\"level_hysteresis\": 1}", "level_hysteresis", "1"),
        ("{\"alarm_threshold\": 90}", "alarm_threshold", "90"),
        ("{\"alarm_threshold\": \"0.5deg\"}", "alarm_threshold", "0.5"),
        ("{\"level_dwell_s\": 0}", "level_dwell_s", "0"),
        ("{\"level_dwell_s\": 3600}", "level_dwell_s", "3600"),
        ("{\"mount\": \"upright\"}", "mount", "upright"),
        ("{\"mount\": \"y,-x,z\"}", "mount", "y,-x,z"),
        ("{\"mount\": \"Flat\"}", "mount", "flat"),
        ("{\"sample_rate_hz\": 3200}", "sample_rate_hz", "3200"),
        ("{\"sample_rate_hz\": 12.5}", "sample_rate_hz", "12.5"),
        ("{\"average_window_s\": 60}", "average_window_s", "60"),
        ("{\"average_window_s\": 0.01}", "average_window_s", "0.01"),
        ("{\"publish_deadband_deg\": 10}", "publish_deadband_deg", "10"),
        ("{\"min_interval_s\": 0}", "min_interval_s", "0"),
        ("{\"heartbeat_s\": 86400}", "heartbeat_s", "86400"),
        ("{\"heartbeat_s\": 1, \"min_interval_s\": 1}", "heartbeat_s", "1"),
        ("{\"name\": \"Kitchen counter ✓\"}", "name", "Kitchen counter ✓"),
        ("{\"name\": \"  padded  \"}", "name", "padded"),
    ])
    func validValues(json: String, key: String, shown: String) throws {
        let settings = try applying(json)
        let value = try #require(effectiveObject(settings)[key])
        #expect("\(value)" == shown || (value as? Double).map(formatted) == shown)
    }

    @Test("Angle strings carry their unit: mm/m, %, deg, in/ft")
    func angleUnitsInStrings() throws {
        let settings = try applying(#"{"level_tolerance": "1.5 mm/m", "level_hysteresis": "0.2%", "alarm_threshold": "0.5 in/ft"}"#)
        #expect(settings.levelTolerance == Angle(1.5, unit: .mmPerM))
        #expect(settings.levelHysteresis == Angle(0.2, unit: .percent))
        #expect(settings.alarmThreshold == Angle(0.5, unit: .inPerFt))
        #expect(try applying(#"{"level_tolerance": "0.1deg"}"#).levelTolerance == Angle(degrees: 0.1))
        #expect(try applying(#"{"level_tolerance": 0.1}"#).levelTolerance == Angle(degrees: 0.1),
                "a JSON number means degrees")
    }

    @Test("A full message sets every key at once")
    func fullMessage() throws {
        let json = """
            {"angle_unit":"mm_per_m","length_unit":"in","level_tolerance":"1 mm/m","level_hysteresis":0.01,
             "alarm_threshold":2,"level_dwell_s":1,"mount":"upright","sample_rate_hz":50,"average_window_s":2,
             "publish_deadband_deg":0.02,"min_interval_s":2,"heartbeat_s":120,"name":"Press"}
            """
        let settings = try applying(json)
        #expect(settings.angleUnit == .mmPerM)
        #expect(settings.lengthUnit == .in)
        #expect(settings.levelTolerance == Angle(1, unit: .mmPerM))
        #expect(settings.levelHysteresis == Angle(degrees: 0.01))
        #expect(settings.alarmThreshold == Angle(degrees: 2))
        #expect(settings.levelDwellS == 1)
        #expect(settings.mount == .upright)
        #expect(settings.sampleRateHz == 50)
        #expect(settings.averageWindowS == 2)
        #expect(settings.publishDeadbandDeg == 0.02)
        #expect(settings.minIntervalS == 2)
        #expect(settings.heartbeatS == 120)
        #expect(settings.name == "Press")
    }

    @Test("A partial message changes only its keys; an empty object changes nothing")
    func partialMessage() throws {
        let base = try applying(#"{"angle_unit": "percent", "level_dwell_s": 3}"#)
        let next = try applying(#"{"level_dwell_s": 1}"#, to: base)
        #expect(next.angleUnit == .percent)
        #expect(next.levelDwellS == 1)
        #expect(try applying("{}", to: base) == base)
    }

    @Test("Every key refuses invalid values, naming the key and the value", arguments: [
        ("{\"angle_unit\": \"radians\"}", "angle_unit", "radians", "deg, percent, mm_per_m, in_per_ft"),
        ("{\"angle_unit\": 1}", "angle_unit", "1", "takes text"),
        ("{\"length_unit\": \"km\"}", "length_unit", "km", "mm, cm, m, in, ft"),
        ("{\"length_unit\": null}", "length_unit", "null", "takes text"),
        ("{\"level_tolerance\": 0}", "level_tolerance", "0", "0.001° to 45°"),
        ("{\"level_tolerance\": 46}", "level_tolerance", "46", "46° is out of range"),
        ("{\"level_tolerance\": -0.1}", "level_tolerance", "-0.1", "out of range"),
        ("{\"level_tolerance\": \"101 %\"}", "level_tolerance", "101 %", "101 % (45.285051278°) is out of range"),
        ("{\"level_tolerance\": \"abc\"}", "level_tolerance", "abc", "does not start with a number"),
        ("{\"level_tolerance\": [0.1]}", "level_tolerance", "[…]", "takes an angle"),
        ("{\"level_tolerance\": {\"deg\": 1}}", "level_tolerance", "{…}", "takes an angle"),
        ("{\"level_hysteresis\": 10.5}", "level_hysteresis", "10.5", "0° to 10°"),
        ("{\"alarm_threshold\": 0.001}", "alarm_threshold", "0.001", "0.01° to 90°"),
        ("{\"alarm_threshold\": 91}", "alarm_threshold", "91", "out of range"),
        ("{\"level_dwell_s\": -1}", "level_dwell_s", "-1", "0 s to 3600 s"),
        ("{\"level_dwell_s\": 3601}", "level_dwell_s", "3601", "3601 s is out of range"),
        ("{\"level_dwell_s\": \"1\"}", "level_dwell_s", "1", "takes a number, not the text"),
        ("{\"mount\": \"sideways\"}", "mount", "sideways", "neither flat, upright"),
        ("{\"mount\": \"x,y,-z\"}", "mount", "x,y,-z", "mirror image"),
        ("{\"mount\": 3}", "mount", "3", "takes text"),
        ("{\"sample_rate_hz\": 0.5}", "sample_rate_hz", "0.5", "1 Hz to 4000 Hz"),
        ("{\"sample_rate_hz\": 6400}", "sample_rate_hz", "6400", "out of range"),
        ("{\"average_window_s\": 0}", "average_window_s", "0", "0.01 s to 60 s"),
        ("{\"average_window_s\": 61}", "average_window_s", "61", "out of range"),
        ("{\"publish_deadband_deg\": 0.0001}", "publish_deadband_deg", "0.0001", "0.001° to 10°"),
        ("{\"publish_deadband_deg\": \"0.1 mm/m\"}", "publish_deadband_deg", "0.1 mm/m", "takes a number"),
        ("{\"min_interval_s\": -0.5}", "min_interval_s", "-0.5", "0 s to 3600 s"),
        ("{\"heartbeat_s\": 0.5}", "heartbeat_s", "0.5", "1 s to 86400 s"),
        ("{\"heartbeat_s\": 86401}", "heartbeat_s", "86401", "out of range"),
        ("{\"name\": \"\"}", "name", "", "cannot be empty"),
        ("{\"name\": \"   \"}", "name", "   ", "cannot be empty"),
        ("{\"name\": \"line\\nbreak\"}", "name", "line\nbreak", "U+000A"),
        ("{\"name\": 42}", "name", "42", "takes text"),
    ])
    func invalidValues(json: String, key: String, value: String, reason: String) throws {
        let rejection = try #require(rejected(json))
        #expect(rejection.key == key)
        #expect(rejection.value == value)
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("A name over 64 characters is refused; 64 is accepted")
    func nameLength() throws {
        let long = String(repeating: "é", count: 65)
        #expect(rejected("{\"name\": \"\(long)\"}")?.reason.contains("at most 64") == true)
        #expect(try applying("{\"name\": \"\(long.dropLast())\"}").name.count == 64)
    }

    @Test("Booleans are never numbers, and numbers never booleans", arguments: [
        "level_tolerance", "level_hysteresis", "alarm_threshold", "level_dwell_s", "sample_rate_hz",
        "average_window_s", "publish_deadband_deg", "min_interval_s", "heartbeat_s",
    ])
    func boolIsNotANumber(key: String) throws {
        for literal in ["true", "false"] {
            let rejection = try #require(rejected("{\"\(key)\": \(literal)}"))
            #expect(rejection.key == key)
            #expect(rejection.reason.contains("the boolean \(literal)"), "\(rejection.reason)")
        }
    }

    @Test("1 and 0 are numbers, not booleans: they set numeric keys")
    func numbersAreNotBooleans() throws {
        #expect(try applying(#"{"level_dwell_s": 1}"#).levelDwellS == 1)
        #expect(try applying(#"{"level_hysteresis": 0}"#).levelHysteresis == .zero)
    }

    @Test("NaN and infinity spelled as strings are refused for every numeric key", arguments: [
        "NaN", "nan", "Infinity", "-Infinity", "inf", "1e999",
    ])
    func nonFiniteStrings(text: String) throws {
        for key in ["level_tolerance", "level_hysteresis", "alarm_threshold"] {
            let rejection = try #require(rejected("{\"\(key)\": \"\(text)\"}"))
            #expect(rejection.key == key)
        }
        for key in ["level_dwell_s", "sample_rate_hz", "average_window_s", "publish_deadband_deg", "min_interval_s",
                    "heartbeat_s"] {
            let rejection = try #require(rejected("{\"\(key)\": \"\(text)\"}"))
            #expect(rejection.key == key)
        }
    }

    @Test("Bare NaN, Infinity and numbers too large for a Double are not JSON at all",
          arguments: ["NaN", "Infinity", "-Infinity", "1e999"])
    func nonFiniteLiterals(literal: String) throws {
        let rejection = try #require(rejected("{\"level_dwell_s\": \(literal)}"))
        #expect(rejection.key == nil || rejection.key == "level_dwell_s")
    }

    @Test("One bad key rejects the whole message and leaves the settings unchanged")
    func allOrNothing() throws {
        let before = try applying(#"{"angle_unit": "percent", "name": "Before"}"#)
        let json = #"{"angle_unit": "mm_per_m", "level_dwell_s": 2, "name": "After", "heartbeat_s": -5}"#
        let rejection = try #require(rejected(json, to: before))
        #expect(rejection.key == "heartbeat_s")
        #expect(before.angleUnit == .percent)
        #expect(before.name == "Before")
        #expect(before.levelDwellS == 3)
    }

    @Test("Unknown keys are never ignored: the rejection lists them and every valid key")
    func unknownKeys() throws {
        let rejection = try #require(rejected(#"{"level_tolerance": 0.2, "tolerance": 1, "colour": "red"}"#))
        #expect(rejection.key == "colour")
        #expect(rejection.value == "red")
        #expect(rejection.reason.contains(#"unknown keys "colour", "tolerance""#))
        #expect(rejection.reason.contains(LiveSettings.keys.joined(separator: ", ")))
    }

    @Test("Payloads that are not a JSON object are refused as a whole", arguments: [
        ("not json", "the message is not JSON (line 1, column 3)"), ("", "nothing but whitespace"),
        ("[1, 2]", "not a list"), ("0.25", "not the number"), ("\"flat\"", "P/config/<key>/set"), ("null", "JSON object"),
        ("{\"a\": 1", "it ends before the value is complete"),
    ])
    func notAnObject(payload: String, reason: String) throws {
        let rejection = try #require(rejected(payload))
        #expect(rejection.key == nil)
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("A payload over 64 KiB is refused before parsing; 64 KiB exactly is read")
    func sizeLimit() throws {
        let padding = { (total: Int) in
            let head = #"{"name": "x", "level_dwell_s": 1"#
            return head + String(repeating: " ", count: total - head.count - 1) + "}"
        }
        let over = Array(padding(64 * 1024 + 1).utf8)
        #expect(over.count == 65_537)
        do {
            _ = try LiveSettings().applying(json: over)
            Issue.record("a 65537-byte payload was accepted")
        } catch {
            #expect(error.key == nil)
            #expect(error.reason.contains("65537 bytes"))
            #expect(error.reason.contains("64 KiB"))
        }
        #expect(try LiveSettings().applying(json: Array(padding(64 * 1024).utf8)).levelDwellS == 1)
    }

    @Test("A rejection's value is cut to 100 characters")
    func longValuesAreTruncated() throws {
        let rejection = try #require(rejected("{\"mount\": \"\(String(repeating: "x", count: 500))\"}"))
        #expect(rejection.value?.count == 101)
        #expect(rejection.value?.hasSuffix("…") == true)
    }

    @Test("Combination: the alarm must be above tolerance + hysteresis, and the message explains why")
    func alarmAboveLevelBand() throws {
        let rejection = try #require(rejected(#"{"level_tolerance": 4, "level_hysteresis": 1}"#))
        #expect(rejection.key == "level_tolerance")
        #expect(rejection.reason.contains("alarm_threshold (5°) must be above level_tolerance + level_hysteresis"))
        #expect(rejection.reason.contains("4° + 1° = 5°"))
        #expect(rejection.reason.contains("still reads level"))
        let alarm = try #require(rejected(#"{"alarm_threshold": "2 mm/m"}"#))
        #expect(alarm.key == "alarm_threshold")
        // Raising the alarm in the same message makes it valid: rules apply to the result.
        #expect(try applying(#"{"level_tolerance": 4, "level_hysteresis": 1, "alarm_threshold": 6}"#).alarmThreshold
            == Angle(degrees: 6))
    }

    @Test("Combination: the average window holds at least one sample at the rate")
    func windowHoldsASample() throws {
        let slow = try #require(rejected(#"{"sample_rate_hz": 6.25, "average_window_s": 0.1}"#))
        #expect(slow.key == "average_window_s")
        #expect(slow.reason.contains("one every 0.16 s"))
        #expect(try applying(#"{"sample_rate_hz": 6.25, "average_window_s": 0.16}"#).averageWindowS == 0.16)
        let windowFirst = try applying(#"{"average_window_s": 0.01}"#)
        #expect(rejected(#"{"sample_rate_hz": 50}"#, to: windowFirst)?.key == "sample_rate_hz")
    }

    @Test("Combination: the heartbeat is at least the minimum interval")
    func heartbeatAtLeastMinInterval() throws {
        let rejection = try #require(rejected(#"{"heartbeat_s": 10, "min_interval_s": 20}"#))
        #expect(rejection.key == "heartbeat_s")
        #expect(rejection.reason.contains("heartbeat_s (10 s) must be at least min_interval_s (20 s)"))
        #expect(try applying(#"{"heartbeat_s": 20, "min_interval_s": 20}"#).heartbeatS == 20)
    }

    @Test("The description joins key, value and reason")
    func rejectionDescription() throws {
        let rejection = try #require(rejected(#"{"level_dwell_s": -1}"#))
        #expect(rejection.description == "level_dwell_s = \"-1\": " + rejection.reason)
        let whole = SettingsRejection(key: nil, value: nil, reason: "r")
        #expect(whole.description == "config: r")
    }
}

/// The effective config as a JSON object.
func effectiveObject(_ settings: LiveSettings) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(settings.encodedEffectiveConfig()))
    return try #require(object as? [String: Any])
}

func formatted(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
