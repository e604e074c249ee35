@testable import Agent
import MQTT
import Testing

/// The link's phase and counters as a value, without the actor: what may be published when.
@Suite("Broker link: phase, counters, and the lines it logs")
struct BrokerLinkTests {
    let first = MQTTConnection(protocolVersion: .v5, sessionPresent: false,
                               broker: MQTTConfiguration.Broker(host: "a.lan", port: 1883))

    @Test func publishingIsAllowedOnlyWhileOnlineAndNeverAfterTheStop() {
        var link = BrokerLink()
        #expect(!link.canPublish)
        #expect(link.connected(first) == "connected to the broker (MQTT 5) at a.lan:1883")
        #expect(link.canPublish)
        link.lost()
        #expect(!link.canPublish && !link.isStopping)
        _ = link.connected(first)
        link.stop()
        #expect(!link.canPublish && link.isStopping)
        // A CONNACK or a loss after the stop changes nothing: no `online` may follow `offline`.
        #expect(link.connected(first) == nil)
        link.lost()
        #expect(link.isStopping && !link.canPublish)
        #expect(link.reconnects == 1, "the connect after the stop is not counted")
    }

    @Test func aSwitchOfBrokerIsSaidAndTheProtocolDecidesWhetherTheRetainFlagIsThePublishers() {
        var link = BrokerLink()
        _ = link.connected(first)
        let second = MQTTConnection(protocolVersion: .v311, sessionPresent: true,
                                    broker: MQTTConfiguration.Broker(host: "b.lan", port: 1883))
        #expect(link.connected(second)
            == "switched broker: now on b.lan:1883 (MQTT 3.1.1, session resumed), was on a.lan:1883")
        #expect(link.sessionResumed)
        #expect(!link.retainFlagIsAsPublished)
    }

    @Test func aStallIsCountedAndWarnedOnceWhateverTheRoundsItTakes() {
        var link = BrokerLink()
        let new = link.stalled(InboundStall(waited: .seconds(10)), probeTopic: "p/probe")
        #expect(new.isNew && new.line.contains("went unanswered for 10 s"))
        let again = link.stalled(InboundStall(waited: .seconds(10), round: 2), probeTopic: "p/probe")
        #expect(!again.isNew && again.line.contains("round 2 of at most 5"))
        #expect(link.inboundStalls == 1)
        #expect(BrokerLink.probeFailed(.refused(reasonCode: 0x87), probeTopic: "p/probe").contains("reason 0x87"))
    }
}
