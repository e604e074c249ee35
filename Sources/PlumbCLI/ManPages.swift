import Accelerometers
import Configuration
import Foundation
import Geometry

/// The man pages `plumb(1)` and `plumb.yaml(5)`, written from the commands' specs and the
/// config file's keys. The package build fills in `@VERSION@` and `@DATE@`.
enum ManPages {
    /// What each page says of itself, as a roff comment.
    static let notice = #".\" Written by make docs (Sources/PlumbCLI/ManPages.swift): edit the code and run make docs."#

    // MARK: plumb(1)

    static func plumb() -> String {
        let common = commonSpecs()
        var page = [
            notice,
            #".TH PLUMB 1 "@DATE@" "plumb @VERSION@" "User Commands""#,
            ".SH NAME",
            #"plumb \- networked digital level and vibration monitor on an I2C accelerometer"#,
            ".SH SYNOPSIS",
            ".B plumb", ".I command", ".RI [ options ]", ".br",
            #".B plumb \-\-version"#, ".br",
            ".B plumb", ".I command", #".B \-\-help"#,
            ".SH DESCRIPTION",
            ".B plumb",
            "reads an accelerometer over Linux I2C",
            #".RI ( /dev/i2c\- N ):"#,
            Roff.text("an " + ChipCatalog.models.dropLast().joined(separator: ", ") + " or " + ChipCatalog.models.last! + ", by default"),
            Roff.text("whichever one of them answers on the bus, and reports a machine's roll, pitch and tilt, its"),
            Roff.text("vibration and whether it runs."),
            ".B plumb run",
            Roff.text("is the long-running agent: it publishes the readings, the level state and events over MQTT, with"),
            Roff.text("Home Assistant discovery, and answers the ruler service. The Debian package runs it as the systemd"),
            "service", ".BR plumb.service ,", "as the user", ".B plumb", "in the group", ".BR i2c .",
            Roff.text("Its configuration is described in"), ".BR plumb.yaml (5).",
            ".PP",
            Roff.text("A mistake on the command line prints the usage and exits 2. A command's options may also come"),
            Roff.text("before its name."),
            ".SH COMMANDS",
        ]
        for command in Plumb.commands {
            page += [".SS " + Roff.quoted("plumb " + command.name), Roff.text(command.summary), ".PP", ".nf",
                     Roff.text(command.usage), ".fi", ".PP", Roff.paragraphs(command.helpSummary)]
            let own = command.allSpecs.filter { spec in spec.name != "--help" && !common.contains { $0.name == spec.name && $0.help == spec.help } }
            page += own.flatMap(option)
            let shared = command.allSpecs.filter { spec in common.contains { $0.name == spec.name && $0.help == spec.help } }
            if !shared.isEmpty {
                page += [".PP", Roff.escaped("And the common options ") + shared.map { Roff.bold($0.name) }.joined(separator: ", ")
                    + "."]
            }
            if !command.footer.isEmpty { page += [".PP", ".nf", Roff.text(command.footer), ".fi"] }
        }
        page += [".SH COMMON OPTIONS", Roff.text("Options several commands take, each with the same meaning.")]
        page += common.flatMap(option)
        page += besideTheService + files + environment + exitStatus + seeAlso(section: 1)
        return page.joined(separator: "\n") + "\n"
    }

    /// Options that three or more commands take with the same help: listed once.
    static func commonSpecs() -> [OptionSpec] {
        var seen: [OptionSpec] = []
        for command in Plumb.commands {
            for spec in command.allSpecs where spec.name != "--help" && !seen.contains(where: { $0.name == spec.name && $0.help == spec.help }) {
                let users = Plumb.commands.filter { $0.allSpecs.contains { $0.name == spec.name && $0.help == spec.help } }
                if users.count >= 3 { seen.append(spec) }
            }
        }
        return seen
    }

