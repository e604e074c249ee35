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
        // The parser's own keys: a key it accepts and the example leaves out fails here.
        let keys = FileKey.all.map(\.name) + LiveSettings.keys
        let lines = text.split(separator: "\n").map { $0.drop { $0 == " " || $0 == "#" } }
        for key in keys {
            #expect(lines.contains { $0.hasPrefix(key + ":") }, "\(key) is not in the example")
        }
    }

    @Test("Each number's range in the example's comments is the range the parser checks")
    func exampleRangesAreTheParsers() throws {
        let lines = try String(contentsOfFile: Self.examplePath, encoding: .utf8).split(separator: "\n").map(String.init)
        let numbers = FileKey.all.compactMap { key -> (FileKey, ClosedRange<Int>)? in
            guard case .integer(let range, _) = key.value else { return nil }
            return (key, range)
        }
        #expect(numbers.count >= 12)
        for (key, range) in numbers {
            let bare = lines.map { $0.drop { $0 == " " || $0 == "#" } }
            let index = try #require(bare.firstIndex { $0.hasPrefix(key.name + ":") }, "\(key.path) is not in the example")
            // The comment above the key, through any commented key it shares the comment with.
            let comment = lines[..<index].reversed().prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
                .joined(separator: " ")
            let said = "\(range.lowerBound) to \(range.upperBound)"
            #expect(comment.contains(said), "\(key.path): the comment should say \(said)")
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
