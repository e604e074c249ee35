import Agent
import Contract
import Foundation
import MQTT
import MQTTTesting
import Testing

/// `written_at` and stray config topics through the agent, with an in-memory MQTT client.
@Suite("AgentCore: the order of desired-config writes, and strays on either protocol")
struct AgentCoreWriteOrderTests {
    typealias Rig = AgentCoreTests.Rig

    private static func config(_ rig: Rig) throws -> [String: Any] {
        let payload = try #require(rig.mqtt.lastRetained(on: rig.topics.config)?.payload)
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    private static func send(_ rig: Rig, _ topic: String, _ payload: String, retain: Bool = false) async {
        await rig.core.handle(.message(MQTTMessage(topic: topic, payload: Array(payload.utf8), qos: .atLeastOnce,
                                                   retain: retain)))
    }

    @Test func aLateOlderStampedWriteLeavesTheKeysWrittenSinceAndAppliesTheRest() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await Self.send(rig, rig.topics.configSet(key: "level_tolerance"), "0.3")
        let older = Date().timeIntervalSince1970 - 100
        await Self.send(rig, rig.topics.configSet, #"{"level_tolerance": 0.5, "heartbeat_s": 45, "written_at": \#(older)}"#)
        let applied = try #require(rig.events("config_applied").last)
        #expect((applied["changes"] as? [String: Any])?.keys.sorted() == ["heartbeat_s"])
        #expect(applied["superseded"] as? [String] == ["level_tolerance"])
        let config = try Self.config(rig)
        #expect(config["level_tolerance"] as? Double == 0.3)
        #expect(config["heartbeat_s"] as? Double == 45)
        #expect(config["written_at"] == nil, "a stamp is no setting")
        // A newer stamp wins as usual.
        await Self.send(rig, rig.topics.configSet, #"{"level_tolerance": 0.6, "written_at": \#(older + 140)}"#)
        #expect(try Self.config(rig)["level_tolerance"] as? Double == 0.6)
    }

    @Test func aStampFarAheadOfTheAgentsClockIsRefusedWhole() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        let before = try Self.config(rig)["level_tolerance"] as? Double
        let ahead = Date().timeIntervalSince1970 + 3600
        await Self.send(rig, rig.topics.configSet, #"{"level_tolerance": 0.5, "written_at": \#(ahead)}"#, retain: true)
        let rejected = try #require(rig.events("config_rejected").last)
        #expect(rejected["key"] as? String == "written_at")
        #expect((rejected["reason"] as? String)?.contains("ahead of the agent's clock") == true)
        #expect(try Self.config(rig)["level_tolerance"] as? Double == before)
        #expect(rig.mqtt.published(on: rig.topics.configSet).last?.payload == [], "cleared all the same")
    }

    @Test("A stray that arrives unretained is cleared on 3.1.1, where the flag says nothing, and left on MQTT 5",
          arguments: [(MQTTProtocolVersion.v311, true), (.v5, false)])
    func liveStray(version: MQTTProtocolVersion, cleared: Bool) async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.core.handle(.connected(MQTTConnection(protocolVersion: version, sessionPresent: false)))
        let stray = rig.topics.prefix + "/config/a/b/set"
        await Self.send(rig, stray, "0.5")
        #expect(rig.events("config_rejected").count == 1)
        #expect(rig.mqtt.published(on: stray).map(\.payload) == (cleared ? [[]] : []))
        await Self.send(rig, stray, "0.5", retain: true)
        #expect(rig.mqtt.published(on: stray).last?.payload == [], "a retained one is cleared on both")
    }
}
