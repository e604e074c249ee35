/// The MQTT reference, written from the contract itself: every ``ContractTopic``, ``Command``,
/// ``EventType`` and ``HealthKey`` with the documentation beside its name, so the page cannot
/// drift from the names the agent and its subscribers agree on. `make docs` writes it to
/// docs/reference/mqtt.md; what the agent does with these topics is the hand-written
/// docs/reference/agent-behaviour.md.
public enum MQTTReference {
    /// The Markdown page. `chipModels` are the models a probe reports (`ADXL345`, …), which the
    /// contract cannot name: only the drivers know their chips.
    public static func markdown(chipModels: [String]) -> String {
        var lines = [
            "# MQTT reference",
            "",
            "<!-- Written by `make docs` from the contract's topics, commands, events and health keys "
                + "(Sources/Contract): edit those and run `make docs`, never this file. -->",
            "",
            "The topics, payloads, commands, events and health keys of the agent. `P` is the device prefix,",
            "`<base_topic>/<device_id>`: `plumb/<hostname>` by default; `<prefix>` is Home Assistant's discovery",
            "prefix, `mqtt.discovery_prefix`. What the agent does with them (what it publishes on every connect,",
            "how it takes a setting, the level logic, calibration over MQTT) is in",
            "[How the agent behaves on MQTT](agent-behaviour.md); every live setting is in",
            "[the live settings reference](settings.md).",
            "",
            "## Topics",
            "",
            "`retained` is the agent's retain flag on what it publishes, and what it does with a retained message",
            "on what it reads; `QoS` is the QoS it publishes at, or what a message it reads arrives at.",
            "",
        ]
        lines += table(["topic", "dir", "retained", "QoS", "payload"], ContractTopic.allCases.map {
            [$0.title, $0.direction.rawValue, $0.retention.rawValue, $0.qos.rawValue, $0.payload(chipModels: chipModels)]
        })
        lines += [
            "",
            "## Commands",
            "",
            "Each on `P/command/<name>`; retained copies are ignored, since a command would otherwise run again at",
            "every reconnect.",
            "",
        ]
        lines += table(["command", "payload", "what it does"], Command.allCases.map { command in
            [code(command.rawValue), payloadCell(command.payloads), command.documentation]
        })
        lines += ["", "### Payloads", "", "The payloads of the commands that read one, each exactly as written.", ""]
        lines += table(["command", "payload", "what it asks for"], Command.allCases.flatMap { command in
            command.payloads.map { [code(command.rawValue), code($0.name), $0.documentation] }
        })
        lines += [
            "",
            "## Events",
            "",
            "Each a JSON object on `P/event`: its `type`, `ts` (ISO 8601 UTC, ms) and the details below.",
            "",
        ]
        lines += table(["`type`", "when", "details"], eventRows())
        lines += [
            "",
            "## Health keys",
            "",
            "The keys of the JSON on `P/health`.",
            "",
        ]
        lines += table(["key", "what it says"], HealthKey.allCases.map {
            [code($0.rawValue), $0.documentation(chipModels: chipModels)]
        })
        return lines.joined(separator: "\n") + "\n"
    }

    /// One row per occasion, in the order of ``EventType/allCases``; the types next to each other
    /// whose occasions read the same (`level_entered`, `level_left`) share one row.
    static func eventRows() -> [[String]] {
        var rows: [(types: [EventType], occasion: EventOccasion)] = []
        for type in EventType.allCases {
            for occasion in type.occasions {
                if let last = rows.last, last.occasion == occasion, type.occasions.count == 1,
                   last.types.last.map({ $0.occasions.count == 1 }) == true {
                    rows[rows.count - 1].types.append(type)
                } else {
                    rows.append(([type], occasion))
                }
            }
        }
        return rows.map { row in
            [row.types.map { code($0.rawValue) }.joined(separator: ", "), row.occasion.when, row.occasion.details]
        }
    }

    /// The payload cell of a command: the payloads it reads, or that it reads none.
    static func payloadCell(_ payloads: [CommandPayload]) -> String {
        payloads.isEmpty ? "ignored, so Home Assistant's `PRESS` is fine"
            : alternatives(payloads.map(\.name)) + " ([payloads](#payloads))"
    }

    /// Names as code, for "one of": `` `a`, `b` or `c` ``.
    static func alternatives(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        let rest = names.dropLast().map(code).joined(separator: ", ")
        return (rest.isEmpty ? "" : rest + " or ") + code(last)
    }

    static func code(_ text: String) -> String { "`" + text + "`" }

    /// A Markdown table: its header, the rule, a line per row.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        func line(_ cells: [String]) -> String {
            "|" + cells.map { $0.isEmpty ? " " : " " + cell($0) + " " }.joined(separator: "|") + "|"
        }
        return [line(header), "|" + Array(repeating: "---", count: header.count).joined(separator: "|") + "|"]
            + rows.map(line)
    }

    /// Markdown in one table cell: one line, its runs of white space made one space, and `|`
    /// escaped, which would otherwise end the cell even inside code. The configuration
    /// reference's tables use it too.
    public static func cell(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
            .replacingAll("|", with: "\\|")
    }
}

extension String {
    /// Every `target` replaced with `replacement`, without Foundation, which the contract does
    /// not import for this.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
