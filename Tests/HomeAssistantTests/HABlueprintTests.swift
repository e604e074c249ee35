import BrokerHarness
import Contract
import Foundation
import HomeAssistant
import Testing

/// `deploy/homeassistant/blueprints/`: Home Assistant's own blueprint and automation schemas
/// accept them, and every device trigger they use is one a Plumb device publishes.
@Suite("The Home Assistant blueprints")
struct HABlueprintTests {
    static let directory = packageRoot.appendingPathComponent("deploy/homeassistant/blueprints/automation/plumb")
    static let files = ["machine_done.yaml", "machine_out_of_level.yaml"]

    static func triggers() throws -> String {
        let pairs = EventType.allCases.map { event -> [String] in
            let phrase = Discovery.triggerPhrase(event)
            return [phrase.subtype, phrase.type]
        }
        return String(decoding: try JSONEncoder().encode(pairs), as: UTF8.self)
    }

    @Test("Both pass HA's blueprint and automation schemas with sample inputs; a broken copy does not")
    func blueprintsConform() async throws {
        guard FileManager.default.isExecutableFile(atPath: HAConformanceTests.checker.path) else {
            Issue.record("the conformance check is missing at \(HAConformanceTests.checker.path)")
            return
        }
        let work = try makeTemporaryDirectoryURL()
        defer { try? FileManager.default.removeItem(at: work) }
        // The control: a trigger no Plumb device publishes (its wire name, not its phrase).
        let done = try String(contentsOf: Self.directory.appendingPathComponent("machine_done.yaml"), encoding: .utf8)
        let broken = work.appendingPathComponent("broken.yaml")
        try done.replacingOccurrences(of: "type: stopped running", with: "type: running_stopped")
            .write(to: broken, atomically: true, encoding: .utf8)
        let checker = HAConformanceTests.checker
        let triggers = try Self.triggers()
        let paths = Self.files.map { Self.directory.appendingPathComponent($0).path }
        let good = try await offThePool { try run(checker, ["blueprint", "--triggers", triggers] + paths, in: work) }
        let output = good.stdout
        #expect(good.status == 0, "\(output)\(good.stderr)")
        #expect(output.components(separatedBy: ": conforms").count == Self.files.count + 1, "\(output)")
        let bad = try await offThePool { try run(checker, ["blueprint", "--triggers", triggers, broken.path], in: work) }
        #expect(bad.status == 1 && bad.stdout.contains("running_stopped"),
                "the check let a wrong trigger through: \(bad.stdout)")
    }
}
