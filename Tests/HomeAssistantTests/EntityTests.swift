import Contract
import Geometry
import HomeAssistant
import Level
import Settings
import Testing
import Vibration
import VibrationVocabulary

@Suite("Discovery: what each entity reads and writes")
struct EntityTests {
    @Test("Tilt, roll and pitch read P/state's degrees in every angle unit; the slope reads the unit's tilt", arguments: AngleUnit.allCases)
    func angleSensors(unit: AngleUnit) throws {
        let entities = try Fixture.entities(settings: Fixture.settings(unit: unit))
        let slope = try entities.entity("slope")
        #expect(slope.string("state_topic") == "plumb/lathe-3/state" && slope.string("unit_of_measurement") == unit.symbol)
        #expect(slope.number("expire_after") == 70)
        for (key, name) in [("tilt", "Tilt"), ("roll", "Roll"), ("pitch", "Pitch")] {
            let entity = try entities.entity("\(key)_deg")
            #expect(entity.component == "sensor")
            #expect(entity.string("name") == name + " (°)")
            #expect(entity.string("state_topic") == "plumb/lathe-3/state")
            #expect(entity.string("value_template") == "{{ value_json.\(key)_deg }}")
            #expect(entity.string("unit_of_measurement") == "°")
            #expect(entity.number("suggested_display_precision") == Double(AngleUnit.deg.displayDecimals))
            #expect(entity.string("state_class") == "measurement")
            // There is no angle device class.
            #expect(entity["device_class"] == nil)
            #expect(entity["entity_category"] == nil)
            #expect(entity.number("expire_after") == 70)
        }
    }

    @Test("The state sensors expire after ceil(2 × heartbeat + 10) seconds")
    func stateExpiry() throws {
        #expect(Discovery.stateExpiryS(heartbeatS: 30) == 70)
        #expect(Discovery.stateExpiryS(heartbeatS: 1) == 12)
        #expect(Discovery.stateExpiryS(heartbeatS: 2.4) == 15)
        #expect(Discovery.stateExpiryS(heartbeatS: 86_400) == 172_810)
        let entities = try Fixture.entities(settings: Fixture.settings(#"{"heartbeat_s":2.4,"min_interval_s":0.5}"#))
        for key in ["tilt_deg", "roll_deg", "pitch_deg", "alarm"] {
            #expect(try entities.entity(key).number("expire_after") == 15, "\(key)")
        }
        // P/level is only sent when it flips, so it must not expire.
        #expect(try entities.entity("level")["expire_after"] == nil)
    }

    @Test("Level reads ON/OFF from P/level; alarm is a problem read from P/state, unknown while null")
    func binarySensors() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let level = try entities.entity("level")
        #expect(level.component == "binary_sensor")
        #expect(level.string("state_topic") == "plumb/lathe-3/level")
        #expect(level.string("payload_on") == "ON" && level.string("payload_off") == "OFF")
        #expect(level["value_template"] == nil && level["device_class"] == nil)

        let alarm = try entities.entity("alarm")
        #expect(alarm.component == "binary_sensor")
        #expect(alarm.string("device_class") == "problem")
        #expect(alarm.string("state_topic") == "plumb/lathe-3/state")
        #expect(alarm.string("payload_on") == "ON" && alarm.string("payload_off") == "OFF")
        // `None` is Home Assistant's "unknown" for a binary sensor (PAYLOAD_NONE).
        #expect(alarm.string("value_template")
            == "{% if value_json.alarm is none %}None{% elif value_json.alarm is sameas true %}ON"
            + "{% elif value_json.alarm is sameas false %}OFF{% endif %}")
    }

