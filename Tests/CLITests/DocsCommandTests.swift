import Foundation
import PlumbCLI
import Testing

/// The `plumb` command lines of the docs, as a person copies them: each names a command that
/// exists and only options that command takes.
@Suite("The docs' plumb command lines name real commands and their options")
struct DocsCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `plumb …` in README.md and docs/ (code blocks and inline code), with where it is;
    /// the generated command-line reference is the specs themselves and is left out.
    static func commandLines() throws -> [(place: String, words: [String])] {
        let docs = root.appendingPathComponent("docs")
        let pages = ["README.md"] + (FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".md") && $0 != "reference/cli.md" }.map { "docs/" + $0 }.sorted() ?? [])
        let command = try Regex(#"(?:^|`|\$ |sudo )plumb ((?:-|[a-z])[^`#]*)"#)
        var found: [(String, [String])] = []
        for page in pages {
            let lines = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                for match in line.matches(of: command) {
                    let words = (match.output[1].substring ?? "").split(separator: " ").map(String.init)
                    found.append(("\(page):\(index + 1)", words))
                }
            }
        }
        return found
    }

    @Test("Each command line's command exists and takes each option it is given")
    func commandsAndOptionsExist() throws {
        let lines = try Self.commandLines()
        #expect(lines.count >= 50, "the command lines were not found")
        let everyOption = Dictionary(CommandReference.commandNames.flatMap { CommandReference.options(of: $0) ?? [:] }) { a, _ in a }
        for (place, words) in lines {
            // Options may come before the command's name (`plumb --sensor sim read`).
            var index = 0
            while index < words.count, words[index].hasPrefix("-") {
                index += everyOption[words[index]] == true ? 2 : 1
            }
            // `plumb --version`, and `plumb read: error: …`, a message the program printed.
            guard index < words.count, words[index].first?.isLetter == true, !words[index].hasSuffix(":") else { continue }
            let name = words[index]
            guard let options = CommandReference.options(of: name) else {
                // Prose that happens to follow the word ("plumb is …") is no command line.
                if words.contains(where: { $0.hasPrefix("--") }) { Issue.record("\(place): plumb \(name) is no command") }
                continue
            }
            for word in words where word.hasPrefix("--") {
                let option = String(word.prefix { $0.isLetter || $0.isNumber || $0 == "-" })
                // A placeholder for several (`--sim-*`) names none.
                guard !word.contains("*"), option.count > 2 else { continue }
                #expect(options[option] != nil, "\(place): plumb \(name) takes no \(option)")
            }
        }
    }
}
