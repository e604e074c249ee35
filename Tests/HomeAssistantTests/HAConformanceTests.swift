import Configuration
import Foundation
import HomeAssistant
import PlumbDomain
import Testing

/// Home Assistant's own schemas, through `../shared/ha-validate/ha-validate` (the same layout in
/// CI). Its first run installs Home Assistant into ~/.cache, which can take two minutes.
@Suite("Discovery: Home Assistant's own schemas accept every message")
struct HAValidateTests {
    struct Line: Encodable {
        var topic: String
        var payload: String
    }

    struct Report: Decodable {
        struct Result: Decodable {
            var topic: String
            var valid: Bool
            var errors: [String]
            var warnings: [String]
        }

        var haVersion: String
        var results: [Result]

        enum CodingKeys: String, CodingKey {
            case haVersion = "ha_version"
            case results
        }
    }

    static let script = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/ha-validate/ha-validate").standardizedFileURL

    static let control = Line(topic: "homeassistant/sensor/plumb_control/tilt/config", payload: #"""
        {"name":"Tilt","state_topic":"plumb/control/state","unique_id":"plumb_control_tilt","device_class":"angle"}
        """#)

    /// Every mount kind × every angle unit × with and without a configuration URL.
    static func everyCombination() throws -> [DiscoveryMessage] {
        var messages: [DiscoveryMessage] = []
        for mount in ["flat", "upright", "y,x,-z"] {
            for unit in AngleUnit.allCases {
                for url in [nil, "http://lathe-3.local:8080/"] {
                    let device = DiscoveryDevice(id: Fixture.deviceID, version: "1.4.0", configurationURL: url)
                    messages += Fixture.messages(settings: try Fixture.settings(unit: unit, mount: mount), device: device)
                }
            }
        }
        return messages
    }

    @Test("ha-validate finds no error and no warning in any combination of mount, unit and configuration URL")
    func everyCombinationIsValid() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.script.path) else {
            Issue.record("""
                ha-validate is missing: expected an executable at \(Self.script.path) \
                (the shared tools sit beside the package, in ../shared/ha-validate).
                """)
            return
        }
        let messages = try Self.everyCombination()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var input = Data()
        for message in messages {
            input += try encoder.encode(Line(topic: message.topic, payload: String(decoding: message.payload, as: UTF8.self)))
            input += Data("\n".utf8)
        }
        // A control that Home Assistant refuses (there is no angle device class), so a validator
        // that checked nothing could not pass this test.
        input += try encoder.encode(Self.control) + Data("\n".utf8)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = Self.script
        let stdin = input
        let result = try await offThePool { try run(script, ["--stdin", "--json", "-q"], input: stdin, in: directory) }
        let output = String(decoding: result.stdout, as: UTF8.self)
        let report: Report
        do {
            report = try JSONDecoder().decode(Report.self, from: result.stdout)
        } catch {
            Issue.record("ha-validate exited \(result.status) without a JSON report.\nstdout:\n\(output)\nstderr:\n\(result.stderr)")
            return
        }
        #expect(report.results.count == messages.count + 1)
        let control = report.results.last { $0.topic == Self.control.topic }
        #expect(control?.valid == false, "ha-validate accepted the invalid control message: it checks nothing")
        let findings = report.results.filter { $0.topic != Self.control.topic && (!$0.valid || !$0.warnings.isEmpty) }.map { result in
            (["\(result.valid ? "VALID with warnings" : "INVALID") \(result.topic)"]
                + result.errors.map { "  ERROR: \($0)" } + result.warnings.map { "  WARN: \($0)" })
                .joined(separator: "\n")
        }
        // Many combinations repeat the same finding: show each once.
        var seen = Set<String>()
        let distinct = findings.filter { seen.insert($0).inserted }
        #expect(distinct.isEmpty, "Home Assistant \(report.haVersion) says:\n\(distinct.joined(separator: "\n"))")
        // 1: at least one message (the control) is invalid.
        #expect(result.status == 1, "ha-validate exited \(result.status): \(result.stderr)")
    }
}
