import Contract
import Foundation
import Geometry
import HomeAssistant
import Settings
import Testing

@Suite("Discovery: every entity, its ids, topics and shared blocks")
struct DiscoveryTests {
    static let expected: [(component: String, objectID: String)] = [
        ("sensor", "tilt_deg"), ("sensor", "roll_deg"), ("sensor", "pitch_deg"), ("sensor", "uncertainty_deg"),
        ("sensor", "slope"),
        ("sensor", "temperature"), ("binary_sensor", "level"), ("binary_sensor", "alarm"),
        ("sensor", "velocity_rms"), ("sensor", "acceleration_rms"), ("sensor", "dominant_frequency"),
        ("sensor", "vibration_zone"), ("binary_sensor", "running"),
        ("number", "level_tolerance"), ("number", "level_hysteresis"), ("number", "alarm_threshold"),
        ("select", "angle_unit"), ("select", "mount"),
        ("select", "filter"), ("switch", "vibration"), ("select", "vibration_class"), ("text", "running_threshold"),
        ("button", "zero"), ("button", "clear_zero"), ("sensor", "last_result"), ("event", "event"),
        ("button", "calibrate_reversal_first"), ("button", "calibrate_reversal_second"),
        ("button", "calibrate_six_point_start"), ("button", "calibrate_six_point_next"),
        ("button", "calibrate_six_point_cancel"), ("button", "selftest"),
        ("button", "learn_drift_start"), ("button", "learn_drift_stop"), ("button", "learn_drift_cancel"),
        ("sensor", "calibration"),
        ("sensor", "sample_rate"), ("sensor", "i2c_errors"), ("sensor", "reconnects"), ("sensor", "inbound_stalls"),
        ("sensor", "uptime"), ("sensor", "dropped_samples"), ("sensor", "temperature_source"), ("sensor", "temperature_age"),
        ("camera", "bubble"),
    ] + EventType.allCases.map { ("device_automation", $0.rawValue) }

    /// The object ids of the entities (not the device triggers).
    static var entityCount: Int { expected.filter { $0.component != "device_automation" }.count }

    @Test("The entities, then a device trigger per event, in a stable order on <prefix>/<component>/plumb_<id>/<object>/config")
    func entitiesAndTopics() throws {
        let messages = Fixture.messages(settings: try Fixture.settings())
        #expect(messages.map(\.topic) == Self.expected.map { "homeassistant/\($0.component)/plumb_lathe-3/\($0.objectID)/config" })
        #expect(Fixture.messages(settings: try Fixture.settings()) == messages)
    }

    /// The entities fed by `P/vibration`.
    static let vibrationReadings = ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running"]

    @Test("With vibration off every entity is still announced, the same bytes: the readings go unavailable through P/config")
    func vibrationOff() throws {
        let on = Fixture.messages(settings: try Fixture.settings())
        let off = Fixture.messages(settings: try Fixture.settings(#"{"vibration": false}"#))
        #expect(off == on)
        for entity in try Fixture.entities(settings: Fixture.settings()) where Self.vibrationReadings.contains(entity.objectID) {
            #expect(entity["availability_topic"] == nil, "\(entity.objectID): both forms of availability at once")
            #expect(entity.string("availability_mode") == "all")
            guard case .array(let list)? = entity["availability"] else {
                Issue.record("\(entity.objectID) has no availability list")
                continue
            }
            #expect(list == [
                .object(["topic": .string("plumb/lathe-3/status"), "payload_available": .string("online"),
                         "payload_not_available": .string("offline")]),
                .object(["topic": .string("plumb/lathe-3/config"),
                         "value_template": .string("{{ 'online' if value_json.vibration is sameas true else 'offline' }}"),
                         "payload_available": .string("online"), "payload_not_available": .string("offline")]),
            ])
        }
    }

    /// The entities that need a thermometer.
    static let thermometerReadings = ["temperature", "temperature_age"]

