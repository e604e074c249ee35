import Configuration
import Testing

/// Regressions from fuzzing the config file (docs/development/testing.md, Fuzzing): inputs whose cost grew with the
/// square of their size. Each would run for minutes or hours before the fix, so a regression
/// shows as a test that does not finish, not as a timing.
@Suite("Config file: hostile YAML is refused or read in linear time")
struct HostileYAMLTests {
    @Test("Nesting deeper than 32 levels is a syntax error at the level that goes too deep")
    func deepNesting() {
        // 200,000 levels took libyaml about a minute before reading stopped at the limit.
        let error = parseError("mqtt: " + String(repeating: "[", count: 200_000))
        // The root mapping is the first level, so the 32nd `[` (column 7 + 31) is the 33rd.
        expectError(error, .syntax, keyPath: nil, line: 1, column: 38, reasonContains: ["nests more than 32 levels"])
        // Indented mappings count the same: the 33rd starts on line 33.
        let indented = (0..<40).map { String(repeating: " ", count: $0) + "k\($0):\n" }.joined()
        expectError(parseError(indented), .syntax, keyPath: nil, line: 33, reasonContains: ["nests more than 32 levels"])
    }

    @Test("Nesting up to the limit is read, and judged by the config's own rules")
    func nestingAtTheLimit() {
        // The root mapping is the first level; 31 lists make 32.
        let yaml = "mqtt: " + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "\n"
        expectError(parseError(yaml), .wrongType, keyPath: "mqtt", line: 1)
    }

    @Test("A list of 100,000 items is read whole (it was copied at every item)")
    func longList() {
        let yaml = "mqtt:\n  tls: [" + String(repeating: "1, ", count: 100_000) + "1]\n"
        expectError(parseError(yaml), .wrongType, keyPath: "mqtt.tls", line: 2)
    }

    @Test("A mapping of 50,000 keys is read whole, and its first unknown key named")
    func longMapping() {
        var yaml = "level:\n"
        for index in 0..<50_000 { yaml += "  k\(index): 1\n" }
        expectError(parseError(yaml), .unknownKey, keyPath: "level.k0", line: 2)
    }
}
