import Accelerometers
import Configuration
import Contract
import Geometry
import Settings

/// Every file `make docs` writes, by path from the repository's root, with its contents: the
/// command line's reference, man page and completions, and the references of the config file
/// and the live settings.
public enum ReferenceDocs {
    public static func files() -> [(path: String, contents: String)] {
        CommandReference.files() + [
            ("docs/reference/settings.md", SettingsReference.markdown()),
            ("docs/reference/mqtt.md", MQTTReference.markdown(chipModels: ChipCatalog.models)),
            ("docs/reference/configuration.md", ConfigurationReference.markdown()),
            ("deploy/debian/plumb.1", ManPages.plumb()),
            ("deploy/debian/plumb.yaml.5", ManPages.plumbYAML()),
        ]
    }
}

/// The command line's reference and its shell completions, written from the commands' own
/// names, usages, help and option specs, so they say what `plumb <command> --help` says and
/// cannot drift from it. `make docs` writes ``files()``; a test fails when a file in the
/// repository differs from it.
public enum CommandReference {
    /// Every file `make docs` writes for the command line: its path from the repository's root
    /// and its contents.
    public static func files() -> [(path: String, contents: String)] {
        [
            ("docs/reference/cli.md", markdown()),
            ("deploy/completions/plumb.bash", bashCompletion()),
            ("deploy/completions/_plumb", zshCompletion()),
        ]
    }

    /// Every command's name, as `plumb --help` lists them.
    public static var commandNames: [String] { Plumb.commands.map { $0.name } }
    /// Every option some command takes.
    public static var optionNames: Set<String> { Set(Plumb.commands.flatMap { $0.allSpecs.map { $0.name } }) }
    /// The options `command` takes, each with whether it takes a value; nil for no such command.
    public static func options(of command: String) -> [String: Bool]? {
        guard let found = Plumb.commands.first(where: { $0.name == command }) else { return nil }
        return Dictionary(found.allSpecs.map { ($0.name, $0.valueName != nil) }) { first, _ in first }
    }

    /// What each generated file says of itself, so nobody edits it by hand.
    static let notice = "Written by `make docs` from the command line's own specs (Sources/PlumbCLI): "
        + "edit those and run `make docs`, never this file."

    // MARK: Markdown

    static func markdown() -> String {
        var lines = [
            "# The command line: `plumb`",
            "",
            "<!-- \(notice) -->",
            "",
            "Every subcommand and every option, as `plumb <command> --help` prints them. How to use them, with",
            "examples and what each prints: [Using the command line](../guides/command-line.md).",
            "",
            "```",
            "plumb <command> [options]",
            "plumb --version",
            "```",
            "",
            "A mistake on the command line prints the usage and exits 2; a failure while working (the bus, the",
            "sensor) prints what to do and exits 1. A command's options may also come before its name",
            "(`plumb --sensor sim read`). Bash and zsh complete the commands and their options",
            "(`deploy/completions/`, installed by the package).",
            "",
            "| command | what it does |",
            "|---|---|",
        ]
        for command in Plumb.commands {
            lines.append("| [`\(command.name)`](#plumb-\(command.name)) | \(cell(command.summary)) |")
        }
        for command in Plumb.commands {
            lines += ["", "## `plumb \(command.name)`", "", prose(command.summary), "", "```", command.usage, "```", "",
                      prose(command.helpSummary), "", "| option | what it does |", "|---|---|"]
            for spec in command.allSpecs {
                let name = "`" + spec.name + (spec.valueName.map { " " + $0 } ?? "") + "`"
                lines.append("| \(name) | \(cell(spec.help)) |")
            }
            if !command.footer.isEmpty {
                lines += ["", "```", command.footer, "```"]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Help text as Markdown prose: its line breaks kept, the characters Markdown would take for
    /// markup or HTML escaped.
    static func prose(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "*", "_", "`", "[", "]", "\\", "|": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        let lines: [String] = out.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.trimmingWhitespace) }
        return lines.joined(separator: "\n")
    }

    /// Help text in one table cell: one line, its runs of spaces made one.
    static func cell(_ text: String) -> String {
        prose(text).split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ")
    }

    // MARK: Completions

    /// The options whose value is a file or directory, which the shells complete as one.
    static func takesPath(_ spec: OptionSpec) -> Bool {
        ["FILE", "PATH", "DIR"].contains(spec.valueName ?? "")
    }

    static func bashCompletion() -> String {
        var lines = [
            "# bash completion for plumb(1). \(notice)",
            "_plumb() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    local commands=\"\(Plumb.commands.map { $0.name }.joined(separator: " "))\"",
            "    local command=\"\" word",
            "    for word in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do",
            "        case \" $commands \" in *\" $word \"*) command=$word; break ;; esac",
            "    done",
            "    if [ -z \"$command\" ]; then",
            "        COMPREPLY=($(compgen -W \"$commands --help --version\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    # Each command's options; those that take a value; those whose value is a path.",
            "    local options values paths",
            "    case $command in",
        ]
        for command in Plumb.commands {
            let specs = command.allSpecs
            lines += [
                "        \(command.name))",
                "            options=\"\(specs.map(\.name).joined(separator: " "))\"",
                "            values=\"\(specs.filter { $0.valueName != nil }.map(\.name).joined(separator: " "))\"",
                "            paths=\"\(specs.filter { takesPath($0) }.map(\.name).joined(separator: " "))\" ;;",
            ]
        }
        lines += [
            "    esac",
            "    case \" $paths \" in *\" $prev \"*) COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac",
            "    case \" $values \" in *\" $prev \"*) COMPREPLY=(); return ;; esac",
            "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "}",
            "complete -F _plumb plumb",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static func zshCompletion() -> String {
        var lines = [
            "#compdef plumb",
            "# zsh completion for plumb(1). \(notice)",
            "",
            "_plumb() {",
            "  local -a commands",
            "  commands=(",
        ]
        for command in Plumb.commands {
            lines.append("    \(zshQuoted(command.name + ":" + zshText(command.summary)))")
        }
        lines += [
            "  )",
            "  if (( CURRENT == 2 )); then",
            "    _describe -t commands 'plumb command' commands",
            "    return",
            "  fi",
            "  local command=$words[2]",
            "  shift words",
            "  (( CURRENT-- ))",
            "  case $command in",
        ]
        for command in Plumb.commands {
            lines.append("    \(command.name))")
            lines.append("      _arguments \\")
            for spec in command.allSpecs {
                let help = "[" + zshText(spec.help) + "]"
                let value = spec.valueName.map { ":" + zshText($0) + ":" + (takesPath(spec) ? "_files" : " ") } ?? ""
                lines.append("        \(zshQuoted(spec.name + help + value)) \\")
            }
            lines.append("        ;;")
        }
        lines += ["  esac", "}", "", "_plumb \"$@\""]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The first line of help, without the characters `_arguments` and `_describe` read as syntax.
    static func zshText(_ text: String) -> String {
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        let sentence = first.count > 80 ? String(first.prefix(77)) + "…" : first
        return String(sentence.map { "[]:\\".contains($0) ? " " : $0 })
    }

    /// `text` in single quotes, for zsh.
    static func zshQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
