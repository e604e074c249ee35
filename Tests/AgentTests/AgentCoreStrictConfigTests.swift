import Agent
import Contract
import Foundation
import MQTT
import MQTTTesting
import Testing

/// Config messages that are not strict JSON, through the agent with an in-memory MQTT client.
@Suite("AgentCore: desired config that is not strict JSON")
struct AgentCoreStrictConfigTests {
    typealias Rig = AgentCoreTests.Rig

    @Test("A trailing comma or a duplicate key rejects the whole P/config/set: config_rejected names the problem, P/config and the state directory are unchanged",
          arguments: [
              (#"{"heartbeat_s": 45,}"#, "not JSON (line 1, column 20): a comma before a closing bracket"),
              (#"{"level_tolerance": 0.3, "level_tolerance": 99}"#,
               #"not JSON (line 1, column 42): duplicate object key "level_tolerance"; send each key once"#),
          ])
    func rejectedWhole(payload: String, reason: String) async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        let before = try #require(rig.mqtt.lastRetained(on: rig.topics.config)?.payload)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet, payload: Array(payload.utf8), retain: true)))
        let rejected = try #require(rig.events("config_rejected").last)
        #expect((rejected["reason"] as? String)?.contains(reason) == true, "\(rejected)")
        #expect(rejected["key"] is NSNull)
        #expect(rejected["value"] as? String == payload)
        #expect(rig.events("config_applied").isEmpty)
        #expect(rig.mqtt.lastRetained(on: rig.topics.config)?.payload == before)
        #expect(rig.mqtt.published(on: rig.topics.config).count == 1, "P/config is not published again")
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/settings.json"), "nothing was persisted")
        // The retained desired config is deleted all the same, so it cannot come back at a reconnect.
        #expect(rig.mqtt.published(on: rig.topics.configSet).last?.payload == [])
    }

    @Test("A quoted per-key value with \\u0000 is config_rejected for its key, naming the NUL")
    func perKeyNUL() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        let before = try #require(rig.mqtt.lastRetained(on: rig.topics.config)?.payload)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "name"),
                                                   payload: Array(#""Drill\u0000press""#.utf8))))
        let rejected = try #require(rig.events("config_rejected").last)
        #expect(rejected["key"] as? String == "name")
        #expect((rejected["reason"] as? String)?.contains(#"a string contains \u0000 (NUL)"#) == true, "\(rejected)")
        #expect(rig.mqtt.lastRetained(on: rig.topics.config)?.payload == before)
    }
}