    @Test("The threshold numbers take min, max, step and unit from LiveSettings.rules")
    func numbers() throws {
        let entities = try Fixture.entities(settings: Fixture.settings(unit: .mmPerM))
        for (key, name) in [("level_tolerance", "Level tolerance"), ("level_hysteresis", "Level hysteresis"),
                            ("alarm_threshold", "Alarm threshold")] {
            let rule = try #require(LiveSettings.rules.first { $0.key == key })
            let entity = try entities.entity(key)
            #expect(entity.component == "number")
            #expect(entity.string("name") == name)
            #expect(entity.number("min") == rule.minimum)
            #expect(entity.number("max") == rule.maximum)
            #expect(entity.number("step") == rule.step)
            // Degrees even in mm/m: P/config reports thresholds in degrees.
            #expect(entity.string("unit_of_measurement") == "°")
            #expect(entity.string("mode") == "box")
            #expect(entity.string("entity_category") == "config")
            #expect(entity.string("state_topic") == Fixture.topics.config)
            #expect(entity.string("value_template") == "{{ value_json.\(key) }}")
            #expect(entity.string("command_topic") == Fixture.topics.configSet(key: key))
            #expect(entity.string("command_topic") == "plumb/lathe-3/config/\(key)/set")
            #expect(entity.bool("retain") == true)
        }
    }

    @Test("The selects offer every angle unit and the mounts, with a custom remap when it is the current one")
    func selects() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let unit = try entities.entity("angle_unit")
        #expect(unit.component == "select")
        #expect(unit.strings("options") == ["deg", "percent", "mm_per_m", "in_per_ft"])
        #expect(unit.string("value_template") == "{{ value_json.angle_unit }}")
        #expect(unit.string("command_topic") == "plumb/lathe-3/config/angle_unit/set")
        for entity in [unit, try entities.entity("mount")] {
            #expect(entity.string("entity_category") == "config")
            #expect(entity.string("state_topic") == "plumb/lathe-3/config")
            #expect(entity.bool("retain") == true)
        }
        let mount = try entities.entity("mount")
        #expect(mount.string("value_template") == "{{ value_json.mount }}")
        #expect(mount.string("command_topic") == "plumb/lathe-3/config/mount/set")
        #expect(mount.strings("options") == ["flat", "upright"])

