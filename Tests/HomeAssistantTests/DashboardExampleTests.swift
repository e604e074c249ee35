import BrokerHarness
import Contract
import Foundation
import HomeAssistant
import Settings
import Testing

/// `plumb dashboard`'s view (`Dashboard`), and `deploy/homeassistant/dashboard.yaml`, which is its
/// output for a device named "Plumb lathe": ids as Home Assistant derives them, every entity shown.
@Suite("The dashboard plumb dashboard prints")
struct DashboardExampleTests {
    static let example = packageRoot.appendingPathComponent("deploy/homeassistant/dashboard.yaml")
    static let topics = Topics(baseTopic: "plumb", deviceID: "lathe")

    static func settings(_ json: String = #"{"name":"Plumb lathe"}"#) throws -> LiveSettings {
        try LiveSettings().applying(json: Array(json.utf8))
    }

    /// The entity ids a view names.
    static func entityIDs(_ yaml: String) throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: #"entity: ([a-z_]+\.[a-z0-9_]+)"#)
        return Set(pattern.matches(in: yaml, range: NSRange(yaml.startIndex..., in: yaml)).compactMap { match in
            Range(match.range(at: 1), in: yaml).map { String(yaml[$0]) }
        })
    }

    @Test("The shipped example is what plumb dashboard prints for a device named Plumb lathe")
    func exampleIsGenerated() throws {
        let text = try String(contentsOf: Self.example, encoding: .utf8)
        #expect(text == Dashboard.yaml(topics: Self.topics, deviceID: "lathe", settings: try Self.settings()),
                "regenerate it: plumb dashboard --device-id lathe > deploy/homeassistant/dashboard.yaml")
    }

    @Test("Every entity discovery announces is on the view, by the id its names give; with vibration off its cards go")
    func everyEntityShown() throws {
        let on = Dashboard.yaml(topics: Self.topics, deviceID: "lathe", settings: try Self.settings())
        let messages = Discovery.messages(prefix: "homeassistant", topics: Self.topics,
                                          device: DiscoveryDevice(id: "lathe", version: "0", chipModel: "ADXL345"),
                                          settings: try Self.settings())
        let announced = Set(try messages.filter { !$0.topic.contains("/device_automation/") }.map { message -> String in
            let component = String(message.topic.split(separator: "/")[1])
            let config = try JSONDecoder().decode([String: JSONValue].self, from: Data(message.payload))
            guard case .string(let name)? = config["name"] else { throw TestSetupError(description: "no name in \(message.topic)") }
            return Dashboard.entityID(component: component, deviceName: "Plumb lathe", entityName: name)
        })
        let shown = try Self.entityIDs(on)
        #expect(shown.subtracting(announced).isEmpty, "not announced: \(shown.subtracting(announced).sorted())")
        #expect(announced.subtracting(shown).isEmpty, "not on the view: \(announced.subtracting(shown).sorted())")
        #expect(shown.contains("sensor.plumb_lathe_tilt_deg") && shown.contains("camera.plumb_lathe_bubble"))

        let off = Dashboard.yaml(topics: Self.topics, deviceID: "lathe", settings: try Self.settings(#"{"name":"Plumb lathe","vibration":false}"#))
        let vibration: Set = ["sensor.plumb_lathe_velocity_rms", "binary_sensor.plumb_lathe_running", "sensor.plumb_lathe_vibration_zone",
                              "select.plumb_lathe_vibration_class", "text.plumb_lathe_running_threshold"]
        #expect(try Self.entityIDs(off).isDisjoint(with: vibration))
        #expect(try Self.entityIDs(off).contains("switch.plumb_lathe_vibration"), "the switch stays, to turn it on")
    }

    @Test("A device name that needs quoting or transliteration gives one valid title and Home Assistant's ids")
    func awkwardNames() throws {
        let yaml = Dashboard.yaml(topics: Self.topics, deviceID: "lathe", settings: try Self.settings(#"{"name":"Drehbank \"Größe\": Nº 2"}"#))
        #expect(yaml.contains(#"title: "Drehbank \"Größe\": Nº 2""#))
        #expect(yaml.contains("entity: sensor.drehbank_grosse_no_2_tilt_deg"), "\(yaml.prefix(600))")
    }

    @Test("A name in another script is flagged: Home Assistant transliterates it, the slug drops it")
    func otherScripts() {
        #expect(Dashboard.hasLettersBeyondSlug("Станок 3"))
        #expect(Dashboard.hasLettersBeyondSlug("旋盤"))
        #expect(!Dashboard.hasLettersBeyondSlug("Drehbank Größe Nº 2 ±"))
        #expect(!Dashboard.hasLettersBeyondSlug("Plumb lathe"))
    }

    @Test("The ids are those Home Assistant's own slugify gives")
    func slugMatchesHomeAssistant() async throws {
        guard FileManager.default.isExecutableFile(atPath: HAConformanceTests.checker.path) else {
            Issue.record("the conformance check is missing at \(HAConformanceTests.checker.path)")
            return
        }
        let names = ["Plumb lathe Tilt (°)", "Lathe 3 I²C errors", "Drehbank Größe Tilt (°)", "Café-Presse  Six-point calibration: start",
                     "Mill Learn drift: stop and apply", "Plumb lathe ±", "ÉTAGE Ölpumpe Temperature age", "x  Uncertainty (°)",
                     "Drehbank \"Größe\": Nº 2 Tilt (°)", "Presse № 5 ½ Slope", "Bob's lathe Tilt (°)", "Presse 1,5 t Slope",
                     "a±b Slope", "Jo’s mill, 2 Event"]
        let rendered = try await renderWithHomeAssistant(names.map { ("{{ value | slugify }}", $0) })
        for (name, text) in zip(names, rendered) {
            #expect(text == Dashboard.slug(name), "\(name)")
        }
    }
}