    @Test("The temperature and its age are unavailable without a thermometer: P/status and P/health's temperature_source, both")
    func thermometerAvailability() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let readings = entities.filter { Self.thermometerReadings.contains($0.objectID) }
        #expect(readings.map(\.objectID).sorted() == Self.thermometerReadings)
        for entity in readings {
            #expect(entity["availability_topic"] == nil, "\(entity.objectID): both forms of availability at once")
            #expect(entity.string("availability_mode") == "all")
            #expect(entity["availability"] == .array([
                .object(["topic": .string("plumb/lathe-3/status"), "payload_available": .string("online"),
                         "payload_not_available": .string("offline")]),
                .object(["topic": .string("plumb/lathe-3/health"),
                         "value_template": .string("{{ 'offline' if value_json.temperature_source == 'none' else 'online' }}"),
                         "payload_available": .string("online"), "payload_not_available": .string("offline")]),
            ]), "\(entity.objectID)")
        }
    }

    @Test("Unique ids are plumb_<id>_<object>, distinct, and no setting changes one")
    func uniqueIDs() throws {
        func ids(_ settings: LiveSettings) throws -> [String] {
            try Fixture.entities(settings: settings).map { try #require($0.string("unique_id")) }
        }
        let base = try ids(Fixture.settings())
        #expect(base == Self.expected.filter { $0.component != "device_automation" }.map { "plumb_lathe-3_\($0.objectID)" })
        #expect(Set(base).count == base.count)
        for unit in AngleUnit.allCases {
            for mount in ["flat", "upright", "y,x,-z"] {
                #expect(try ids(Fixture.settings(unit: unit, mount: mount, name: "Other name")) == base)
            }
        }
        #expect(try ids(Fixture.settings(#"{"heartbeat_s":600}"#)) == base)
        #expect(try ids(Fixture.settings(#"{"vibration":false,"vibration_class":"class_iv","running_threshold":"0.1 g","filter":"mean"}"#))
            == base)
    }

    @Test("The angle sensors are in degrees in every unit, named so Home Assistant's ids are <device>_tilt_deg; the slope follows the unit",
          arguments: AngleUnit.allCases)
    func anglesInDegrees(unit: AngleUnit) throws {
        let entities = try Fixture.entities(settings: Fixture.settings(unit: unit)).filter { $0.component == "sensor" }
        for (key, name) in [("tilt", "Tilt"), ("roll", "Roll"), ("pitch", "Pitch"), ("uncertainty", "Uncertainty")] {
            let entity = try #require(entities.first { $0.objectID == "\(key)_deg" })
            #expect(entity.string("unique_id") == "plumb_lathe-3_\(key)_deg")
            #expect(Discovery.angleObjectID(key) == "\(key)_deg")
            // Home Assistant slugifies "<device> Tilt (°)" to <device>_tilt_deg: the id earlier versions had.
            #expect(entity.string("name") == "\(name) (°)")
            #expect(entity.string("value_template") == "{{ value_json.\(key)_deg }}")
            #expect(entity.string("unit_of_measurement") == "°")
            #expect(entity.number("suggested_display_precision") == 3)
            #expect(entity.string("state_class") == "measurement")
        }
        let slope = try #require(entities.first { $0.objectID == "slope" })
        #expect(slope.string("name") == "Slope")
        #expect(slope.string("value_template") == "{{ value_json.tilt }}")
        #expect(slope.string("unit_of_measurement") == unit.symbol)
        // Statistics refuse a unit change, and the registry keeps the first precision: neither.
        #expect(slope["state_class"] == nil && slope["suggested_display_precision"] == nil)
        #expect(!entities.contains { Discovery.legacyAngleObjectIDs.contains($0.objectID) })
    }

    @Test("Every entity has availability on P/status (the vibration readings with P/config too, the temperature with P/health), the device and origin blocks, unabbreviated")
    func sharedBlocks() throws {
        let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0", chipModel: "ADXL345")
        for entity in try Fixture.entities(settings: Fixture.settings(unit: .deg, name: "Lathe 3"), device: device) {
            if !Self.vibrationReadings.contains(entity.objectID) && !Self.thermometerReadings.contains(entity.objectID) {
                #expect(entity.string("availability_topic") == "plumb/lathe-3/status", "\(entity.topic)")
                #expect(entity.string("payload_available") == "online")
                #expect(entity.string("payload_not_available") == "offline")
            }
            let block = try #require(entity.object("device"))
            #expect(block == [
                "identifiers": .array([.string("plumb_lathe-3")]),
                "name": .string("Lathe 3"),
                "model": .string("ADXL345 level"),
                "manufacturer": .string("Plumb"),
                "sw_version": .string("1.4.0"),
            ])
            #expect(entity.object("origin") == ["name": .string("Plumb"), "sw_version": .string("1.4.0")])
            #expect(entity.string("name")?.isEmpty == false)
            // Home Assistant derives entity ids itself; object_id is deprecated.
            #expect(entity["object_id"] == nil && entity["default_entity_id"] == nil)
            // Full key names: none of Home Assistant's abbreviations of the keys these payloads use.
            for short in ["avty_t", "pl_avail", "pl_not_avail", "dev", "o", "uniq_id", "stat_t", "cmd_t", "val_tpl", "~"] {
                #expect(entity[short] == nil, "\(entity.topic) uses the abbreviation \(short)")
            }
        }
    }

    @Test("A device trigger per event type: its wire name as payload, a fixed phrase, only the keys a trigger takes")
    func deviceTriggers() throws {
        let triggers = try Fixture.triggers(settings: Fixture.settings(unit: .deg, name: "Lathe 3"))
        #expect(triggers.map(\.objectID) == EventType.allCases.map(\.rawValue))
        var phrases = Set<String>()
        for (trigger, event) in zip(triggers, EventType.allCases) {
            #expect(Set(trigger.config.keys) == ["automation_type", "topic", "type", "subtype", "payload", "value_template",
                                                 "qos", "device"], "\(trigger.objectID)")
            #expect(trigger.string("automation_type") == "trigger")
            #expect(trigger.string("topic") == "plumb/lathe-3/event")
            #expect(trigger.string("payload") == event.rawValue)
            #expect(trigger.string("value_template") == "{{ value_json.type }}")
            #expect(trigger.number("qos") == 1)
            #expect(trigger.object("device")?["identifiers"] == .array([.string("plumb_lathe-3")]))
            let phrase = Discovery.triggerPhrase(event)
            #expect(trigger.string("type") == phrase.type && trigger.string("subtype") == phrase.subtype)
            // Home Assistant keys a trigger by device, type and subtype: each pair once.
            #expect(phrases.insert(phrase.subtype + "|" + phrase.type).inserted, "\(event) repeats a phrase")
        }
        #expect(Discovery.triggerPhrase(.runningStopped) == ("Machine", "stopped running"))
        #expect(Discovery.triggerPhrase(.levelLeft) == ("Machine", "left level"))
        #expect(Discovery.triggerPhrase(.alarmRaised) == ("Alarm", "raised"))
        // The device's name is in no phrase: renaming it keeps the automations made with them.
        let renamed = try Fixture.triggers(settings: Fixture.settings(unit: .deg, name: "Mill"))
        #expect(zip(triggers, renamed).allSatisfy { $0.string("type") == $1.string("type") && $0.string("subtype") == $1.string("subtype") })
    }

    @Test("The Home Assistant reference's device trigger table is the phrases the triggers carry")
    func readmeTriggerTable() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/reference/home-assistant.md"), encoding: .utf8)
        for event in EventType.allCases {
            let phrase = Discovery.triggerPhrase(event)
            #expect(readme.contains("| `\(event.rawValue)` | \(phrase.subtype) | \(phrase.type) |"), "\(event.rawValue) is not in the table as it is")
        }
    }

    @Test("The event entity takes every event type from P/event; last result and calibration read what Plumb knows")
    func eventLastResultCalibration() throws {
        let entities = try Fixture.entities(settings: Fixture.settings())
        let event = try #require(entities.first { $0.component == "event" })
        #expect(event.strings("event_types") == EventType.allCases.map(\.rawValue))
        #expect(event.string("state_topic") == "plumb/lathe-3/event")
        #expect(event.string("value_template") == "{{ dict(value_json, event_type=value_json.type) | tojson }}")
        let result = try #require(entities.first { $0.objectID == "last_result" })
        #expect(result.string("state_topic") == "plumb/lathe-3/result" && result.string("json_attributes_topic") == "plumb/lathe-3/result")
        #expect(result.string("value_template") == "{{ value_json.message[:255] }}")
        let calibration = try #require(entities.first { $0.objectID == "calibration" })
        #expect(calibration["device_class"] == nil, "a timestamp can only say Unknown when there is none")
        #expect(calibration.string("value_template") == "{{ value_json.method if value_json.method is string else 'none' }}")
    }

    @Test("configuration_url is in the device block only when given, and only when Home Assistant accepts it")
    func configurationURL() throws {
        let settings = try Fixture.settings()
        func urls(_ url: String?) throws -> Set<String?> {
            let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0", configurationURL: url, chipModel: "ADXL345")
            return Set(try Fixture.messages(settings: settings, device: device).map(Fixture.decode).map { entity -> String? in
                guard case .string(let value)? = entity.object("device")?["configuration_url"] else { return nil }
                return value
            })
        }
        #expect(try urls(nil) == [nil])
        #expect(try urls("http://lathe-3.local:8080/") == ["http://lathe-3.local:8080/"])
        #expect(try urls("https://plumb.example/devices/lathe-3") == ["https://plumb.example/devices/lathe-3"])
        #expect(try urls("homeassistant://config/mqtt") == ["homeassistant://config/mqtt"])
        // Home Assistant refuses the whole message (every entity) over these.
        for refused in ["", "lathe-3.local", "ftp://lathe-3.local/", "http://", "http://a b/"] {
            #expect(try urls(refused) == [nil], "\(refused)")
        }
    }

    @Test("Payloads are compact and deterministic, so the agent can publish only what changed")
    func compactDeterministic() throws {
        let settings = try Fixture.settings(unit: .mmPerM, mount: "x,-z,y")
        let first = Fixture.messages(settings: settings)
        #expect(first == Fixture.messages(settings: settings))
        for message in first {
            let text = String(decoding: message.payload, as: UTF8.self)
            #expect(!text.contains("\n") && !text.contains("\": ") && !text.contains(", \""), "\(text)")
            // Sorted keys: an entity's first key is its availability, a trigger's its automation type.
            #expect(text.hasPrefix(#"{"availability"#) || text.hasPrefix(#"{"automation_type":"trigger""#), "\(text)")
        }
    }

    @Test("A setting change changes exactly the payloads that depend on it")
    func changesAreLocal() throws {
        func changed(_ a: LiveSettings, _ b: LiveSettings) -> [String] {
            zip(Fixture.messages(settings: a), Fixture.messages(settings: b))
                .filter { $0.0.payload != $0.1.payload }
                .map { String($0.0.topic.split(separator: "/")[3]) }
        }
        let base = try Fixture.settings()
        #expect(changed(base, try Fixture.settings(#"{"angle_unit":"in_per_ft"}"#)) == ["slope"])
        #expect(changed(base, try Fixture.settings(#"{"mount":"upright"}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"mount":"y,x,-z"}"#)) == ["mount"])
        #expect(changed(base, try Fixture.settings(#"{"heartbeat_s":120}"#))
            == ["tilt_deg", "roll_deg", "pitch_deg", "uncertainty_deg", "slope", "temperature", "alarm"] + Self.vibrationReadings)
        #expect(changed(base, try Fixture.settings(#"{"level_tolerance":0.3}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"vibration_window_s":5}"#)) == Self.vibrationReadings)
        for unchanged in [#"{"vibration_class":"class_iii"}"#, #"{"running_threshold":"0.05 g"}"#, #"{"vibration":false}"#,
                          #"{"vibration_interval_s":60}"#, #"{"running_stop_s":600}"#, #"{"filter":"mean"}"#] {
            #expect(changed(base, try Fixture.settings(unchanged)) == [], "\(unchanged)")
        }
        // The device block is in every entity and trigger.
        #expect(changed(base, try Fixture.settings(#"{"name":"Mill"}"#)).count == Self.expected.count)
    }

    @Test("The topic filter matches every discovery topic of the device and nothing of another")
    func topicFilter() throws {
        let filter = Discovery.topicFilter(prefix: "homeassistant", homeAssistantID: "lathe-3")
        #expect(filter == "homeassistant/+/plumb_lathe-3/+/config")
        for unit in AngleUnit.allCases {
            for message in Fixture.messages(settings: try Fixture.settings(unit: unit, mount: "y,x,-z")) {
                #expect(topic(message.topic, matches: filter), "\(message.topic)")
            }
        }
        let others = Discovery.messages(prefix: "homeassistant", topics: Topics(baseTopic: "plumb", deviceID: "lathe-30"),
                                        device: DiscoveryDevice(id: "lathe-30", version: "1", chipModel: "ADXL345"), settings: try Fixture.settings())
        #expect(others.allSatisfy { !topic($0.topic, matches: filter) })
        let custom = Discovery.topicFilter(prefix: "ha/discovery", homeAssistantID: "a")
        #expect(topic("ha/discovery/sensor/plumb_a/tilt_deg/config", matches: custom))
        #expect(!topic("homeassistant/sensor/plumb_a/tilt_deg/config", matches: custom))
        for removal in Discovery.removals(prefix: "homeassistant", homeAssistantID: "lathe-3") {
            #expect(topic(removal.topic, matches: filter), "\(removal.topic)")
        }
    }

    /// What older versions published and this one never does: the unit-less angle sensors, and
    /// the angle sensors of every unit but degrees.
    static let legacy: Set<String> = Set(["tilt", "roll", "pitch"] + AngleUnit.allCases.filter { $0 != .deg }.flatMap { unit in
        ["tilt", "roll", "pitch", "uncertainty"].map { "\($0)_\(unit.rawValue)" }
    })

    @Test("Removals are an empty message on every discovery topic, the triggers too, and those of older versions")
    func removals() throws {
        let removals = Discovery.removals(prefix: "homeassistant", homeAssistantID: "lathe-3")
        #expect(removals.allSatisfy { $0.payload.isEmpty })
        var expected = Set(Fixture.messages(settings: try Fixture.settings()).map(\.topic))
        expected.formUnion(Self.legacy.map { "homeassistant/sensor/plumb_lathe-3/\($0)/config" })
        expected.insert("homeassistant/image/plumb_lathe-3/bubble/config")
        #expect(Set(removals.map(\.topic)) == expected)
        #expect(removals.count == expected.count, "each topic once")
        #expect(expected.count == Self.expected.count + 16)
    }

    @Test("Stale removals clear exactly what older versions published, in every setting", arguments: AngleUnit.allCases)
    func staleRemovals(unit: AngleUnit) throws {
        let stale = Discovery.staleRemovals(prefix: "homeassistant", homeAssistantID: "lathe-3")
        #expect(stale.allSatisfy { $0.payload.isEmpty })
        let angles = stale.filter { $0.topic.hasPrefix("homeassistant/sensor/plumb_lathe-3/") }
        #expect(Set(angles.map { String($0.topic.split(separator: "/")[3]) }) == Self.legacy)
        #expect(angles.count == 15)
        // The picture was an image entity, whose every frame was a logbook line and a recorder row.
        #expect(stale.map(\.topic).filter { !$0.hasPrefix("homeassistant/sensor/") } == ["homeassistant/image/plumb_lathe-3/bubble/config"])
        for settings in [try Fixture.settings(unit: unit), try Fixture.settings(#"{"vibration": false}"#)] {
            let published = Set(Fixture.messages(settings: settings).map(\.topic))
            #expect(stale.allSatisfy { !published.contains($0.topic) })
        }
    }
}

