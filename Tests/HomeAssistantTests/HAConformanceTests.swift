import BrokerHarness
import Foundation
import Geometry
import HomeAssistant
import Settings
import Testing

/// Home Assistant's own code, through the project's check in `Tests/HAConformance` (see its
/// README). Its first run installs Home Assistant into ~/.cache/plumb, which takes about two
/// minutes; `make test` does that beforehand (scripts/prepare-ha-conformance.sh).
@Suite("Discovery: Home Assistant's own code accepts every message")
struct HAConformanceTests {
    struct Line: Encodable {
        var topic: String
        var payload: String
    }

    /// The parts of the checker's JSON report that the tests read.
    struct Report: Decodable {
        struct Finding: Decodable {
            var severity: String
            var code: String
            var message: String
            var `where`: String?
        }

        struct Message: Decodable {
            var line: Int
            var topic: String
            var conforms: Bool
            var findings: [Finding]
        }

        var homeAssistant: String
        var messages: [Message]

        enum CodingKeys: String, CodingKey {
            case homeAssistant = "home_assistant"
            case messages
        }
    }

    /// `Tests/HAConformance/ha-conformance`, inside the package.
    static let checker = packageRoot.appendingPathComponent("Tests/HAConformance/ha-conformance")

    /// Refused by Home Assistant (there is no `angle` device class): a check that checked
    /// nothing could not pass this test.
    static let refused = Line(topic: "homeassistant/sensor/plumb_control/tilt/config", payload: #"""
        {"name":"Tilt","state_topic":"plumb/control/state","unique_id":"plumb_control_tilt","device_class":"angle"}
        """#)

    /// Accepted, but with a key Home Assistant drops without a word: the warnings the test
    /// demands none of must be real.
    static let dropped = Line(topic: "homeassistant/sensor/plumb_control/roll/config", payload: #"""
        {"name":"Roll","state_topic":"plumb/control/state","unique_id":"plumb_control_roll","colour":"red"}
        """#)

    /// Accepted, but with a unit Home Assistant does not take for the device class (a frequency
    /// in rpm): the check must see what the vibration sensors' units mean to Home Assistant.
    static let wrongUnit = Line(topic: "homeassistant/sensor/plumb_control/dominant_frequency/config", payload: #"""
        {"name":"Dominant frequency","state_topic":"plumb/control/vibration","unique_id":"plumb_control_dominant_frequency",\#
        "device_class":"frequency","unit_of_measurement":"rpm","state_class":"measurement"}
        """#)

    /// Findings a Home Assistant release makes that are known and harmless, by release: the
    /// object id, the code, and text the message contains.
    ///
    /// 2024.3's MQTT sensor has no `options` (later releases added it): it drops the zone
    /// sensor's, and the enum sensor then takes any state, so the zone still shows A to D; only
    /// the list of choices in automations is missing. The zone keeps its options for every
    /// release that has them.
    static let knownFindings: [String: [(objectID: String, code: String, contains: String)]] = [
        "2024.3.3": [("vibration_zone", "dropped-key", "'options'")],
    ]

    /// Every mount kind × every angle unit × with and without a configuration URL × vibration on
    /// and off (with a threshold in g, another vibration class and filter while on).
    static func everyCombination() throws -> [DiscoveryMessage] {
        var messages: [DiscoveryMessage] = []
        for mount in ["flat", "upright", "y,x,-z"] {
            for unit in AngleUnit.allCases {
                for url in [nil, "http://lathe-3.local:8080/"] {
                    let device = DiscoveryDevice(id: Fixture.deviceID, version: "1.4.0", configurationURL: url, chipModel: "ADXL345")
                    let settings = try Fixture.settings(unit: unit, mount: mount)
                    messages += Fixture.messages(settings: settings, device: device)
                    for vibration in [#"{"vibration": false}"#,
                                      #"{"running_threshold": "0.02 g", "vibration_class": "group1_flexible"}"#] {
                        messages += Fixture.messages(settings: try settings.applying(json: Array(vibration.utf8)),
                                                     device: device)
                    }
                }
            }
        }
        return messages
    }

    @Test("no error and no warning in any combination of mount, unit, configuration URL and vibration")
    func everyCombinationConforms() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.checker.path) else {
            Issue.record("""
                the conformance check is missing: expected an executable at \(Self.checker.path); \
                restore it with git checkout -- Tests/HAConformance
                """)
            return
        }
        let messages = try Self.everyCombination()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var input = Data()
        for line in messages.map({ Line(topic: $0.topic, payload: String(decoding: $0.payload, as: UTF8.self)) })
            + [Self.refused, Self.dropped, Self.wrongUnit] {
            input += try encoder.encode(line) + Data("\n".utf8)
        }
        let directory = try makeTemporaryDirectoryURL()
        defer { try? FileManager.default.removeItem(at: directory) }
        let checker = Self.checker
        let stdin = input
        let result = try await offThePool { try run(checker, ["check"], input: stdin, in: directory) }
        let report: Report
        do {
            report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        } catch {
            Issue.record("""
                ha-conformance exited \(result.status) without a JSON report (\(error)).
                stdout:
                \(result.stdout)
                stderr:
                \(result.stderr)
                """)
            return
        }
        #expect(report.messages.count == messages.count + 3)
        let controls = [Self.refused.topic, Self.dropped.topic, Self.wrongUnit.topic]
        let refused = report.messages.first { $0.topic == Self.refused.topic }
        #expect(refused?.conforms == false && refused?.findings.contains { $0.code == "schema" } == true,
                "ha-conformance accepted a message Home Assistant refuses: it checks nothing")
        let dropped = report.messages.first { $0.topic == Self.dropped.topic }
        #expect(dropped?.conforms == true && dropped?.findings.contains { $0.code == "dropped-key" } == true,
                "ha-conformance did not warn about a key Home Assistant drops: its warnings mean nothing")
        let wrongUnit = report.messages.first { $0.topic == Self.wrongUnit.topic }
        #expect(wrongUnit?.findings.contains { $0.code == "sensor-unit" } == true,
                "ha-conformance did not see a unit Home Assistant refuses for the device class")
        // The vibration entities and their settings are among what was checked, and accepted.
        for objectID in ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running",
                         "filter", "vibration", "vibration_class", "running_threshold"] {
            let checked = report.messages.filter { $0.topic.hasSuffix("/plumb_lathe-3/\(objectID)/config") }
            #expect(!checked.isEmpty && checked.allSatisfy(\.conforms), "\(objectID) was not checked, or refused")
        }
        let known = Self.knownFindings[report.homeAssistant] ?? []
        let findings = report.messages.filter { !controls.contains($0.topic) }.compactMap { message -> String? in
            let serious = message.findings.filter { finding in
                finding.severity != "note" && !known.contains {
                    message.topic.hasSuffix("/\($0.objectID)/config") && finding.code == $0.code
                        && finding.severity == "warning" && finding.message.contains($0.contains)
                }
            }
            guard !serious.isEmpty else { return nil }
            return ([message.topic] + serious.map { "  \($0.severity) \($0.code): \($0.where.map { "[\($0)] " } ?? "")\($0.message)" })
                .joined(separator: "\n")
        }
        // Many combinations repeat the same finding: show each once.
        var seen = Set<String>()
        let distinct = findings.filter { seen.insert($0).inserted }
        #expect(distinct.isEmpty, "Home Assistant \(report.homeAssistant) says:\n\(distinct.joined(separator: "\n"))")
        // 1: at least one message (the refused control) does not conform.
        #expect(result.status == 1, "ha-conformance exited \(result.status): \(result.stderr)")
    }
}
