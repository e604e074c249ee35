import BrokerHarness
import Foundation
import Persistence
import Settings
import Testing

/// `plumb dashboard`: the view for the device the config file and its saved settings describe.
@Suite("plumb dashboard")
struct DashboardCLITests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/homeassistant/dashboard.yaml")

    @Test("For device lathe with no saved settings it prints the shipped example; a name saved over MQTT gives that name's ids")
    func namesFollowTheSettings() async throws {
        let directory = try makeTemporaryDirectory("dashboard")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = try await PlumbProcess.run(["dashboard", "--device-id", "lathe", "--state-dir", directory])
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout == (try String(contentsOf: Self.example, encoding: .utf8)))

        // The agent saved a new name and vibration off (as `P/config/set` would).
        let saved = try LiveSettings().applying(json: Array(#"{"name":"Mill 2","vibration":false}"#.utf8))
        try StateStore(directory: directory).save(settings: saved)
        let renamed = try await PlumbProcess.run(["dashboard", "--device-id", "lathe", "--state-dir", directory])
        #expect(renamed.status == 0, "\(renamed)")
        #expect(renamed.stdout.contains("entity: sensor.mill_2_tilt_deg") && renamed.stdout.contains(#"title: "Mill 2""#))
        #expect(!renamed.stdout.contains("velocity_rms"), "vibration is off: no vibration cards")
    }

    @Test("A damaged settings file is a warning, never a failure, and nothing is moved")
    func damagedSettings() async throws {
        let directory = try makeTemporaryDirectory("dashboard")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("{\"format\":1,".utf8).write(to: URL(fileURLWithPath: directory + "/settings.json"))
        let outcome = try await PlumbProcess.run(["dashboard", "--device-id", "lathe", "--state-dir", directory])
        #expect(outcome.status == 0 && outcome.stderr.contains("settings.json is not valid"), "\(outcome)")
        #expect(outcome.stdout.contains("sensor.plumb_lathe_tilt_deg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["settings.json"], "read only")
    }
}
