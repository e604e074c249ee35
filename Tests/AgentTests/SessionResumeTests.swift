import Agent
import Contract
import Foundation
import MQTT
import MQTTTesting
import Testing

/// What the agent makes of a resumed persistent session: the writes made while it was away come
/// queued, in write order, without the retain flag; a retained copy that follows them (MQTT 3.1.1
/// re-sends every retained message on a re-SUBSCRIBE) must not re-apply an older write.
@Suite("A resumed session and retained desired config")
struct SessionResumeTests {
    typealias Rig = AgentCoreTests.Rig

    static func tolerance(_ rig: Rig) -> Double? {
        guard let payload = rig.mqtt.lastRetained(on: rig.topics.config)?.payload,
              let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        return object["level_tolerance"] as? Double
    }

    @Test func onAResumedSessionRetainedCopiesAreClearedNotApplied() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect(sessionPresent: true)
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: .v311, sessionPresent: true)))
        let perKey = rig.topics.configSet(key: "level_tolerance")
        // The queue: 0.3 per key, 0.2 in bulk, 0.4 per key. Then the broker's retained copies.
        for (topic, payload) in [(perKey, "0.3"), (rig.topics.configSet, #"{"level_tolerance": 0.2}"#), (perKey, "0.4")] {
            await rig.core.handle(.message(MQTTMessage(topic: topic, payload: Array(payload.utf8), qos: .atLeastOnce)))
        }
        #expect(Self.tolerance(rig) == 0.4)
        rig.mqtt.clear()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet,
                                                   payload: Array(#"{"level_tolerance": 0.2}"#.utf8), retain: true)))
        await rig.core.handle(.message(MQTTMessage(topic: perKey, payload: Array("0.4".utf8), retain: true)))
        #expect(rig.mqtt.published(on: rig.topics.config).isEmpty, "nothing re-applied")
        #expect(rig.mqtt.published(on: rig.topics.event).isEmpty)
        #expect(rig.mqtt.published(on: rig.topics.configSet).map(\.payload) == [[]], "the copy is cleared")
        #expect(rig.mqtt.published(on: perKey).map(\.payload) == [[]])
        #expect(rig.mqtt.published(on: perKey).allSatisfy { $0.retain })
    }

    @Test func onANewSessionRetainedDesiredConfigIsApplied() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: true)))
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: false)))
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "level_tolerance"),
                                                   payload: Array("0.7".utf8), retain: true)))
        #expect(Self.tolerance(rig) == 0.7, "written before the session existed: the retained message is all there is")
    }

    @Test func eachSwitchOfBrokerIsLogged() async throws {
        let log = AgentCoreTests.LogLines()
        let rig = try Rig(log: AgentLog(level: .info, sink: log))
        rig.mqtt.simulateConnect()
        let first = MQTTConfiguration.Broker(host: "a.lan", port: 1883)
        let second = MQTTConfiguration.Broker(host: "b.lan", port: 1884)
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: false, broker: first)))
        await rig.core.handle(.disconnected(MQTTError(code: .connectionLost, reason: "test")))
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: true, broker: second)))
        #expect(log.all.contains { $0.contains("connected to the broker (MQTT 5) at a.lan:1883") }, "\(log.all)")
        #expect(log.all.contains { $0.contains("switched broker: now on b.lan:1884 (MQTT 5, session resumed), was on a.lan:1883") },
                "\(log.all)")
    }
}
