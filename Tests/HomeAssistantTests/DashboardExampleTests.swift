import Contract
import Foundation
import HomeAssistant
import Settings
import Testing

/// `deploy/homeassistant/dashboard.yaml` names entities by the ids Home Assistant derives from
/// discovery; a renamed entity would leave the example pointing at nothing.
@Suite("The example dashboard")
struct DashboardExampleTests {
    static let dashboard = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/homeassistant/dashboard.yaml")

    @Test("Every entity in the example is one discovery announces, and every entity is shown")
    func entitiesMatchDiscovery() throws {
        let text = try String(contentsOf: Self.dashboard, encoding: .utf8)
        // HA's entity id: <component>.<device name>_<entity name>, slugified. The example's device
        // is named "Plumb lathe".
        let pattern = try NSRegularExpression(pattern: #"entity: ([a-z_]+)\.plumb_lathe_([a-z0-9_]+)"#)
        let range = NSRange(text.startIndex..., in: text)
        let used = Set(pattern.matches(in: text, range: range).compactMap { match -> String? in
            guard let component = Range(match.range(at: 1), in: text), let name = Range(match.range(at: 2), in: text)
            else { return nil }
            return "\(text[component]).\(text[name])"
        })
        let messages = Discovery.messages(prefix: "homeassistant", topics: Topics(baseTopic: "plumb", deviceID: "lathe"),
                                          device: DiscoveryDevice(id: "lathe", version: "0", chipModel: "ADXL345"), settings: LiveSettings())
        // The device triggers are no entities: the automation editor shows them, not a dashboard.
        let entityMessages = messages.filter { !$0.topic.hasPrefix("homeassistant/device_automation/") }
        let announced = Set(try entityMessages.map { message -> String in
            let parts = message.topic.split(separator: "/")
            let config = try JSONDecoder().decode([String: JSONValue].self, from: Data(message.payload))
            guard case .string(let name)? = config["name"] else { throw TestSetupError(description: "no name") }
            // As Home Assistant's slugify: "Tilt (°)" is tilt_deg (its unidecode writes ° as deg),
            // one `_` per run of other characters.
            let words = name.lowercased().replacingOccurrences(of: "²", with: "2").replacingOccurrences(of: "°", with: "deg")
                .split { !($0.isLetter || $0.isNumber) }
            return "\(parts[1]).\(words.joined(separator: "_"))"
        })
        #expect(!used.isEmpty)
        #expect(used.subtracting(announced).isEmpty, "not announced: \(used.subtracting(announced).sorted())")
        #expect(announced.subtracting(used).isEmpty, "not on the dashboard: \(announced.subtracting(used).sorted())")
    }
}
