import BrokerHarness
import Configuration
import Foundation
import PlumbCLI
import Settings
import Testing

/// The references `make docs` writes from the code: the files in the repository are what it
/// writes now, and the bash completion completes.
@Suite("Generated docs: the CLI reference and the completions are what make docs writes")
struct GeneratedDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("Each generated file in the repository is what make docs would write")
    func upToDate() throws {
        let files = ReferenceDocs.files()
        #expect(files.count == 8)
        for file in files {
            let current = try? String(contentsOf: Self.root.appendingPathComponent(file.path), encoding: .utf8)
            #expect(current == file.contents, "\(file.path) differs from what `make docs` writes: run make docs (and commit it)")
        }
    }

    @Test("The settings reference has every live key, with a default, what is accepted and its place in the file")
    func settingsReference() throws {
        let page = try #require(ReferenceDocs.files().first { $0.path == "docs/reference/settings.md" }).contents
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let keys = ["angle_unit", "length_unit", "level_tolerance", "level_hysteresis", "alarm_threshold", "level_dwell_s",
                    "mount", "sample_rate_hz", "average_window_s", "filter", "publish_deadband_deg", "min_interval_s",
                    "heartbeat_s", "vibration", "vibration_window_s", "vibration_interval_s", "vibration_class",
                    "running_threshold", "running_hysteresis", "running_start_s", "running_stop_s", "name"]
        #expect(rows.map { $0.split(separator: "`")[1] } == keys.map { Substring($0) })
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(cells.count == 5 && cells.allSatisfy { !$0.isEmpty && !$0.contains("nan") }, "\(row)")
        }
        #expect(page.contains("| `level_tolerance` | 0.1° | 0.001° to 45° | `level.level_tolerance` |"))
        #expect(page.contains("| `running_threshold` | `1 mm/s` |"))
        #expect(page.contains("| `sample_rate_hz` | 100 Hz |") && page.contains("`sensor.sample_rate_hz`"))
    }

    @Test("The reference names every command and every option its --help lists")
    func everyOption() async throws {
        let reference = try #require(CommandReference.files().first { $0.path == "docs/reference/cli.md" }).contents
        let plumb = PlumbProcess.binary.path
        let overview = try await offThePool { try CommandRun.blocking([plumb, "--help"], timeout: 30) }
        let commands = overview.stdout.split(separator: "\n").drop { !$0.hasPrefix("Commands:") }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.count >= 15, "\(overview)")
        for command in commands {
            #expect(reference.contains("## `plumb \(command)`"), "\(command) is not in the reference")
            let help = try await offThePool { try CommandRun.blocking([plumb, command, "--help"], timeout: 30) }
            let options = help.stdout.split(separator: "\n").filter { $0.hasPrefix("  --") }
                .compactMap { $0.split(separator: " ").first.map(String.init) }
            #expect(!options.isEmpty, "plumb \(command) --help lists no option")
            for option in options {
                #expect(reference.contains("| `\(option)"), "plumb \(command) \(option) is not in the reference")
            }
        }
    }

    @Test("The configuration reference and plumb.yaml(5) have every key the parser accepts, live keys with their MQTT name")
    func configurationReference() throws {
        let files = ReferenceDocs.files()
        let page = try #require(files.first { $0.path == "docs/reference/configuration.md" }).contents
        let man = try #require(files.first { $0.path == "deploy/debian/plumb.yaml.5" }).contents
        for key in FileKey.all {
            #expect(page.contains("| `\(key.path)` |") || page.contains("## `\(key.path)`"), "\(key.path) is not in the reference")
            #expect(man.contains(".B \(key.path.replacingOccurrences(of: "-", with: "\\-"))\n")
                || man.contains(".SH \"\(key.path.uppercased())\""), "\(key.path) is not in plumb.yaml(5)")
        }
        for key in LiveSettings.keys {
            #expect(page.contains("live: `\(key)`"), "\(key) is not marked live in the reference")
            #expect(man.contains("Live, as \\fB\(key)\\fR."), "\(key) is not marked live in plumb.yaml(5)")
        }
        #expect(page.contains("| `mqtt.failback_s` | a whole number, 5 to 86400 s | 60 | file |"))
        #expect(page.contains("| `level.level_tolerance` | 0.001° to 45° | 0.1° | live: `level_tolerance` |"))
        #expect(!page.contains("nan") && !man.contains("nan"))
    }

    @Test("plumb(1) has every command and every option, and no line that roff would misread")
    func manPage() throws {
        let man = try #require(ReferenceDocs.files().first { $0.path == "deploy/debian/plumb.1" }).contents
        let options = Set(man.split(separator: "\n").filter { $0.hasPrefix(".B \\-\\-") || $0.hasPrefix(".BI \"\\-\\-") }
            .compactMap { $0.split(separator: " ").dropFirst().first }
            .map { $0.replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "\\-", with: "-") })
        for command in CommandReference.commandNames {
            #expect(man.contains(".SS \"plumb \(command)\""), "plumb \(command) is not in plumb(1)")
        }
        for option in CommandReference.optionNames where option != "--help" {
            #expect(options.contains(option), "\(option) is not in plumb(1)")
        }
        // A text line that starts with . or ' is a request to roff; every one here is a macro.
        let macros: Set<Substring> = [".TH", ".SH", ".SS", ".B", ".BI", ".BR", ".I", ".IR", ".RI", ".TP", ".PP", ".br",
                                      ".nf", ".fi", #".\""#]
        for line in man.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(macros.contains(line.split(separator: " ").first ?? ""), "not a macro: \(line)")
        }
    }

    /// What the bash completion offers for `words`, the last being the word under the cursor.
    static func complete(_ words: [String]) async throws -> [String] {
        let script = root.appendingPathComponent("deploy/completions/plumb.bash").path
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let command = "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _plumb; printf '%s\\n' \"${COMPREPLY[@]}\""
        let outcome = try await offThePool { try CommandRun.blocking(["/bin/bash", "--norc", "-c", command], timeout: 30) }
        #expect(outcome.status == 0, "\(outcome)")
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    @Test("zsh reads the zsh completion and registers it for plumb")
    func zshCompletionLoads() async throws {
        let folder = Self.root.appendingPathComponent("deploy/completions").path
        let script = "fpath=('\(folder)' $fpath); autoload -Uz compinit; compinit -u -D; print -r -- ${_comps[plumb]}"
        let syntax = try await offThePool { try CommandRun.blocking(["/usr/bin/zsh", "-n", folder + "/_plumb"], timeout: 30) }
        #expect(syntax.status == 0, "\(syntax)")
        let loaded = try await offThePool { try CommandRun.blocking(["/usr/bin/zsh", "-f", "-c", script], timeout: 30) }
        #expect(loaded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "_plumb", "\(loaded)")
    }

    @Test("Bash completes the commands, a command's options, and a path where a path goes")
    func bashCompletes() async throws {
        #expect(try await Self.complete(["plumb", "re"]) == ["read"])
        #expect(Set(try await Self.complete(["plumb", ""])).isSuperset(of: ["read", "run", "watch", "--version"]))
        #expect(try await Self.complete(["plumb", "read", "--ra"]).sorted() == ["--rate", "--raw"])
        #expect(try await Self.complete(["plumb", "read", "--config", "/et"]).contains("/etc"))
        #expect(try await Self.complete(["plumb", "read", "--rate", ""]).isEmpty, "a rate is no option name")
        #expect(try await Self.complete(["plumb", "--sensor", "sim", "rise", "--ax"]) == ["--axis"])
    }
}