        func mountOptions(_ mount: String) throws -> [String]? {
            try Fixture.entities(settings: Fixture.settings(unit: .deg, mount: mount)).entity("mount").strings("options")
        }
        #expect(try mountOptions("upright") == ["flat", "upright"])
        #expect(try mountOptions("y,x,-z") == ["flat", "upright", "y,x,-z"])
        // The remap spelling of upright is what P/config reports, so it must be an option too.
        #expect(try mountOptions("x,-z,y") == ["flat", "upright", "x,-z,y"])
        // P/config reports the mount by its name, which is what the option must match.
        let custom = try Fixture.settings(unit: .deg, mount: "y,x,-z")
        #expect(try mountOptions("y,x,-z")?.last == custom.effective.mount)
    }

    @Test("The buttons send zero and clear_zero on P/command/<name>, never retained")
    func buttons() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let zero = try entities.entity("zero")
        let clear = try entities.entity("clear_zero")
        #expect(zero.component == "button" && clear.component == "button")
        #expect(zero.string("command_topic") == Fixture.topics.command(.zero))
        #expect(clear.string("command_topic") == "plumb/lathe-3/command/clear_zero")
        #expect(zero.bool("retain") == false && clear.bool("retain") == false)
        #expect(zero["entity_category"] == nil)
        #expect(clear.string("entity_category") == "config")
    }

    @Test("The reversal buttons send first and second on P/command/calibrate_reversal, the tumble's start, next and cancel on P/command/calibrate_six_point; self-test its own command")
    func calibrationButtons() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let first = try entities.entity("calibrate_reversal_first")
        let second = try entities.entity("calibrate_reversal_second")
        let selftest = try entities.entity("selftest")
        for (button, payload) in [(first, "first"), (second, "second")] {
            #expect(button.component == "button")
            #expect(button.string("command_topic") == "plumb/lathe-3/command/calibrate_reversal")
            #expect(button.string("payload_press") == payload)
            #expect(ReversalStep(rawValue: payload) != nil, "the payload is one the agent runs")
            #expect(button.bool("retain") == false)
            #expect(button.string("entity_category") == "config")
        }
        let tumble = [("calibrate_six_point_start", "start", "Six-point calibration: start"),
                      ("calibrate_six_point_next", "next", "Six-point calibration: next face"),
                      ("calibrate_six_point_cancel", "cancel", "Six-point calibration: cancel")]
        for (objectID, payload, name) in tumble {
            let button = try entities.entity(objectID)
            #expect(button.component == "button")
            #expect(button.string("name") == name)
            #expect(button.string("command_topic") == "plumb/lathe-3/command/calibrate_six_point")
            #expect(button.string("payload_press") == payload)
            #expect(SixPointAction(rawValue: payload) != nil, "the payload is one the agent runs")
            #expect(button.bool("retain") == false, "a retained press would start a tumble at every reconnect")
            #expect(button.string("entity_category") == "config")
        }
        #expect(selftest.component == "button")
        #expect(selftest.string("command_topic") == Fixture.topics.command(.selftest))
        #expect(selftest["payload_press"] == nil, "the self-test takes no payload: Home Assistant's PRESS is ignored")
        #expect(selftest.bool("retain") == false)
        #expect(selftest.string("entity_category") == "diagnostic")
    }

    @Test("The calibration sensor shows P/calibration's method, none without one, with date, residual and temperature as attributes")
    func calibrationSensor() throws {
        let sensor = try Fixture.entities(settings: Fixture.settings()).entity("calibration")
        #expect(sensor.component == "sensor")
        #expect(sensor.string("entity_category") == "diagnostic")
        #expect(sensor["device_class"] == nil, "a timestamp would read Unknown with no calibration")
        #expect(sensor.string("state_topic") == Fixture.topics.calibration)
        #expect(sensor.string("value_template") == "{{ value_json.method if value_json.method is string else 'none' }}")
        #expect(sensor.string("json_attributes_topic") == Fixture.topics.calibration)
        let attributes = try #require(sensor.string("json_attributes_template"))
        for key in ["date", "residual_mg.rms", "residual_mg.max", "temperature_c"] { #expect(attributes.contains("value_json." + key)) }
        #expect(sensor["unit_of_measurement"] == nil && sensor["state_class"] == nil)
        #expect(sensor["expire_after"] == nil, "retained and changed rarely: it must not expire")
    }

    @Test("The diagnostics read P/health and expire after three health periods")
    func diagnostics() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let rows: [(id: String, key: String, unit: String?, stateClass: String?, deviceClass: String?)] = [
            ("sample_rate", "sample_rate_hz", "Hz", "measurement", "frequency"),
            ("i2c_errors", "i2c_errors", nil, "total_increasing", nil),
            ("reconnects", "reconnects", nil, "total_increasing", nil),
            ("inbound_stalls", "inbound_stalls", nil, "total_increasing", nil),
            ("uptime", "uptime_s", "s", nil, "duration"),
            ("dropped_samples", "dropped", nil, "total_increasing", nil),
        ]
        for row in rows {
            let entity = try entities.entity(row.id)
            #expect(entity.component == "sensor")
            #expect(entity.string("entity_category") == "diagnostic")
            #expect(entity.string("state_topic") == "plumb/lathe-3/health")
            #expect(entity.string("value_template") == "{{ value_json.\(row.key) }}")
            #expect(entity.string("unit_of_measurement") == row.unit, "\(row.id)")
            #expect(entity.string("state_class") == row.stateClass, "\(row.id)")
            #expect(entity.string("device_class") == row.deviceClass, "\(row.id)")
            #expect(entity.number("expire_after") == 180)
        }
    }

    @Test("The vibration sensors read P/vibration through templates of its keys, with their units and classes")
    func vibrationSensors() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let rows: [(id: String, key: VibrationKey, unit: String?, deviceClass: String?, stateClass: String?)] = [
            ("velocity_rms", .velocityRMSMillimetresPerSecond, "mm/s", nil, "measurement"),
            ("acceleration_rms", .accelerationRMSG, "g", nil, "measurement"),
            ("dominant_frequency", .dominantHz, "Hz", "frequency", "measurement"),
            ("vibration_zone", .zone, nil, "enum", nil),
        ]
        for row in rows {
            let entity = try entities.entity(row.id)
            #expect(entity.component == "sensor")
            #expect(entity.string("state_topic") == Fixture.topics.vibration)
            #expect(entity.string("state_topic") == "plumb/lathe-3/vibration")
            // Guarded for the empty message that clears P/vibration (HATemplateTests renders it).
            #expect(entity.string("value_template") == "{{ value_json.\(row.key.rawValue) if value_json is defined else none }}")
            #expect(entity.string("unit_of_measurement") == row.unit, "\(row.id)")
            #expect(entity.string("device_class") == row.deviceClass, "\(row.id)")
            #expect(entity.string("state_class") == row.stateClass, "\(row.id)")
            // Readings, not diagnostics: they belong on the device's main card.
            #expect(entity["entity_category"] == nil)
            #expect(entity.number("expire_after") == 72, "2 × (the 30 s heartbeat + the 1 s window) + 10")
        }
        #expect(try entities.entity("velocity_rms").string("value_template") == "{{ value_json.velocity_rms_mm_s if value_json is defined else none }}")
        let zone = try entities.entity("vibration_zone")
        #expect(zone.strings("options") == ["A", "B", "C", "D"])
        #expect(zone.strings("options") == SeverityZone.allCases.map(\.rawValue))
    }

    @Test("Running is a running binary sensor read from P/vibration's boolean, unknown while null")
    func runningSensor() throws {
        let running = try Fixture.entities(settings: Fixture.settings()).entity("running")
        #expect(running.component == "binary_sensor")
        #expect(running.string("device_class") == "running")
        #expect(running.string("state_topic") == Fixture.topics.vibration)
        #expect(running.string("payload_on") == "ON" && running.string("payload_off") == "OFF")
        #expect(running.string("value_template")
            == "{% if value_json is not defined %}None{% else %}"
            + "{% if value_json.running is none %}None{% elif value_json.running is sameas true %}ON"
            + "{% elif value_json.running is sameas false %}OFF{% endif %}{% endif %}")
        #expect(running.string("value_template")?.contains("value_json.\(VibrationKey.running.rawValue) ") == true)
        #expect(running.number("expire_after") == 72)
    }

    @Test("The vibration entities expire after ceil(2 × (heartbeat_s + vibration_window_s) + 10) seconds")
    func vibrationExpiry() throws {
        #expect(Discovery.vibrationExpiryS(heartbeatS: 30, windowS: 1) == 72)
        #expect(Discovery.vibrationExpiryS(heartbeatS: 1, windowS: 0.5) == 13)
        #expect(Discovery.vibrationExpiryS(heartbeatS: 86_400, windowS: 10) == 172_830)
        let entities = try Fixture.entities(settings: Fixture.settings(#"{"heartbeat_s": 2.4, "min_interval_s": 0.5, "vibration_window_s": 0.6}"#))
        for id in ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running"] {
            #expect(try entities.entity(id).number("expire_after") == 16, "\(id)")
        }
        // The interval only limits how often movement publishes: a steady machine publishes every heartbeat.
        let slow = try Fixture.entities(settings: Fixture.settings(#"{"vibration_interval_s": 3600}"#))
        #expect(try slow.entity("velocity_rms").number("expire_after") == 72)
    }

    @Test("The filter and vibration class selects offer every value the settings accept")
    func vibrationSelects() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let filter = try entities.entity("filter")
        #expect(filter.component == "select")
        #expect(filter.string("name") == "Level filter")
        #expect(filter.strings("options") == GravityFilter.allCases.map(\.rawValue))
        #expect(filter.strings("options")?.contains("mean") == true)
        let machineClass = try entities.entity("vibration_class")
        #expect(machineClass.component == "select")
        #expect(machineClass.strings("options") == MachineClass.allCases.map(\.rawValue))
        #expect(machineClass.strings("options")?.first == "class_i")
        for (entity, key) in [(filter, "filter"), (machineClass, "vibration_class")] {
            #expect(entity.string("entity_category") == "config")
            #expect(entity.string("state_topic") == Fixture.topics.config)
            #expect(entity.string("value_template") == "{{ value_json.\(key) }}")
            #expect(entity.string("command_topic") == "plumb/lathe-3/config/\(key)/set")
            #expect(entity.bool("retain") == true)
            // Every option is one the agent accepts on the command topic.
            for option in entity.strings("options") ?? [] {
                #expect(throws: Never.self) { try LiveSettings().applying(key: key, rawValue: Array(option.utf8)) }
            }
        }
    }

    @Test("The vibration switch sends true or false, which the agent reads, and reads P/config's boolean")
    func vibrationSwitch() throws {
        let switchEntity = try Fixture.entities(settings: Fixture.settings()).entity("vibration")
        #expect(switchEntity.component == "switch")
        #expect(switchEntity.string("name") == "Vibration")
        #expect(switchEntity.string("command_topic") == "plumb/lathe-3/config/vibration/set")
        #expect(switchEntity.string("state_topic") == Fixture.topics.config)
        #expect(switchEntity.string("payload_on") == "true" && switchEntity.string("payload_off") == "false")
        // No state_on/state_off: they default to the payloads, which the template renders.
        #expect(switchEntity["state_on"] == nil && switchEntity["state_off"] == nil)
        #expect(switchEntity.string("value_template")
            == "{% if value_json.vibration is none %}None{% elif value_json.vibration is sameas true %}true"
            + "{% elif value_json.vibration is sameas false %}false{% endif %}")
        #expect(switchEntity.string("entity_category") == "config")
        #expect(switchEntity.bool("retain") == true)
        #expect(try LiveSettings().applying(key: "vibration", rawValue: Array("false".utf8)).isVibrationEnabled == false)
        #expect(try Fixture.settings(#"{"vibration": false}"#)
            .applying(key: "vibration", rawValue: Array("true".utf8)).isVibrationEnabled)
    }

    @Test("The running threshold is text with its unit, as P/config reports it and the agent reads it back")
    func runningThresholdText() throws {
        let threshold = try Fixture.entities(settings: Fixture.settings()).entity("running_threshold")
        #expect(threshold.component == "text")
        #expect(threshold.string("name") == "Running threshold")
        #expect(threshold.string("state_topic") == Fixture.topics.config)
        #expect(threshold.string("value_template") == "{{ value_json.running_threshold }}")
        #expect(threshold.string("command_topic") == "plumb/lathe-3/config/running_threshold/set")
        #expect(threshold.string("entity_category") == "config")
        #expect(threshold.bool("retain") == true)
        for text in ["0.5 mm/s", "0.02 g", LiveSettings().effective.runningThreshold] {
            #expect(throws: Never.self) { try LiveSettings().applying(key: "running_threshold", rawValue: Array(text.utf8)) }
        }
    }

    @Test("The bubble picture is a camera on P/bubble, whose frames are not states")
    func camera() throws {
        let bubble = try Fixture.entities(settings: Fixture.settings()).entity("bubble")
        #expect(bubble.component == "camera")
        #expect(bubble.string("topic") == Fixture.topics.prefix + "/bubble")
        #expect(bubble.string("topic") == Fixture.topics.bubble)
        // Raw bytes: Home Assistant would otherwise expect base64.
        #expect(bubble.string("image_encoding") == nil)
        let stale = Discovery.staleRemovals(prefix: "homeassistant", homeAssistantID: "lathe").map(\.topic)
        #expect(stale.contains("homeassistant/image/plumb_lathe/bubble/config"), "the old image entity is cleared")
    }
}
