import Configuration
import Foundation
import Settings
import Testing

@Suite("config/plumb.yaml, the shipped example")
struct ExampleConfigTests {
    /// The repository's config/plumb.yaml, found from this file's path.
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/plumb.yaml").path

    @Test("The example parses and equals the defaults, so the values it shows are the true defaults")
    func exampleIsTheDefaults() throws {
        let config = try AgentConfiguration.load(path: Self.examplePath, environment: [:], hostname: "raspberrypi")
        #expect(config == (try parse("", hostname: "raspberrypi")))
    }

    @Test("Every key is documented in the example, uncommented or commented")
    func everyKeyIsDocumented() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        let keys = ["mqtt", "url", "host", "port", "brokers", "failback_s", "session_expiry_s", "receive_maximum",
                    "inbound_probe_s", "client_id", "requests_per_s", "burst", "request_timeout_s",
                    "keepalive", "username", "password_file", "tls",
                    "ca_file", "cert_file", "key_file", "insecure", "base_topic", "discovery_prefix", "discovery",
                    "device", "id", "name", "sensor", "kind", "bus", "address", "range", "sample_rate_hz",
                    "state_dir", "log_level", "level", "vibration"]
            + LiveSettings.keys.filter { $0 != "sample_rate_hz" && $0 != "name" }
        let lines = text.split(separator: "\n").map { $0.drop { $0 == " " || $0 == "#" } }
        for key in keys {
            #expect(lines.contains { $0.hasPrefix(key + ":") }, "\(key) is not in the example")
        }
    }

    @Test("Uncommenting every commented key gives a valid file (minus the url/host/brokers choice)")
    func commentedExamplesAreValid() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            // "  #key: value" becomes "  key: value"; prose comments ("  # text") stay comments.
            guard let hash = line.firstIndex(of: "#"), line[..<hash].allSatisfy(\.isWhitespace),
                  line[line.index(after: hash)...].first.map({ !$0.isWhitespace }) == true
            else { return String(line) }
            return String(line[..<hash]) + String(line[line.index(after: hash)...])
        }
        .filter { !$0.hasPrefix("  url:") && !$0.hasPrefix("  brokers:") }
        .joined(separator: "\n")
        let config = try parse(uncommented)
        #expect(config.mqtt.username == "plumb")
        #expect(config.mqtt.tls?.caFile == "/etc/plumb/ca.crt")
        #expect(config.device.id == "raspberrypi")
    }
}
