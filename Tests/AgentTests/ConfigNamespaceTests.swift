import Agent
import BrokerHarness
import Contract
import Foundation
import MQTT
import MQTTTesting
import Testing

/// Messages under `P/config/` on topics that are not the contract's (`P/config//set`,
/// `P/config/a/b/set`, `P/config/x`): refused with a reason, and cleared when retained, so no
/// stray desired config lingers on the broker for the next reader to trust.
@Suite("Stray topics in the config namespace")
struct ConfigNamespaceTests {
    typealias Rig = AgentCoreTests.Rig

    static func strayTopics(_ topics: Topics) -> [String] {
        [topics.prefix + "/config//set", topics.prefix + "/config/a/b/set", topics.prefix + "/config/x",
         topics.prefix + "/config/set/more"]
    }

    @Test func aRetainedStrayIsRefusedAndCleared() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        for topic in Self.strayTopics(rig.topics) {
            rig.mqtt.clear()
            await rig.core.handle(.message(MQTTMessage(topic: topic, payload: Array(#"{"level_tolerance": 0.3}"#.utf8),
                                                       retain: true)))
            let events = rig.mqtt.published(on: rig.topics.event).compactMap { $0.payloadString }
            #expect(events.count == 1 && events[0].contains("\"config_rejected\"") && events[0].contains("is not a config topic"),
                    "\(topic): \(events)")
            #expect(rig.mqtt.published(on: topic).map(\.payload) == [[]], "cleared: \(topic)")
            #expect(rig.mqtt.published(on: topic).allSatisfy { $0.retain })
            #expect(rig.mqtt.published(on: rig.topics.config).isEmpty, "nothing was applied")
        }
    }

    @Test func aLiveStrayIsRefusedAndNotClearedAndTheAgentsOwnConfigIsNotAStray() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        rig.mqtt.clear()
        let stray = rig.topics.prefix + "/config/a/b/set"
        await rig.core.handle(.message(MQTTMessage(topic: stray, payload: Array("1".utf8))))
        // Its own retained P/config comes back to it under P/config/#, and an empty stray is a deletion.
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.config, payload: Array("{}".utf8), retain: true)))
        await rig.core.handle(.message(MQTTMessage(topic: stray, payload: [], retain: true)))
        #expect(rig.mqtt.published(on: rig.topics.event).count == 1)
        #expect(rig.mqtt.published(on: stray).isEmpty)
        // The refusal is also the latest setting's answer, on P/result; nothing else goes out.
        #expect(rig.mqtt.published(on: rig.topics.result).count == 1)
        #expect(rig.mqtt.publications.filter { $0.topic != rig.topics.event && $0.topic != rig.topics.result }.isEmpty,
                "\(rig.mqtt.publications.map(\.topic))")
    }
}

@Suite("Stray topics in the config namespace over a real broker", .serialized)
struct ConfigNamespaceOverBrokerTests {
    @Test func strayRetainedConfigLeftBeforeTheStartIsGoneAfterIt() async throws {
        let broker = try MosquittoBroker.start()
        let deviceID = "stray" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let prefix = "plumb/" + deviceID
        let strays = [prefix + "/config//set", prefix + "/config/a/b/set"]
        for topic in strays {
            try await MosquittoClients.publish(port: broker.port, topic: topic, message: #"{"heartbeat_s": 45}"#,
                                               retain: true, qos: 1)
        }
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID)
        let rejected = await observer.waitForJSON(prefix + "/event") {
            $0["type"] as? String == "config_rejected" && ($0["reason"] as? String ?? "").contains("/config/a/b/set")
        }
        #expect(rejected != nil)
        try await Task.sleep(for: .milliseconds(500))
        let left = try await MosquittoClients.retained(port: broker.port, topic: prefix + "/config/#").map(\.topic)
        #expect(left == [prefix + "/config"], "only the effective config is retained: \(left)")
        let config = try #require(await observer.waitForJSON(prefix + "/config"))
        #expect(config["heartbeat_s"] as? Double != 45, "nothing was applied")
        // No topic is matched by two of the agent's config filters: each message arrives once.
        let filters = Topics(baseTopic: "plumb", deviceID: deviceID).configFilters
        for topic in strays + [prefix + "/config/set", prefix + "/config/angle_unit/set", prefix + "/config/a/b/c/d"] {
            #expect(filters.filter { topicMatches(filter: $0, topic: topic) }.count == 1, "\(topic)")
        }
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
