@testable import Agent
import Contract
import HomeAssistant
import Settings
import Testing

/// Which discovery configs go out, as a value, without the actor or a broker.
@Suite("Discovery publisher")
struct DiscoveryPublisherTests {
    static let options = HomeAssistantOptions(prefix: "homeassistant", device: DiscoveryDevice(id: "unit", version: "test", chipModel: "ADXL345"))
    static let base = "homeassistant/sensor/plumb_unit/"

    static func publisher() -> DiscoveryPublisher {
        DiscoveryPublisher(options: options, topics: Topics(baseTopic: "plumb", deviceID: "unit"))
    }

    @Test func theFirstTimeSendsEveryConfigThenOnlyChanges() {
        var discovery = Self.publisher()
        let all = discovery.messages(for: LiveSettings(), force: false)
        #expect(!all.isEmpty && all.allSatisfy { !$0.payload.isEmpty })
        #expect(discovery.messages(for: LiveSettings(), force: false).isEmpty, "nothing changed")
        #expect(discovery.messages(for: LiveSettings(), force: true) == all, "forced: all again")
    }

    @Test func aUnitChangeSendsTheSlopeAloneAndRemovesNothing() throws {
        var discovery = Self.publisher()
        let all = discovery.messages(for: LiveSettings(), force: false)
        let percent = try LiveSettings().applying(key: "angle_unit", rawValue: Array("percent".utf8))
        let sent = discovery.messages(for: percent, force: false)
        #expect(sent.map(\.topic) == [Self.base + "slope/config"])
        #expect(sent.allSatisfy { !$0.payload.isEmpty })
        #expect(Set(discovery.published.keys) == Set(all.map(\.topic)), "every entity stays")
    }

    @Test func vibrationOffOrOnSendsNothing() throws {
        var discovery = Self.publisher()
        _ = discovery.messages(for: LiveSettings(), force: false)
        let off = try LiveSettings().applying(key: "vibration", rawValue: Array("false".utf8))
        #expect(discovery.messages(for: off, force: false).isEmpty, "the readings' availability follows P/config")
        #expect(discovery.messages(for: LiveSettings(), force: false).isEmpty)
    }

    @Test func clearingTheStaleOnesForgetsWhatWasPublished() {
        var discovery = Self.publisher()
        let all = discovery.messages(for: LiveSettings(), force: false)
        let removals = discovery.staleRemovals()
        #expect(!removals.isEmpty && removals.allSatisfy { $0.payload.isEmpty })
        #expect(!removals.contains { $0.topic.hasSuffix("_deg/config") }, "the current unit is not cleared")
        #expect(discovery.published.isEmpty)
        #expect(discovery.messages(for: LiveSettings(), force: false) == all, "after the clearing every config again")
    }

    @Test func onlyTheLatestOnlineIsAnswered() {
        var discovery = Self.publisher()
        let first = discovery.homeAssistantCameOnline()
        let second = discovery.homeAssistantCameOnline()
        #expect(!discovery.isCurrent(first))
        #expect(discovery.isCurrent(second))
        #expect(DiscoveryPublisher.homeAssistantDelay == 1...5)
    }
}
