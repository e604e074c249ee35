import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import Persistence
import Settings
import Testing
import Vibration
import VibrationVocabulary

@Suite("The vibration settings in the config file and in settings.json")
struct VibrationConfigFileTests {
    static let vibrationYAML = """
        level:
          filter: mean
        vibration:
          vibration: false
          vibration_window_s: 2
          vibration_interval_s: 20
          vibration_class: group2_rigid
          running_threshold: 0.03 g
          running_hysteresis: 0.4
          running_start_s: 12
          running_stop_s: 300
        """

    @Test("The vibration: section sets every vibration key under its live name; filter is a level key")
    func section() throws {
        let level = try parse(Self.vibrationYAML).level
        #expect(level.filter == .mean)
        #expect(!level.isVibrationEnabled)
        #expect(level.vibrationWindowS == 2)
        #expect(level.vibrationIntervalS == 20)
        #expect(level.vibrationClass == .group2Rigid)
        #expect(level.runningThreshold == RunningThreshold(value: 0.03, unit: .gravities))
        #expect(level.runningHysteresis == 0.4)
        #expect(level.runningStartS == 12)
        #expect(level.runningStopS == 300)
        // The same values over MQTT give the same settings: one name per key.
        let json = """
            {"filter": "mean", "vibration": false, "vibration_window_s": 2, "vibration_interval_s": 20,
             "vibration_class": "group2_rigid", "running_threshold": "0.03 g", "running_hysteresis": 0.4,
             "running_start_s": 12, "running_stop_s": 300, "name": "Plumb testhost"}
            """
        #expect(level == (try applying(json)))
    }