    static func option(_ spec: OptionSpec) -> [String] {
        let head = spec.valueName.map { ".BI " + Roff.quoted(spec.name) + " " + Roff.quoted(" " + $0) }
            ?? ".B " + Roff.text(spec.name)
        return [".TP", head, Roff.text(spec.help.split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " "))]
    }

    static let besideTheService = [
        ".SH THE COMMAND LINE BESIDE THE SERVICE",
        Roff.text("While the agent runs it owns its chip (a lock on the chip's byte of the bus device file): no"),
        Roff.text("command reconfigures or drains it. read, watch, bubble, rise, shim, vibration, probe, selftest and"),
        Roff.text("calibrate then work through the agent, over its control socket"),
        ".IR /run/plumb/control.sock ,",
        Roff.text("with its calibration, zero and settings; their --json output says \"source\": \"agent\"."),
        Roff.text("The socket is for the group plumb: join it with"),
        #".BR "sudo usermod \-aG plumb $USER" ,"#,
        Roff.text("then log in again. --direct reads the chip itself and is refused while the agent owns it, naming"),
        Roff.text("the agent's pid and unit; --socket PATH names another agent's socket."),
    ]

    static let files = [
        ".SH FILES",
        ".TP", ".I /etc/plumb/plumb.yaml",
        Roff.text("The agent's configuration:"), ".BR plumb.yaml (5).",
        ".B systemctl reload plumb", Roff.text("re-reads it;"), ".B systemctl restart plumb",
        Roff.text("applies connection, device and sensor changes."),
        ".TP", ".I /var/lib/plumb",
        Roff.text("The settings changed over MQTT"), ".RI ( settings.json ),", Roff.text("the zero reference"),
        ".RI ( zero.json )", Roff.text("and the calibration"), ".RI ( calibration.json :",
        Roff.text("the correction, the tumbles at their temperatures and the drift model)."),
        ".TP", ".I /run/plumb",
        Roff.text("The control socket"), ".RI ( control.sock ,", Roff.text("group plumb) and"), ".IR owner.json ,",
        Roff.text("which names the agent that owns the chip; made by the unit while it runs."),
        ".TP", ".I /lib/systemd/system/plumb.service",
        Roff.text("The hardened unit; change it with"), #".BR "systemctl edit plumb" ."#,
    ]

    static let environment = [
        ".SH ENVIRONMENT",
        ".TP", ".B " + AgentConfiguration.passwordEnvironmentVariable,
        Roff.text("The broker password, overriding mqtt.password_file."),
    ]

    static let exitStatus = [
        ".SH EXIT STATUS",
        Roff.text("0 on success; 2 for a usage error; 78 (EX_CONFIG) for an invalid configuration file, which the"),
        Roff.text("service does not restart on; 1 for any other failure."),
    ]

    static func seeAlso(section: Int) -> [String] {
        [".SH SEE ALSO", section == 1 ? ".BR plumb.yaml (5)," : ".BR plumb (1),",
         ".BR journalctl (1),", ".BR systemctl (1),", ".BR mosquitto_sub (1),",
         ".I /usr/share/doc/plumb/README.md.gz", Roff.text("and the guides and references under"),
         ".IR /usr/share/doc/plumb/docs/ ,", Roff.text("such as"), ".I docs/reference/configuration.md.gz", "and",
         ".IR docs/reference/mqtt.md.gz ."]
    }

    // MARK: plumb.yaml(5)

    static func plumbYAML() -> String {
        var page = [
            notice,
            #".TH PLUMB.YAML 5 "@DATE@" "plumb @VERSION@" "File Formats""#,
            ".SH NAME",
            #"plumb.yaml \- configuration of the Plumb agent"#,
            ".SH SYNOPSIS",
            ".I /etc/plumb/plumb.yaml",
            ".SH DESCRIPTION",
            Roff.text("The configuration of"), #".B "plumb run""#, Roff.text("in YAML 1.2, read with libyaml. Every key"),
            Roff.text("is optional: a key left out, or written with nothing after the colon, takes its default. The"),
            Roff.text("file the package installs is commented, and as shipped it is the defaults."),
            ".PP",
            Roff.text("An unknown key, a key given twice, a wrong type or a value out of range stops start-up with one"),
            Roff.text("line that names the file, the line, the key and what is accepted. Booleans are true and false"),
            Roff.text("only (yes and on are text, and refused); quotes make a value text."),
            ".PP",
            Roff.text("Keys marked live can also change while the agent runs, over MQTT under the name given (a JSON"),
            Roff.text("object on P/config/set, or one value on P/config/<key>/set), or from Home Assistant. A value set"),
            Roff.text("over MQTT is kept in state_dir and wins over the file. systemctl reload plumb (SIGHUP) reads the"),
            Roff.text("file's live defaults again; the other keys need a restart."),
        ]
        for part in ConfigurationReference.parts() {
            page += [".SH " + Roff.quoted(part.name.uppercased()), Roff.markdown(capitalized(part.summary) + ".")]
            for entry in part.entries {
                let live = entry.liveKey.map { "Live, as \\fB\($0)\\fR." } ?? "File only."
                let defaultText = entry.defaultText.isEmpty ? "" : " Default: " + Roff.markdown(entry.defaultText) + "."
                page += [".TP", ".B " + Roff.text(entry.path),
                         Roff.markdown(capitalized(entry.summary)) + ".",
                         "Takes " + Roff.markdown(entry.takes) + "." + defaultText + " " + live]
            }
        }
        page += [".SH FILES", ".TP", ".I /etc/plumb/plumb.yaml", Roff.text("This file."), ".TP", ".I /var/lib/plumb",
                 Roff.text("The default state_dir: settings.json, zero.json, calibration.json.")]
        page += seeAlso(section: 5)
        return page.joined(separator: "\n") + "\n"
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}

/// Text made safe for roff: a backslash, a hyphen and a line that starts with a control
/// character would otherwise be read as markup.
enum Roff {
    /// Plain text on one or more source lines.
    static func text(_ text: String) -> String {
        lines(escaped(text))
    }

    /// A backslash and a hyphen as roff writes them.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        return out
    }

    /// Source lines trimmed, and a line that would start with a control character guarded.
    static func lines(_ out: String) -> String {
        out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let trimmed = line.trimmingWhitespace
            return trimmed.first == "." || trimmed.first == "'" ? "\\&" + trimmed : String(trimmed)
        }.joined(separator: "\n")
    }

    /// Help text whose blank lines separate paragraphs.
    static func paragraphs(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { Self.text($0) }.joined(separator: "\n.PP\n")
    }

    /// An argument in double quotes, for a macro.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text).replacingOccurrences(of: "\"", with: "\\(dq") + "\""
    }

    static func bold(_ text: String) -> String { "\\fB" + escaped(text) + "\\fR" }

    /// A reference cell's Markdown as roff: code in bold, a link as its text.
    static func markdown(_ markdown: String) -> String {
        var out = ""
        var rest = Substring(markdown)
        var inCode = false
        while let character = rest.first {
            rest = rest.dropFirst()
            switch character {
            case "`":
                out += inCode ? "\\fR" : "\\fB"
                inCode.toggle()
            case "[" where !inCode:
                // [text](target) becomes text.
                if let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix("("),
                   let end = rest[close...].firstIndex(of: ")") {
                    out += escaped(String(rest[..<close]))
                    rest = rest[rest.index(after: end)...]
                } else {
                    out += "["
                }
            default: out += escaped(String(character))
            }
        }
        return lines(out)
    }
}
