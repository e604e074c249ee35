import Foundation
import Testing

/// The docs as a newcomer follows them: every link leads somewhere, the architecture names every
/// module, and the README stays an overview. What the code generates is checked where it is made.
@Suite("Docs: links resolve, the architecture names every folder, the README stays short")
struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md, CHANGELOG.md and every page under docs/, as repository paths.
    static func pages() throws -> [String] {
        let docs = root.appendingPathComponent("docs")
        let enumerator = try #require(FileManager.default.enumerator(atPath: docs.path))
        let pages = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        return ["README.md", "CHANGELOG.md"] + pages.sorted()
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The lines outside fenced code blocks, numbered from 1.
    static func prose(_ text: String) -> [(number: Int, line: Substring)] {
        var inCode = false
        var lines: [(Int, Substring)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if !inCode { lines.append((index + 1, line)) }
        }
        return lines
    }

    /// A heading's anchor as GitHub makes it: lowercased, letters, digits, `-`, `_` and spaces
    /// kept (spaces as `-`), the rest dropped; a repeated one gets `-1`, `-2`, ….
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors = Set<String>()
        for (_, line) in prose(text) {
            guard let hashes = line.firstIndex(where: { $0 != "#" }), line.hasPrefix("#"),
                  line.distance(from: line.startIndex, to: hashes) <= 6, line[hashes] == " " else { continue }
            let title = line[line.index(after: hashes)...].lowercased()
            let slug = String(title.unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic
                    || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark {
                    return Character(scalar)
                }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The `](target)` links of a page that point inside the repository.
    static func links(_ text: String) -> [(line: Int, target: String)] {
        var links: [(Int, String)] = []
        for (number, line) in prose(text) {
            var rest = line[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = String(after[..<close])
                if !target.contains("://"), !target.hasPrefix("mailto:"), !target.contains(" ") { links.append((number, target)) }
                rest = after[close...]
            }
        }
        return links
    }

    @Test("Every link in the README, the changelog and docs/ reaches a file, and its #anchor a heading of it")
    func linksResolve() throws {
        var broken: [String] = []
        var checked = 0
        for page in try Self.pages() {
            for link in Self.links(try Self.text(page)) {
                checked += 1
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let resolved = path.isEmpty ? page : (NSString(string: (page as NSString).deletingLastPathComponent)
                    .appendingPathComponent(path) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(resolved).path) else {
                    broken.append("\(page):\(link.line): \(link.target): no such file")
                    continue
                }
                if parts.count == 2, resolved.hasSuffix(".md"), !Self.anchors(try Self.text(resolved)).contains(String(parts[1])) {
                    broken.append("\(page):\(link.line): \(link.target): no such heading in \(resolved)")
                }
            }
        }
        #expect(checked > 100, "the links were not found: \(checked)")
        #expect(broken.isEmpty, "\(broken.count) broken links:\n\(broken.joined(separator: "\n"))")
    }

    @Test("The anchor rule is GitHub's")
    func anchorRule() {
        let text = "# Plumb\n## The `plumb` command\n### Settings (over MQTT, validated)\n## Enable I²C\n## Zones (ISO 10816)\n"
            + "```\n# not a heading\n```\n## Plumb\n"
        #expect(Self.anchors(text) == ["plumb", "the-plumb-command", "settings-over-mqtt-validated", "enable-i²c",
                                       "zones-iso-10816", "plumb-1"])
    }

    @Test("The architecture page names every folder of Sources/ and Tests/")
    func architectureNamesEveryFolder() throws {
        let page = try Self.text("docs/development/architecture.md")
        var missing: [String] = []
        for folder in ["Sources", "Tests"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)
            for name in names where !name.hasPrefix(".") && !page.contains("`\(name)`") { missing.append("\(folder)/\(name)") }
        }
        #expect(missing.isEmpty, "add to docs/development/architecture.md: \(missing.joined(separator: ", "))")
    }

    @Test("The README is an overview of at most 250 lines; the rest is in docs/")
    func readmeIsShort() throws {
        let lines = try Self.text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 250, "README.md has \(lines) lines: move the detail to a page under docs/ and link it")
    }
}
