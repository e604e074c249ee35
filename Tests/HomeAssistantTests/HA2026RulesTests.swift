import Foundation
import HomeAssistant
import Testing

/// Home Assistant 2026.11's rules (HA2026Rules.swift) on every message Plumb builds.
@Suite("Discovery: Home Assistant 2026.11's rules, pinned")
struct HA2026RulesTests {
    @Test("every combination of mount, unit and configuration URL follows every 2026.11 rule")
    func everyCombinationFollowsTheRules() throws {
        let messages = try HAConformanceTests.everyCombination()
        #expect(messages.count > 100)
        var seen = Set<String>()
        let violations = try messages.filter { !$0.payload.isEmpty }
            .flatMap { try HA2026Rules.violations(topic: $0.topic, payload: $0.payload) }
            .filter { seen.insert($0).inserted }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("each rule fires on its control message", arguments: HA2026Rules.all.map(\.name))
    func ruleFiresOnItsControl(name: String) throws {
        let rule = try #require(HA2026Rules.all.first { $0.name == name })
        let config = try HA2026Config(topic: rule.control.topic, payload: Array(rule.control.payload.utf8))
        #expect(rule.violation(config) != nil, "the rule \"\(name)\" does not fire on its control: it checks nothing")
        // Only its own rule: a control that broke several would not show that this one works.
        let others = HA2026Rules.all.filter { $0.name != name }.filter { $0.violation(config) != nil }.map(\.name)
        #expect(others.isEmpty, "the control for \"\(name)\" also breaks \(others)")
    }

    @Test("Plumb publishes no image entity (the picture is a camera on its topic), and the numbers a step")
    func theRulesSeePlumbsKeys() throws {
        // The rules must read what Plumb actually sends, or they would pass on a renamed key.
        let configs = try HAConformanceTests.everyCombination().filter { !$0.payload.isEmpty }
            .map { try HA2026Config(topic: $0.topic, payload: $0.payload) }
        // The content_type rule stays pinned for any image entity a later version might add.
        #expect(!configs.contains { $0.component == "image" })
        let camera = try #require(configs.first { $0.component == "camera" })
        #expect(camera.string("topic")?.hasSuffix("/bubble") == true)
        let steps = configs.filter { $0.component == "number" }.compactMap { $0.number("step") }
        #expect(!steps.isEmpty && steps.count == configs.filter { $0.component == "number" }.count)
    }
}
