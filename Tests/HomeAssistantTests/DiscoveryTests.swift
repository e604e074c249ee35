import Configuration
import HomeAssistant
import PlumbDomain
import Testing

@Suite("Discovery: every entity, its ids, topics and shared blocks")
struct DiscoveryTests {
    static let expected: [(component: String, objectID: String)] = [
        ("sensor", "tilt"), ("sensor", "roll"), ("sensor", "pitch"),
        ("binary_sensor", "level"), ("binary_sensor", "alarm"),
        ("number", "level_tolerance"), ("number", "level_hysteresis"), ("number", "alarm_threshold"),
        ("select", "angle_unit"), ("select", "mount"),
        ("button", "zero"), ("button", "clear_zero"),
        ("sensor", "sample_rate"), ("sensor", "i2c_errors"), ("sensor", "reconnects"), ("sensor", "uptime"),
        ("sensor", "dropped_samples"),
        ("image", "bubble"),
    ]

    @Test("The entities come in a stable order on <prefix>/<component>/plumb_<id>/<object>/config")
    func entitiesAndTopics() throws {
        let messages = Fixture.messages(settings: try Fixture.settings())
        #expect(messages.map(\.topic) == Self.expected.map { "homeassistant/\($0.component)/plumb_lathe-3/\($0.objectID)/config" })
        #expect(Fixture.messages(settings: try Fixture.settings()) == messages)
    }

    @Test("Unique ids are plumb_<id>_<object>, distinct, and the same whatever the settings")
    func uniqueIDs() throws {
        func ids(_ settings: LiveSettings) throws -> [String] {
            try Fixture.entities(settings: settings).map { try #require($0.string("unique_id")) }
        }
        let base = try ids(Fixture.settings())
        #expect(base == Self.expected.map { "plumb_lathe-3_\($0.objectID)" })
        #expect(Set(base).count == base.count)
        for unit in AngleUnit.allCases {
            for mount in ["flat", "upright", "y,x,-z"] {
                #expect(try ids(Fixture.settings(unit: unit, mount: mount, name: "Other name")) == base)
            }
        }
        #expect(try ids(Fixture.settings(#"{"heartbeat_s":600}"#)) == base)
    }

    @Test("Every entity has availability on P/status, the device block and the origin block, unabbreviated")
    func sharedBlocks() throws {
        let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0")
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
            let device = DiscoveryDevice(id: "lathe-3", version: "1.4.0", configurationURL: url)
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
        #expect(changed(base, try Fixture.settings(#"{"angle_unit":"in_per_ft"}"#)) == ["tilt", "roll", "pitch"])
        #expect(changed(base, try Fixture.settings(#"{"mount":"upright"}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"mount":"y,x,-z"}"#)) == ["mount"])
        #expect(changed(base, try Fixture.settings(#"{"heartbeat_s":120}"#)) == ["tilt", "roll", "pitch", "alarm"])
        #expect(changed(base, try Fixture.settings(#"{"level_tolerance":0.3}"#)) == [])
        #expect(changed(base, try Fixture.settings(#"{"name":"Mill"}"#)).count == Self.expected.count)
    }

    @Test("The topic filter matches every discovery topic of the device and nothing of another")
    func topicFilter() throws {
        let filter = Discovery.topicFilter(prefix: "homeassistant", deviceID: "lathe-3")
        #expect(filter == "homeassistant/+/plumb_lathe-3/+/config")
        for unit in AngleUnit.allCases {
            for message in Fixture.messages(settings: try Fixture.settings(unit: unit, mount: "y,x,-z")) {
                #expect(topic(message.topic, matches: filter), "\(message.topic)")
            }
        }
        let others = Discovery.messages(prefix: "homeassistant", topics: Topics(baseTopic: "plumb", deviceID: "lathe-30"),
                                        device: DiscoveryDevice(id: "lathe-30", version: "1"), settings: try Fixture.settings())
        #expect(others.allSatisfy { !topic($0.topic, matches: filter) })
        let custom = Discovery.topicFilter(prefix: "ha/discovery", deviceID: "a")
        #expect(topic("ha/discovery/sensor/plumb_a/tilt/config", matches: custom))
        #expect(!topic("homeassistant/sensor/plumb_a/tilt/config", matches: custom))
    }

    @Test("Removals are an empty message on every discovery topic")
    func removals() throws {
        let removals = Discovery.removals(prefix: "homeassistant", deviceID: "lathe-3")
        #expect(removals.map(\.topic) == Fixture.messages(settings: try Fixture.settings()).map(\.topic))
        #expect(removals.allSatisfy { $0.payload.isEmpty })
    }
}
