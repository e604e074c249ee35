import Configuration
import Foundation
import Testing

/// The config examples of the docs, as a person pastes them into `plumb.yaml`: each parses.
@Suite("The docs' plumb.yaml examples parse")
struct DocsYAMLTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every ```yaml block of README.md and docs/, with where it starts.
    static func examples() throws -> [(page: String, line: Int, text: String)] {
        let docs = root.appendingPathComponent("docs")
        let pages = ["README.md"] + (FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted() ?? [])
        var examples: [(String, Int, String)] = []
        for page in pages {
            let lines = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            var start: Int?
            for (index, line) in lines.enumerated() {
                if start == nil, line == "```yaml" { start = index + 1 } else if let first = start, line == "```" {
                    examples.append((page, first, lines[first..<index].joined(separator: "\n")))
                    start = nil
                }
            }
        }
        return examples
    }

    @Test("Each yaml block is a valid plumb.yaml (the keys it leaves out take their defaults)")
    func examplesParse() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 2, "the examples were not found")
        for example in examples {
            do {
                _ = try parse(example.text)
            } catch {
                Issue.record("\(example.page):\(example.line): the example does not parse: \(error)")
            }
        }
    }
}
