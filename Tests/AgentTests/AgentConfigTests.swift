import BrokerHarness
import Foundation
import MQTT
import Testing

/// Settings over MQTT: validated, applied live, persisted, reported; last write per key wins.
@Suite("Agent settings over MQTT", .serialized)
struct AgentConfigTests {
    @Test func aBulkSetIsAppliedPersistedReportedAndItsRetainedCopyDeleted() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-roll", "1"])
        let p = agent.prefix
        await observer.waitFor(p + "/config")
        try observer.publish(p + "/config/set", #"{"level_tolerance": "35 mm/m", "angle_unit": "percent"}"#, retain: true)
        let applied = try #require(await observer.waitForJSON(p + "/event") { $0["type"] as? String == "config_applied" })
        let changes = try #require(applied["changes"] as? [String: Any])
        #expect(changes["angle_unit"] as? String == "percent")
        let config = try #require(await observer.waitForJSON(p + "/config") { $0["angle_unit"] as? String == "percent" })
        // Thresholds are reported in degrees whatever unit they were given in.
        #expect(abs((config["level_tolerance"] as? Double ?? 0) - atan(0.035) * 180 / .pi) < 1e-6)
        await observer.waitForJSON(p + "/state") { $0["unit"] as? String == "percent" && $0["level"] as? Bool == true }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await Observer.retained(port: broker.port, filter: p + "/config/set").isEmpty,
                "the retained desired config is deleted once applied")
        let persisted = try String(contentsOfFile: agent.stateDirectory + "/settings.json", encoding: .utf8)
        #expect(persisted.contains("percent"))
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func oneBadKeyRejectsTheWholeMessageAndChangesNothing() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url)
        let p = agent.prefix
        _ = try #require(await observer.waitForJSON(p + "/config"))
        // Compared as bytes: P/config is compact with sorted keys, and Foundation on Linux does not
        // compare a JSON boolean (vibration) read twice as equal inside an NSDictionary.
        let before = try #require(observer.messages(on: p + "/config").last?.payload)
        for (payload, key) in [(#"{"level_tolerance": 0.5, "bogus": 1}"#, "bogus"),
                               (#"{"level_tolerance": "NaN"}"#, "level_tolerance"),
                               (#"{"heartbeat_s": true}"#, "heartbeat_s"),
                               ("not json", nil as String?)] {
            let count = observer.events("config_rejected", prefix: p).count
            try observer.publish(p + "/config/set", payload)
            let rejected = try #require(await observer.waitForJSON(p + "/event") { _ in
                observer.events("config_rejected", prefix: p).count > count
            })
            let event = observer.events("config_rejected", prefix: p).last ?? rejected
            if let key { #expect(event["key"] as? String == key, "\(event)") }
            #expect((event["reason"] as? String)?.isEmpty == false)
            #expect(event.keys.contains("value"))
        }
        try observer.publish(p + "/config/level_tolerance/set", "-3")
        await observer.waitForJSON(p + "/event") { $0["type"] as? String == "config_rejected" && $0["key"] as? String == "level_tolerance" }
        try await Task.sleep(for: .milliseconds(200))
        let after = try #require(observer.messages(on: p + "/config").last?.payload)
        #expect(after == before, "\(String(decoding: after, as: UTF8.self))")
        #expect(observer.events("config_applied", prefix: p).isEmpty)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aPerKeySetTakesARawValue() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-roll", "2"])
        let p = agent.prefix
        await observer.waitFor(p + "/config")
        try observer.publish(p + "/config/angle_unit/set", "mm_per_m", retain: true)
        let state = await observer.waitForJSON(p + "/state") { $0["unit"] as? String == "mm_per_m" }
        #expect(abs(((state?["roll"] as? Double) ?? 0) - 1000 * tan(2 * Double.pi / 180)) < 1)
        try observer.publish(p + "/config/level_tolerance/set", "0.2%")
        await observer.waitForJSON(p + "/config") { abs((($0["level_tolerance"] as? Double) ?? 0) - atan(0.002) * 180 / .pi) < 1e-6 }
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func lastWritePerKeyWinsAcrossAgentAndBrokerRestarts() async throws {
        let broker = try MosquittoBroker.start(.init(persistence: true))
        let observer = try await Observer(port: broker.port)
        let first = try AgentProcess(brokerURL: broker.url)
        let p = first.prefix
        await observer.waitFor(p + "/config")
        try observer.publish(p + "/config/set", #"{"level_tolerance": 0.2, "alarm_threshold": 7}"#, retain: true)
        await observer.waitForJSON(p + "/config") { $0["level_tolerance"] as? Double == 0.2 }
        try observer.publish(p + "/config/level_tolerance/set", "0.3", retain: true)
        await observer.waitForJSON(p + "/config") { $0["level_tolerance"] as? Double == 0.3 }
        try await Task.sleep(for: .milliseconds(300))

        // Agent down, broker restarted, agent up: the older bulk value must not come back.
        #expect(await first.send(SIGTERM)?.status == 0)
        try broker.restart()
        let observerAgain = try await Observer(port: broker.port)
        let second = try AgentProcess(brokerURL: broker.url, deviceID: first.deviceID,
                                      stateDirectory: first.stateDirectory)
        let config = try #require(await observerAgain.waitForJSON(p + "/config") { _ in true })
        #expect(config["level_tolerance"] as? Double == 0.3)
        #expect(config["alarm_threshold"] as? Double == 7)
        try await Task.sleep(for: .milliseconds(500))
        #expect(observerAgain.messages(on: p + "/config").compactMap(json).allSatisfy { $0["level_tolerance"] as? Double == 0.3 })
        #expect(await second.send(SIGTERM)?.status == 0)
        await observer.stop()
        await observerAgain.stop()
    }
}
