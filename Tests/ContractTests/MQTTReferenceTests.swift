@testable import Contract
import Testing

/// The MQTT reference as written from the contract: a row for every topic `Topics` builds, every
/// command, event and health key on the page, and tables Markdown reads as tables.
@Suite("MQTT reference: every topic, command, event and health key of the contract, in well-formed tables")
struct MQTTReferenceTests {
    static let topics = Topics(baseTopic: "plumb", deviceID: "d")
    /// Stand-ins for the drivers' model names, which the contract is handed.
    static let chipModels = ["CHIP-1", "CHIP-2", "CHIP-3"]
    static let page = MQTTReference.markdown(chipModels: chipModels)

    /// Every topic and filter `Topics` builds. Swift cannot list a type's computed properties, so
    /// a property added to `Topics` is added here too.
    static let built: [String] = [
        topics.status, topics.state, topics.level, topics.event, topics.config, topics.configSet,
        topics.configKeySetFilter, topics.configStrayFilter, topics.commandFilter, topics.calibration, topics.health,
        topics.vibration, topics.result, topics.bubble, topics.inboundProbe, topics.requestFilter,
        topics.configSet(key: "mount"), topics.response("anything"),
    ] + topics.configFilters + Command.allCases.map(topics.command) + RulerServiceName.allCases.map(topics.request)

    /// Whether `pattern` (`P/config/<key>/set`) describes `topic`, a topic or filter under
    /// ``topics``: level by level, a `<…>` level standing for any one, a wildcard for itself.
    static func describes(_ pattern: String, _ topic: String) -> Bool {
        guard pattern.hasPrefix("P/") else { return false }
        let expected = (topics.prefix + pattern.dropFirst()).split(separator: "/", omittingEmptySubsequences: false)
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return expected.count == levels.count && zip(expected, levels).allSatisfy { wanted, level in
            wanted == level || (wanted.hasPrefix("<") && wanted.hasSuffix(">") && !level.isEmpty)
        }
    }

    /// The lines of the section under `## heading`, up to the next heading of its level.
    static func section(_ heading: String) -> [Substring] {
        Array(page.split(separator: "\n").drop { $0 != "## " + heading }.dropFirst().prefix { !$0.hasPrefix("## ") })
    }

    /// A table row's cells, split on the `|` that are not escaped.
    static func cells(_ row: Substring) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in row.dropFirst().dropLast() {
            if character == "|", !escaped {
                cells.append(current.trimmingSpaces)
                current = ""
            } else {
                current.append(character)
            }
            escaped = character == "\\" && !escaped
        }
        return cells + [current.trimmingSpaces]
    }

    @Test("Every topic and filter Topics builds has its row, and every P/ row is one Topics builds")
    func everyTopicIsDescribed() {
        for topic in Self.built {
            let rows = ContractTopic.allCases.filter { Self.describes($0.pattern, topic) }
            #expect(rows.count == 1, "\(topic) is described by \(rows.count) rows of the topic table: \(rows)")
        }
        for row in ContractTopic.allCases where row.pattern.hasPrefix("P/") {
            #expect(Self.built.contains { Self.describes(row.pattern, $0) }, "\(row.pattern) is no topic Topics builds")
        }
        let table = Self.section("Topics").filter { $0.hasPrefix("| `") || $0.hasPrefix("| strays") }
        #expect(table.count == ContractTopic.allCases.count)
        #expect(Self.page.contains("| `P/health` | out | yes | 0 |") && Self.page.contains("[health keys](#health-keys)"))
    }

    @Test("Every command, event type and health key has its row, with something in every cell")
    func everyNameIsOnThePage() {
        let section = Self.section("Commands")
        let commands = section.prefix { !$0.hasPrefix("### ") }.filter { $0.hasPrefix("| `") }
        #expect(commands.map { Self.cells($0)[0] } == Command.allCases.map { "`\($0.rawValue)`" })
        let payloads = section.drop { $0 != "### Payloads" }.filter { $0.hasPrefix("| `") }.map { Self.cells($0) }
        let expected = ReversalStep.allCases.map { ("calibrate_reversal", $0.rawValue) }
            + SixPointAction.allCases.map { ("calibrate_six_point", $0.rawValue) }
            + DriftLearningAction.allCases.map { ("learn_drift", $0.rawValue) }
        #expect(payloads.map { $0[0] + " " + $0[1] } == expected.map { "`\($0.0)` `\($0.1)`" })

        let events = Self.section("Events").filter { $0.hasPrefix("| `") && !$0.hasPrefix("| `type`") }
        let named = events.flatMap { Self.cells($0)[0].split(separator: ",").map { $0.trimmingSpaces } }
        #expect(Set(named) == Set(EventType.allCases.map { "`\($0.rawValue)`" }))
        for type in EventType.allCases {
            #expect(!type.occasions.isEmpty, "\(type.rawValue) says nowhere when it is sent")
            #expect(named.filter { $0 == "`\(type.rawValue)`" }.count == type.occasions.count, "\(type.rawValue)")
        }
        for type in [EventType.calibrationProgress, .calibrationApplied, .calibrationRejected] {
            #expect(type.occasions.count == 2, "\(type.rawValue) answers both calibrations")
        }

        let health = Self.section("Health keys").filter { $0.hasPrefix("| `") }
        #expect(health.map { Self.cells($0)[0] } == HealthKey.allCases.map { "`\($0.rawValue)`" })
        #expect(health.contains { $0.hasPrefix("| `chip` |") && $0.contains("`CHIP-1`, `CHIP-2` or `CHIP-3`;") })
        #expect(Self.page.contains("`model` such as `CHIP-1`;"))

        for row in commands + events + health + section.filter({ $0.hasPrefix("| `") }) {
            // Only sensor_recovered carries no details.
            let cells = Self.cells(row)
            let required = row.hasPrefix("| `sensor_recovered` |") ? cells.dropLast() : cells[...]
            #expect(required.allSatisfy { !$0.isEmpty }, "\(row)")
        }
    }

    @Test("Each table row has its header's cells on one line, and the page says it is generated")
    func tablesAreWellFormed() {
        #expect(Self.page.hasPrefix("# MQTT reference\n\n<!-- Written by `make docs` from "))
        #expect(Self.page.contains("edit those and run `make docs`, never this file. -->"))
        var columns: Int?
        for line in Self.page.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                columns = nil
                continue
            }
            #expect(line.hasSuffix("|"), "\(line)")
            let count = Self.cells(line).count
            if let columns {
                #expect(count == columns, "\(count) cells, not \(columns): \(line)")
            } else {
                columns = count
            }
        }
        #expect(!Self.page.contains("\r") && !Self.page.contains("\t"))
    }

    @Test("A pipe in a cell is escaped, and a cell's line breaks and runs of spaces are one space")
    func cellsEscape() {
        let table = MQTTReference.table(["a", "b"], [["x | y", "one\n  two"]])
        #expect(table == ["| a | b |", "|---|---|", "| x \\| y | one two |"])
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