    @Test("A bare number is mm/s, quoted or not; a quoted boolean is text and refused")
    func scalars() throws {
        #expect(try parse("vibration:\n  running_threshold: 0.8\n").level.runningThreshold
            == RunningThreshold(value: 0.8, unit: .millimetresPerSecond))
        #expect(try parse("vibration:\n  running_threshold: \"2 mm/s\"\n").level.runningThreshold
            == RunningThreshold(value: 2, unit: .millimetresPerSecond))
        expectError(parseError("vibration:\n  vibration: \"false\"\n"), .wrongType, keyPath: "vibration.vibration",
                    line: 2, reasonContains: ["takes true or false"])
        expectError(parseError("vibration:\n  vibration: off\n"), .wrongType, keyPath: "vibration.vibration",
                    line: 2, reasonContains: ["Write true or false"])
        expectError(parseError("vibration:\n  vibration_window_s: \"1\"\n"), .wrongType,
                    keyPath: "vibration.vibration_window_s", line: 2)
    }

    @Test("Bad values name the key path, the line and what is accepted")
    func badValues() {
        expectError(parseError("vibration:\n  vibration_window_s: 20\n"), .invalidValue,
                    keyPath: "vibration.vibration_window_s", line: 2, reasonContains: ["0.5 s to 10 s"])
        expectError(parseError("vibration:\n  vibration_class: class_v\n"), .invalidValue,
                    keyPath: "vibration.vibration_class", line: 2, reasonContains: ["class_i, class_ii"])
        expectError(parseError("vibration:\n  running_threshold: 1 furlong/s\n"), .invalidValue,
                    keyPath: "vibration.running_threshold", line: 2, reasonContains: ["\"0.02 g\""])
        expectError(parseError("level:\n  filter: kalman\n"), .invalidValue, keyPath: "level.filter", line: 2,
                    reasonContains: ["filter is one of mean"])
    }

    @Test("The interval below the window is a conflict at the key that was set")
    func conflict() {
        expectError(parseError("vibration:\n  vibration_window_s: 5\n  vibration_interval_s: 2\n"), .conflict,
                    keyPath: "vibration.vibration_interval_s", line: 3,
                    reasonContains: ["must be at least vibration_window_s (5 s)"])
    }

    @Test("A vibration key in the wrong section, or a bare vibration: false, says where it goes")
    func wrongPlace() {
        expectError(parseError("level:\n  running_threshold: 1\n"), .unknownKey, keyPath: "level.running_threshold",
                    line: 2, reasonContains: ["vibration.running_threshold"])
        expectError(parseError("running_stop_s: 60\n"), .unknownKey, keyPath: "running_stop_s", line: 1,
                    reasonContains: ["vibration.running_stop_s"])
        expectError(parseError("vibration:\n  filter: mean\n"), .unknownKey, keyPath: "vibration.filter", line: 2,
                    reasonContains: ["level.filter"])
        expectError(parseError("vibration:\n  window_s: 1\n"), .unknownKey, keyPath: "vibration.window_s", line: 2,
                    reasonContains: ["The keys of vibration are: vibration, vibration_window_s"])
        expectError(parseError("vibration: false\n"), .wrongType, keyPath: "vibration", line: 1,
                    reasonContains: ["vibration is a section", "vibration: {vibration: false}"])
        expectError(parseError("vibration: 3\n"), .wrongType, keyPath: "vibration", line: 1,
                    reasonContains: ["must be a mapping"])
    }

    @Test("The new keys persist exactly and load back equal")
    func persistence() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        let settings = try parse(Self.vibrationYAML).level
        try store.save(settings: settings)
        #expect(store.load().settings == settings)
        let text = try String(contentsOfFile: store.settingsPath, encoding: .utf8)
        #expect(text.contains("\"running_threshold\" : \"0.03 g\""))
        #expect(text.contains("\"vibration\" : false"))
        #expect(text.contains("\"vibration_class\" : \"group2_rigid\""))
        #expect(text.contains("\"filter\" : \"mean\""))
    }

    @Test("An invalid new value in settings.json is set aside like any other")
    func invalidPersisted() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        try store.save(settings: LiveSettings())
        let valid = try String(contentsOfFile: store.settingsPath, encoding: .utf8)
        for (broken, problem) in [
            (valid.replacingOccurrences(of: "\"1 mm/s\"", with: "\"1 m/s\""), "running_threshold"),
            (valid.replacingOccurrences(of: "\"class_i\"", with: "\"class_x\""), "vibration_class"),
            (valid.replacingOccurrences(of: "\"vibration_interval_s\" : 10", with: "\"vibration_interval_s\" : 0.5"),
             "vibration_interval_s"),
            (valid.replacingOccurrences(of: "\"vibration\" : true", with: "\"vibration\" : \"yes\""), "vibration"),
        ] {
            #expect(broken != valid)
            try directory.write(broken, to: "settings.json")
            let loaded = store.load()
            #expect(loaded.settings == nil)
            #expect(loaded.warnings.first?.contains(problem) == true, "\(loaded.warnings)")
        }
    }

    @Test("A settings.json from before the vibration keys loads, the missing keys from the config file")
    func olderFile() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        // As the previous release wrote it: the level keys only.
        try directory.write("""
            {"format": 1, "settings": {"alarm_threshold": {"radians": 0.05}, "angle_unit": "percent",
             "average_window_s": 1, "heartbeat_s": 30, "length_unit": "mm", "level_dwell_s": 3,
             "level_hysteresis": {"radians": 0.0003}, "level_tolerance": {"radians": 0.002}, "min_interval_s": 0.5,
             "mount": "flat", "name": "Old", "publish_deadband_deg": 0.05, "sample_rate_hz": 12.5}}
            """, to: "settings.json")
        let file = try parse(Self.vibrationYAML).level
        let loaded = store.load(defaults: file)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let settings = try #require(loaded.settings)
        #expect(settings.angleUnit == .percent && settings.name == "Old" && settings.sampleRateHz == 12.5)
        #expect(settings.levelTolerance == Angle(radians: 0.002))
        #expect(!settings.isVibrationEnabled)
        #expect(settings.vibrationClass == .group2Rigid)
        #expect(settings.runningThreshold == file.runningThreshold)
        #expect(settings.runningStopS == 300)
        // Without the file's defaults, the built-in ones.
        let builtIn = try #require(store.load().settings)
        #expect(builtIn.isVibrationEnabled && builtIn.vibrationClass == .classI && builtIn.angleUnit == .percent)
    }
}
