import Contract
import Settings

/// The configuration reference, written from ``FileKey`` and the live settings' rules: every
/// key of `plumb.yaml`, what it takes, its default, and whether MQTT can change it. `make docs`
/// writes ``markdown()`` to `docs/reference/configuration.md` and ``manPage(version:)`` to
/// `deploy/debian/plumb.yaml.5`.
public enum ConfigurationReference {
    /// What each generated file says of itself, so nobody edits it by hand.
    static let notice = "Written by `make docs` from the parser's keys and the settings' rules (Sources/Configuration, "
        + "Sources/Settings): edit those and run `make docs`, never this file."

    /// One row of the reference: a file key, or a live key in its place in the file.
    public struct Entry: Sendable {
        public let path: String
        public let takes: String
        public let defaultText: String
        /// The MQTT key for a live setting; nil for a key only the file sets.
        public let liveKey: String?
        public let summary: String
    }

    /// The keys of one part of the file: a top-level section, or one top-level key.
    public struct Part: Sendable {
        /// `mqtt`, `state_dir`.
        public let name: String
        /// What the part is for.
        public let summary: String
        public let entries: [Entry]
    }

    /// Every key, part by part, in the order of `config/plumb.yaml`; a section's live keys
    /// after its file keys.
    public static func parts() -> [Part] {
        let defaults = AgentConfiguration(deviceID: "raspberrypi")
        return FileKey.all.filter { $0.section.isEmpty }.map { top in
            guard top.value.isSection else {
                return Part(name: top.name, summary: top.summary, entries: [entry(top, defaults)])
            }
            let fileEntries = FileKey.all.filter { $0.path.hasPrefix(top.name + ".") }.map { entry($0, defaults) }
            return Part(name: top.name, summary: top.summary, entries: fileEntries + liveEntries(in: top.name))
        }
    }

    private static func entry(_ key: FileKey, _ defaults: AgentConfiguration) -> Entry {
        Entry(path: key.path, takes: takes(key.value), defaultText: key.defaultText(defaults), liveKey: nil,
              summary: key.summary)
    }

    private static func liveEntries(in section: String) -> [Entry] {
        LiveKey.allCases.filter { AgentConfiguration.livePath($0).hasPrefix(section + ".") }.map { key in
            Entry(path: AgentConfiguration.livePath(key), takes: SettingsReference.accepted(key),
                  defaultText: key == .name ? "`Plumb <device id>`" : SettingsReference.defaultText(key, LiveSettings()),
                  liveKey: key.rawValue,
                  summary: SettingsReference.summary(key))
        }
    }

    static func takes(_ value: FileKey.Value) -> String {
        switch value {
        case .integer(let range, let unit):
            "a whole number, \(range.lowerBound) to \(range.upperBound)" + (unit.map { " \($0)" } ?? "")
        case .text(let accepted): "text: " + accepted
        case .path: "an absolute path"
        case .boolean: "`true` or `false`"
        case .choice(let words): words.map { "`\($0)`" }.joined(separator: ", ")
        case .section: "a section"
        case .other(let accepted): accepted
        }
    }

    // MARK: Markdown

    /// The Markdown page.
    public static func markdown() -> String {
        var lines = [
            "# Configuration reference",
            "",
            "<!-- \(notice) -->",
            "",
            "Every key of the config file, `/etc/plumb/plumb.yaml` (or `--config`), read with libyaml.",
            "`config/plumb.yaml` is the commented example; as shipped it is the defaults, so it behaves",
            "exactly like an empty file. The same keys, as a man page: `man plumb.yaml`.",
            "",
            "- Every key is optional. A key left out, or written with nothing after the colon, takes its default.",
            "- **Live** keys can also change while Plumb runs, over MQTT under the name given (a JSON object on",
            "  `P/config/set`, or one value on `P/config/<key>/set`) or from Home Assistant; their rules are in",
            "  [the live settings](settings.md). A value set over MQTT is kept in `state_dir` and wins over the",
            "  file. The other keys are read from the file only: at start, and the live defaults again on",
            "  `systemctl reload plumb` (SIGHUP); connection, device and sensor keys need a restart.",
            "- An unknown key, a key given twice, a wrong type or a value out of range stops start-up with one",
            "  line that names the file, the line, the key and what is accepted, e.g.",
            "  `/etc/plumb/plumb.yaml:2:9: mqtt.port: 70000 is out of range; a TCP port is a whole number from 1 to 65535.`",
            "  A live key written in the wrong section is refused with the place it goes.",
            "- YAML 1.2: booleans are `true` and `false` only (`yes`, `on` are text, and refused); quotes make a",
            "  value text (`port: \"1883\"` is refused).",
            "",
        ]
        for part in parts() {
            lines += ["## `\(part.name)`", "", capitalized(part.summary) + ".", "",
                      "| key | takes | default | live | what it does |", "|---|---|---|---|---|"]
            for entry in part.entries {
                let live = entry.liveKey.map { "live: `\($0)`" } ?? "file"
                lines.append("| `\(entry.path)` | \(MQTTReference.cell(entry.takes)) | \(MQTTReference.cell(entry.defaultText)) | "
                    + "\(live) | \(MQTTReference.cell(entry.summary)) |")
            }
            lines.append("")
        }
        lines.removeLast()
        return lines.joined(separator: "\n") + "\n"
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}

extension FileKey.Value {
    var isSection: Bool {
        if case .section = self { return true }
        return false
    }
}
