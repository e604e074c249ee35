import Configuration
import Foundation
import Geometry
import Level
import Settings
import Testing
import Vibration
import VibrationVocabulary

@Suite("Live settings: the level filter, the vibration analysis and the running state")
struct VibrationSettingsTests {
    @Test("Defaults: mean filter, vibration on, 1 s windows, 10 s interval, class I, 1 mm/s, 25 %, 5 s, 120 s")
    func defaults() {
        let defaults = LiveSettings()
        #expect(defaults.filter == .mean)
        #expect(defaults.isVibrationEnabled)
        #expect(defaults.vibrationWindowS == 1)
        #expect(defaults.vibrationIntervalS == 10)
        #expect(defaults.vibrationClass == .classI)
        #expect(defaults.runningThreshold == RunningThreshold(value: 1, unit: .millimetresPerSecond))
        #expect(defaults.runningHysteresis == 0.25)
        #expect(defaults.runningStartS == 5)
        #expect(defaults.runningStopS == 120)
    }

    @Test("JSON: every new key accepts its valid values", arguments: [
        (#"{"filter": "mean"}"#, "filter", "mean"),
        (#"{"vibration": false}"#, "vibration", "false"),
        (#"{"vibration": true}"#, "vibration", "true"),
        (#"{"vibration_window_s": 0.5}"#, "vibration_window_s", "0.5"),
        (#"{"vibration_window_s": 10}"#, "vibration_window_s", "10"),
        (#"{"vibration_interval_s": 1}"#, "vibration_interval_s", "1"),
        (#"{"vibration_interval_s": 3600}"#, "vibration_interval_s", "3600"),
        (#"{"vibration_class": "class_iv"}"#, "vibration_class", "class_iv"),
        (#"{"vibration_class": "group1_flexible"}"#, "vibration_class", "group1_flexible"),
        (#"{"running_threshold": "0.02 g"}"#, "running_threshold", "0.02 g"),
        (#"{"running_threshold": "1.2mm/s"}"#, "running_threshold", "1.2 mm/s"),
        (#"{"running_threshold": "0.8"}"#, "running_threshold", "0.8 mm/s"),
        (#"{"running_threshold": 0.8}"#, "running_threshold", "0.8 mm/s"),
        (#"{"running_threshold": 100}"#, "running_threshold", "100 mm/s"),
        (#"{"running_threshold": "16 g"}"#, "running_threshold", "16 g"),
        (#"{"running_threshold": "0.001 g"}"#, "running_threshold", "0.001 g"),
        (#"{"running_hysteresis": 0}"#, "running_hysteresis", "0"),
        (#"{"running_hysteresis": 0.9}"#, "running_hysteresis", "0.9"),
        (#"{"running_start_s": 0}"#, "running_start_s", "0"),
        (#"{"running_start_s": 3600}"#, "running_start_s", "3600"),
        (#"{"running_stop_s": 21600}"#, "running_stop_s", "21600"),
    ])
    func validJSON(json: String, key: String, shown: String) throws {
        let value = try #require(effectiveObject(try applying(json))[key])
        // JSONSerialization gives NSNumber for booleans and numbers alike: ask by key.
        let text = key == "vibration" ? (value as? Bool).map(String.init) : (value as? Double).map(formatted) ?? "\(value)"
        #expect(text == shown, "\(key)")
    }

    @Test("The filter accepts every GravityFilter, by its raw value", arguments: GravityFilter.allCases)
    func everyFilter(filter: GravityFilter) throws {
        #expect(try applying("{\"filter\": \"\(filter.rawValue)\"}").filter == filter)
        #expect(try applying("filter", raw: filter.rawValue).filter == filter)
        #expect(try applying("filter", raw: filter.rawValue).effective.filter == filter.rawValue)
    }

    @Test("The vibration class accepts every MachineClass, by its raw value", arguments: MachineClass.allCases)
    func everyMachineClass(machineClass: MachineClass) throws {
        #expect(try applying("vibration_class", raw: machineClass.rawValue).vibrationClass == machineClass)
        #expect(try applying("{\"vibration_class\": \"\(machineClass.rawValue)\"}").effective.vibrationClass
            == machineClass.rawValue)
    }

    @Test("JSON: every new key refuses invalid values, naming the key, the value and what to send", arguments: [
        (#"{"filter": "kalman"}"#, "filter", "kalman", "unknown filter; filter is one of mean"),
        (#"{"filter": "Mean"}"#, "filter", "Mean", "filter is one of"),
        (#"{"filter": 1}"#, "filter", "1", "takes text"),
        (#"{"vibration": "true"}"#, "vibration", "true", "takes true or false, not the text \"true\""),
        (#"{"vibration": 1}"#, "vibration", "1", "takes true or false, not the number 1"),
        (#"{"vibration": null}"#, "vibration", "null", "takes true or false"),
        (#"{"vibration_window_s": 0.4}"#, "vibration_window_s", "0.4", "0.5 s to 10 s"),
        (#"{"vibration_window_s": 11}"#, "vibration_window_s", "11", "11 s is out of range"),
        (#"{"vibration_window_s": "1"}"#, "vibration_window_s", "1", "takes a number, not the text"),
        (#"{"vibration_interval_s": 0.1}"#, "vibration_interval_s", "0.1", "0.5 s to 3600 s"),
        (#"{"vibration_class": "class_v"}"#, "vibration_class", "class_v",
         "unknown machine class; vibration_class is one of class_i, class_ii"),
        (#"{"vibration_class": true}"#, "vibration_class", "true", "takes text"),
        (#"{"running_threshold": "0.5 m/s"}"#, "running_threshold", "0.5 m/s", "\"m/s\" is not a unit"),
        (#"{"running_threshold": "fast"}"#, "running_threshold", "fast", "does not start with a number"),
        (#"{"running_threshold": "-1 g"}"#, "running_threshold", "-1 g", "must be positive"),
        (#"{"running_threshold": 0}"#, "running_threshold", "0", "positive, finite number of mm/s"),
        (#"{"running_threshold": "200 mm/s"}"#, "running_threshold", "200 mm/s",
         "200 mm/s is out of range; running_threshold accepts a velocity of 0.01 to 100 mm/s or an acceleration of 0.001 to 16 g"),
        (#"{"running_threshold": 0.001}"#, "running_threshold", "0.001", "0.001 (0.001 mm/s) is out of range"),
        (#"{"running_threshold": "20 g"}"#, "running_threshold", "20 g", "out of range"),
        (#"{"running_threshold": true}"#, "running_threshold", "true", "takes a velocity or an acceleration"),
        (#"{"running_threshold": [0.5]}"#, "running_threshold", "[…]", "\"0.5 mm/s\" or \"0.02 g\""),
        (#"{"running_hysteresis": 1}"#, "running_hysteresis", "1", "1 is out of range; running_hysteresis accepts 0 to 0.9"),
        (#"{"running_hysteresis": -0.1}"#, "running_hysteresis", "-0.1", "0 to 0.9"),
        (#"{"running_start_s": -1}"#, "running_start_s", "-1", "0 s to 3600 s"),
        (#"{"running_stop_s": 21601}"#, "running_stop_s", "21601", "0 s to 21600 s"),
        (#"{"running_stop_s": false}"#, "running_stop_s", "false", "takes a number, not the boolean false"),
    ])
    func invalidJSON(json: String, key: String, value: String, reason: String) throws {
        let rejection = try #require(rejected(json))
        #expect(rejection.key == key)
        #expect(rejection.value == value)
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("An unknown filter lists every filter there is, whatever the release has")
    func unknownFilterListsAll() throws {
        let rejection = try #require(rejected(#"{"filter": "kalman"}"#))
        let names = GravityFilter.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(rejection.reason.hasSuffix("filter is one of \(names)."))
    }

    @Test("Raw values: every new key accepts its bare value, with or without JSON quotes", arguments: [
        ("vibration", "false"), ("vibration", " false\n"), ("vibration", "\"false\""), ("vibration_window_s", "2.5"),
        ("vibration_interval_s", "30"), ("vibration_class", "class_ii"), ("vibration_class", "\"group2_rigid\""),
        ("running_threshold", "0.02 g"), ("running_threshold", "\"0.6 mm/s\""), ("running_threshold", "0.7"),
        ("running_hysteresis", "0.1"), ("running_start_s", "10"), ("running_stop_s", "600"),
    ])
    func validRaw(key: String, raw: String) throws {
        let settings = try applying(key, raw: raw)
        #expect(settings != LiveSettings(), "\(key) = \(raw) changed nothing")
        #expect(try applying(key, raw: raw, to: settings) == settings, "applying twice is stable")
        let turnedOff = try applying(#"{"vibration": false}"#)
        #expect(try applying("vibration", raw: "true", to: turnedOff).isVibrationEnabled)
        #expect(try applying("filter", raw: "\"mean\"").filter == .mean)
    }

    @Test("Raw values mean what their JSON counterparts mean")
    func rawMatchesJSON() throws {
        #expect(try applying("vibration", raw: "false") == (try applying(#"{"vibration": false}"#)))
        #expect(try applying("running_threshold", raw: "0.02 g") == (try applying(#"{"running_threshold": "0.02 g"}"#)))
        #expect(try applying("running_threshold", raw: "0.7") == (try applying(#"{"running_threshold": 0.7}"#)),
                "a bare number is mm/s, raw or JSON")
        #expect(try applying("vibration_class", raw: "class_iii") == (try applying(#"{"vibration_class": "class_iii"}"#)))
        #expect(try applying("running_stop_s", raw: "1e3").runningStopS == 1000)
    }

    @Test("Raw values: every new key refuses what it cannot read", arguments: [
        ("filter", "median-ish", "filter is one of"),
        ("vibration", "on", "takes true or false, not \"on\". Write true or false."),
        ("vibration", "1", "Write true or false."),
        ("vibration", "True", "takes true or false"),
        ("vibration", "", "takes true or false"),
        ("vibration_window_s", "1 s", "finite decimal number of seconds"),
        ("vibration_window_s", "0.2", "out of range"),
        ("vibration_interval_s", "NaN", "finite decimal number"),
        ("vibration_class", "I", "class_i, class_ii, class_iii, class_iv, group2_rigid"),
        ("running_threshold", "", "it is empty"),
        ("running_threshold", "0.5 mm/h", "\"mm/h\" is not a unit"),
        ("running_threshold", "inf", "does not start with a number"),
        ("running_threshold", "1e999 g", "positive and finite"),
        ("running_hysteresis", "25%", "finite decimal number (a fraction), such as 0.01"),
        ("running_start_s", "five", "finite decimal number of seconds"),
        ("running_stop_s", "-5", "out of range"),
    ])
    func invalidRaw(key: String, raw: String, reason: String) throws {
        let rejection = try #require(rawRejection(key, raw))
        #expect(rejection.key == key)
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("Combination: the interval is at least the window, and the message says what to change")
    func intervalAtLeastWindow() throws {
        let rejection = try #require(rejected(#"{"vibration_window_s": 5, "vibration_interval_s": 2}"#))
        #expect(rejection.key == "vibration_interval_s")
        #expect(rejection.reason.contains("vibration_interval_s (2 s) must be at least vibration_window_s (5 s)"))
        #expect(rejection.reason.contains("Raise vibration_interval_s or shorten vibration_window_s"))
        #expect(try applying(#"{"vibration_window_s": 5, "vibration_interval_s": 5}"#).vibrationIntervalS == 5)
        // The key the message changed is blamed.
        let slow = try applying(#"{"vibration_window_s": 2, "vibration_interval_s": 2}"#)
        #expect(rawRejection("vibration_window_s", "3", to: slow)?.key == "vibration_window_s")
        #expect(rawRejection("vibration_interval_s", "1", to: slow)?.key == "vibration_interval_s")
        // The longest window fits the default interval, so changing the window alone never collides.
        #expect(try applying("vibration_window_s", raw: "10").vibrationWindowS == 10)
    }

    @Test("Vibration stays valid at any sample rate; below 50 Hz it has no velocity band")
    func slowRates() throws {
        for rate in [6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600, 3200] {
            let settings = try applying("sample_rate_hz", raw: formatted(rate))
            #expect(settings.isVibrationEnabled)
            #expect((settings.vibration.band == nil) == (rate <= 25), "\(rate) Hz")
        }
        #expect(try applying(#"{"sample_rate_hz": 800}"#).vibration.band == VelocityBand(low: 10, high: 312.5))
    }

    @Test("One bad new key rejects the whole message")
    func allOrNothing() throws {
        let rejection = try #require(rejected(#"{"vibration": false, "running_start_s": 2, "vibration_class": "x"}"#))
        #expect(rejection.key == "vibration_class")
    }

    @Test("P/config reports every new key; sent back it changes nothing", arguments: [
        #"{}"#,
        #"{"vibration": false, "running_threshold": "0.035 g", "vibration_class": "group2_flexible"}"#,
        #"{"running_threshold": 1.25, "running_hysteresis": 0.1, "vibration_window_s": 2.5, "vibration_interval_s": 7.5}"#,
    ])
    func effectiveRoundTrip(json: String) throws {
        let settings = try applying(json)
        let object = try effectiveObject(settings)
        for key in ["filter", "vibration", "vibration_window_s", "vibration_interval_s", "vibration_class",
                    "running_threshold", "running_hysteresis", "running_start_s", "running_stop_s"] {
            #expect(object[key] != nil, "\(key) missing from P/config")
        }
        #expect(object["running_threshold"] as? String == settings.runningThreshold.description)
        #expect(try settings.applying(json: settings.encodedEffectiveConfig()) == settings)
        let decoded = try JSONDecoder().decode(EffectiveConfig.self, from: Data(settings.encodedEffectiveConfig()))
        #expect(decoded == settings.effective)
    }

    @Test("The vibration settings sum up the live ones for the analysis")
    func vibrationValue() throws {
        let settings = try applying("""
            {"sample_rate_hz": 400, "vibration_window_s": 2.5, "vibration_interval_s": 30, "vibration_class": "class_ii",
             "running_threshold": "0.04 g", "running_hysteresis": 0.5, "running_start_s": 8, "running_stop_s": 90}
            """)
        let vibration = settings.vibration
        #expect(vibration.isEnabled)
        #expect(vibration.rateHz == 400)
        #expect(vibration.windowS == 2.5 && vibration.windowSamples == 1000)
        #expect(vibration.intervalS == 30 && vibration.heartbeatS == 30)
        #expect(try applying(#"{"heartbeat_s": 90}"#).vibration.heartbeatS == 90)
        #expect(vibration.machineClass == .classII)
        #expect(vibration.band == VelocityBand(low: 10, high: 156.25))
        #expect(vibration.running.threshold == RunningThreshold(value: 0.04, unit: .gravities))
        #expect(vibration.running.hysteresis == 0.5 && vibration.running.stopLevel == 0.02)
        #expect(vibration.running.startS == 8 && vibration.running.stopS == 90)
        #expect(LiveSettings().vibration.running.stopLevel == 0.75)
        #expect(try applying(#"{"vibration": false}"#).vibration.isEnabled == false)
        // Settings the analysis doesn't read leave its value alone, so the agent can compare.
        #expect(try applying(#"{"level_tolerance": 0.5, "filter": "mean", "name": "x"}"#).vibration
            == LiveSettings().vibration)
        // The slowest rate and shortest window still make a window of whole samples.
        #expect(try applying(#"{"sample_rate_hz": 6.25, "vibration_window_s": 0.5}"#).vibration.windowSamples == 3)
        #expect(try applying(#"{"sample_rate_hz": 3200, "vibration_window_s": 10}"#).vibration.windowSamples == 32_000)
    }
}