/// Sites: `base_topic: plumb/hall-2` puts the site in front of the device id in discovery, so the
/// same device id at two sites gives two devices in one Home Assistant.
@Suite("Discovery across sites")
struct DiscoverySiteTests {
    @Test(arguments: [
        ("plumb", "press-1", "press-1"),
        ("plumb/hall-2", "press-1", "hall-2_press-1"),
        ("plumb/Hall 2/line_1", "press-1", "hall-2-line-1_press-1"),
        ("factory", "press-1", "factory_press-1"),
        ("factory/hall-2", "p", "factory-hall-2_p"),
    ])
    func theSiteGoesInFrontOfTheDeviceID(baseTopic: String, deviceID: String, expected: String) {
        #expect(DiscoveryDevice.homeAssistantID(deviceID: deviceID, baseTopic: baseTopic) == expected)
    }

    @Test func twoSitesWithTheSameDeviceIDShareNoTopicOrUniqueID() throws {
        func messages(_ base: String) -> [DiscoveryMessage] {
            let topics = Topics(baseTopic: base, deviceID: "press-1")
            let device = DiscoveryDevice(id: DiscoveryDevice.homeAssistantID(deviceID: "press-1", baseTopic: base), version: "t", chipModel: "ADXL345")
            return Discovery.messages(prefix: "homeassistant", topics: topics, device: device, settings: LiveSettings())
        }
        let one = messages("plumb/hall-1"), two = messages("plumb/hall-2")
        #expect(Set(one.map(\.topic)).isDisjoint(with: two.map(\.topic)))
        func uniqueIDs(_ list: [DiscoveryMessage]) throws -> Set<String> {
            // The device triggers have none: Home Assistant keys them by device, type and subtype.
            Set(try list.filter { !$0.topic.contains("/device_automation/") }.map { message in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
                return try #require(object["unique_id"] as? String)
            })
        }
        #expect(try uniqueIDs(one).isDisjoint(with: uniqueIDs(two)))
        #expect(one.allSatisfy { $0.topic.contains("/plumb_hall-1_press-1/") })
        // Each device's state topic is its own site's.
        let state = try #require(try JSONSerialization.jsonObject(with: Data(two[0].payload)) as? [String: Any])
        #expect((state["availability"] as? [[String: Any]])?.first?["topic"] as? String == "plumb/hall-2/press-1/status"
                || (state["availability_topic"] as? String) == "plumb/hall-2/press-1/status", "\(state)")
    }
}
