import Contract
import Foundation
import Geometry
import RulerService
import Settings
import Testing

/// The MQTT examples of the docs, as a person pastes them into a shell: every `mosquitto_pub`
/// and `mosquitto_rr` line sends what the agent accepts on its topic.
@Suite("The docs' MQTT examples send what the agent accepts")
struct DocsPayloadTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Example {
        var page: String
        var line: Int
        var topic: String
        var payload: String
    }

    /// Every `mosquitto_pub`/`mosquitto_rr` command in README.md and docs/, continued lines joined.
    static func examples() throws -> [Example] {
        let docs = root.appendingPathComponent("docs")
        let pages = ["README.md"] + (FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted() ?? [])
        var examples: [Example] = []
        // Quoted or bare; a bare word ends at a space or the backtick of inline code.
        let topic = try Regex(#"-t (?:'([^']*)'|([^\s`]+))"#)
        let message = try Regex(#"-m (?:'([^']*)'|([^\s`]+))"#)
        for page in pages {
            let lines = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var index = 0
            while index < lines.count {
                var command = lines[index]
                let first = index + 1
                while command.hasSuffix("\\"), index + 1 < lines.count {
                    index += 1
                    command = String(command.dropLast()) + " " + lines[index].trimmingCharacters(in: .whitespaces)
                }
                index += 1
                guard command.contains("mosquitto_pub ") || command.contains("mosquitto_rr "),
                      let t = command.firstMatch(of: topic), let m = command.firstMatch(of: message) else { continue }
                let payload = m.output[1].substring ?? m.output[2].substring ?? ""
                let name = t.output[1].substring ?? t.output[2].substring ?? ""
                examples.append(Example(page: page, line: first, topic: String(name),
                                        payload: String(payload)))
            }
        }
        return examples
    }

    @Test("Each example's payload is accepted on its topic: a setting, a command's payload, a ruler request")
    func examplesAreAccepted() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 5, "the examples were not found: \(examples.map(\.topic))")
        let handler = RulerRequestHandler()
        let reading = CurrentReading(levelGravity: Vector3(x: 0.01, y: 0, z: 1).normalized!, standardError: .zero, age: 0.1,
                                     lengthUnit: .mm, isStable: true)
        for example in examples {
            let place = "\(example.page):\(example.line): \(example.topic) \(example.payload)"
            let levels = example.topic.split(separator: "/").map(String.init)
            let payload = Array(example.payload.utf8)
            if levels.suffix(2) == ["config", "set"] {
                #expect(throws: Never.self, "\(place)") { _ = try LiveSettings().applying(json: payload) }
            } else if levels.count >= 3, levels[levels.count - 3] == "config", levels.last == "set" {
                #expect(throws: Never.self, "\(place)") {
                    _ = try LiveSettings().applying(key: levels[levels.count - 2], rawValue: payload)
                }
            } else if levels.count >= 2, levels[levels.count - 2] == "command" {
                let command = try #require(Command(rawValue: levels.last!), "\(place): no such command")
                #expect(command.payloads.isEmpty || command.payloads.contains { $0.name == example.payload }, "\(place)")
            } else if levels.count >= 2, levels[levels.count - 2] == "request" {
                let reply = handler.reply(service: levels.last!, payload: payload, reading: reading)
                #expect(reply.error == nil, "\(place): \(reply.error ?? "")")
            } else {
                Issue.record("\(place): a topic the agent does not read")
            }
        }
    }
}
