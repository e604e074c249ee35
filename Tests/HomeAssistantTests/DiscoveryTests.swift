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
        ("sensor", "temperature"), ("binary_sensor", "level"), ("binary_sensor", "alarm"),
        ("sensor", "velocity_rms"), ("sensor", "acceleration_rms"), ("sensor", "dominant_frequency"),
        ("sensor", "vibration_zone"), ("binary_sensor", "running"),
        ("number", "level_tolerance"), ("number", "level_hysteresis"), ("number", "alarm_threshold"),
        ("select", "angle_unit"), ("select", "mount"),
        ("select", "filter"), ("switch", "vibration"), ("select", "vibration_class"), ("text", "running_threshold"),
        ("button", "zero"), ("button", "clear_zero"),
        ("button", "calibrate_reversal_first"), ("button", "calibrate_reversal_second"),
        ("button", "calibrate_six_point_start"), ("button", "calibrate_six_point_next"),
        ("button", "calibrate_six_point_cancel"), ("button", "selftest"),
        ("button", "learn_drift_start"), ("button", "learn_drift_stop"), ("button", "learn_drift_cancel"),
        ("sensor", "calibration"),
        ("sensor", "sample_rate"), ("sensor", "i2c_errors"), ("sensor", "reconnects"), ("sensor", "inbound_stalls"),
        ("sensor", "uptime"), ("sensor", "dropped_samples"), ("sensor", "temperature_source"), ("sensor", "temperature_age"),
        ("image", "bubble"),
    ]

    @Test("The entities come in a stable order on <prefix>/<component>/plumb_<id>/<object>/config")
    func entitiesAndTopics() throws {
        let messages = Fixture.messages(settings: try Fixture.settings())
        #expect(messages.map(\.topic) == Self.expected.map { "homeassistant/\($0.component)/plumb_lathe-3/\($0.objectID)/config" })
        #expect(Fixture.messages(settings: try Fixture.settings()) == messages)
    }

    /// The entities that exist only while `vibration` is on.
    static let vibrationOnly = ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running",
                                "vibration_class", "running_threshold"]

    @Test("With vibration off, the vibration readings, class and threshold are not announced; the rest is unchanged")
    func vibrationOff() throws {
        let on = Fixture.messages(settings: try Fixture.settings())
        let off = Fixture.messages(settings: try Fixture.settings(#"{"vibration": false}"#))
        let onIDs = on.map { String($0.topic.split(separator: "/")[3]) }
        #expect(off.map { String($0.topic.split(separator: "/")[3]) } == onIDs.filter { !Self.vibrationOnly.contains($0) })
        #expect(Set(onIDs).isSuperset(of: Self.vibrationOnly))
        // Everything still announced is the same bytes, but the switch, which now reads off.
        let onByTopic = Dictionary(uniqueKeysWithValues: on.map { ($0.topic, $0.payload) })
        #expect(off.filter { onByTopic[$0.topic] != $0.payload }.isEmpty, "the switch's config doesn't hold its state")
    }

    @Test("Unique ids are plumb_<id>_<object>, distinct, and change with nothing but the angle unit")
    func uniqueIDs() throws {
        func ids(_ settings: LiveSettings) throws -> [String] {
            try Fixture.entities(settings: settings).map { try #require($0.string("unique_id")) }
        }
        let base = try ids(Fixture.settings())
        #expect(base == Self.expected.map { "plumb_lathe-3_\($0.objectID)" })
        #expect(Set(base).count == base.count)
        for unit in AngleUnit.allCases {
            // Each unit is an entity of its own: the angle sensors' ids carry it, nothing else's does.
            let inUnit = base.map { $0.replacingOccurrences(of: "_deg", with: "_" + unit.rawValue) }
            #expect(inUnit.filter { $0.hasSuffix("_" + unit.rawValue) }.count == 4)
            for mount in ["flat", "upright", "y,x,-z"] {
                #expect(try ids(Fixture.settings(unit: unit, mount: mount, name: "Other name")) == inUnit)
            }
        }
        #expect(try ids(Fixture.settings(#"{"heartbeat_s":600}"#)) == base)
        #expect(try ids(Fixture.settings(#"{"vibration_class":"class_iv","running_threshold":"0.1 g","filter":"mean"}"#))
            == base)
    }

    @Test("An angle sensor's object id and name carry its unit, so Home Assistant's entity id does too",
          arguments: AngleUnit.allCases)
    func angleIDsPerUnit(unit: AngleUnit) throws {
        let entities = try Fixture.entities(settings: Fixture.settings(unit: unit)).filter { $0.component == "sensor" }
        let words = unit.rawValue.replacingOccurrences(of: "_", with: " ")
        for (key, name) in [("tilt", "Tilt"), ("roll", "Roll"), ("pitch", "Pitch")] {
            let entity = try #require(entities.first { $0.objectID == "\(key)_\(unit.rawValue)" })
            #expect(entity.topic == "homeassistant/sensor/plumb_lathe-3/\(key)_\(unit.rawValue)/config")
            #expect(entity.string("unique_id") == "plumb_lathe-3_\(key)_\(unit.rawValue)")
            #expect(Discovery.angleObjectID(key, unit: unit) == "\(key)_\(unit.rawValue)")
            // Home Assistant slugifies "<device> Tilt (mm per m)" to <device>_tilt_mm_per_m.
            #expect(entity.string("name") == "\(name) (\(words))")
        }
        #expect(!entities.contains { Discovery.legacyAngleObjectIDs.contains($0.objectID) })
    }

    @Test("Every entity has availability on P/status, the device block and the origin block, unabbreviated")
    func sharedBlocks() throws {
        let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0", chipModel: "ADXL345")
        for entity in try Fixture.entities(settings: Fixture.settings(unit: .deg, name: "Lathe 3"), device: device) {
            #expect(entity.string("availability_topic") == "plumb/lathe-3/status", "\(entity.topic)")
            #expect(entity.string("payload_available") == "online")
            #expect(entity.string("payload_not_available") == "offline")
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

    @Test("configuration_url is in the device block only when given, and only when Home Assistant accepts it")
    func configurationURL() throws {
        let settings = try Fixture.settings()
        func urls(_ url: String?) throws -> Set<String?> {
            let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0", configurationURL: url, chipModel: "ADXL345")
            return Set(try Fixture.entities(settings: settings, device: device).map { entity -> String? in
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
            // Sorted keys: availability_topic is the first key of every payload.
            #expect(text.hasPrefix(#"{"availability_topic":"#), "\(text)")
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
        #expect(changed(base, try Fixture.settings(#"{"angle_unit":"in_per_ft"}"#))
            == ["tilt_deg", "roll_deg", "pitch_deg", "uncertainty_deg"])
        #expect(changed(base, try Fixture.settings(#"{"mount":"upright"}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"mount":"y,x,-z"}"#)) == ["mount"])
        let vibrationFed = ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running"]
        #expect(changed(base, try Fixture.settings(#"{"heartbeat_s":120}"#))
            == ["tilt_deg", "roll_deg", "pitch_deg", "uncertainty_deg", "temperature", "alarm"] + vibrationFed)
        #expect(changed(base, try Fixture.settings(#"{"level_tolerance":0.3}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"vibration_window_s":5}"#)) == vibrationFed)
        for unchanged in [#"{"vibration_class":"class_iii"}"#, #"{"running_threshold":"0.05 g"}"#,
                          #"{"vibration_interval_s":60}"#, #"{"running_stop_s":600}"#, #"{"filter":"mean"}"#] {
            #expect(changed(base, try Fixture.settings(unchanged)) == [], "\(unchanged)")
        }
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

    @Test("Removals are an empty message on every discovery topic, in every unit and of older versions")
    func removals() throws {
        let removals = Discovery.removals(prefix: "homeassistant", homeAssistantID: "lathe-3")
        #expect(removals.allSatisfy { $0.payload.isEmpty })
        var expected = Set<String>()
        for unit in AngleUnit.allCases {
            expected.formUnion(Fixture.messages(settings: try Fixture.settings(unit: unit, mount: "y,x,-z")).map(\.topic))
        }
        expected.formUnion(["tilt", "roll", "pitch"].map { "homeassistant/sensor/plumb_lathe-3/\($0)/config" })
        #expect(Set(removals.map(\.topic)) == expected)
        #expect(removals.count == expected.count, "each topic once")
        // Every entity of the defaults (vibration on), the four angle sensors of the three other units, the legacy three.
        #expect(expected.count == Self.expected.count + 4 * 3 + 3)
        // With vibration off by the time the device is forgotten, its vibration entities go too.
        #expect(Self.vibrationOnly.allSatisfy { id in removals.contains { $0.topic.hasSuffix("/\(id)/config") } })
    }

    @Test("Stale removals clear every angle sensor but the current unit's, and nothing the settings publish",
          arguments: AngleUnit.allCases)
    func staleRemovals(unit: AngleUnit) throws {
        let settings = try Fixture.settings(unit: unit)
        let stale = Discovery.staleRemovals(prefix: "homeassistant", homeAssistantID: "lathe-3", settings: settings)
        #expect(stale.allSatisfy { $0.payload.isEmpty })
        let objects = Set(stale.map { String($0.topic.split(separator: "/")[3]) })
        var expected: Set<String> = ["tilt", "roll", "pitch"]
        for other in AngleUnit.allCases where other != unit {
            expected.formUnion(["tilt", "roll", "pitch", "uncertainty"].map { "\($0)_\(other.rawValue)" })
        }
        #expect(objects == expected)
        let published = Set(Fixture.messages(settings: settings).map(\.topic))
        #expect(stale.allSatisfy { !published.contains($0.topic) && $0.topic.hasPrefix("homeassistant/sensor/") })
        #expect(stale.count == 15)
    }

    @Test("With vibration off, stale removals also clear the vibration entities a run with it on left")
    func staleRemovalsWithVibrationOff() throws {
        let off = try Fixture.settings(#"{"vibration": false}"#)
        let stale = Discovery.staleRemovals(prefix: "homeassistant", homeAssistantID: "lathe-3", settings: off)
        let objects = Set(stale.map { String($0.topic.split(separator: "/")[3]) })
        #expect(objects.isSuperset(of: Self.vibrationOnly))
        #expect(stale.count == 15 + Self.vibrationOnly.count)
        #expect(!objects.contains("vibration"), "the switch stays, to turn vibration on again")
        let published = Set(Fixture.messages(settings: off).map(\.topic))
        #expect(stale.allSatisfy { !published.contains($0.topic) })
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
            Set(try list.map { message in
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
