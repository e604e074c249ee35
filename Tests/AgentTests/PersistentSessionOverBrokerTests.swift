import BrokerHarness
import Foundation
import MQTT
import Testing

/// The agent's persistent session (`mqtt.session_expiry_s`): desired-config writes made while it
/// is away (killed, or cut off) are kept by the broker and applied at its return in the order they
/// were written, retained or not, and the retained ones are still cleared once applied.
@Suite("Persistent sessions over a real broker", .serialized)
struct PersistentSessionOverBrokerTests {
    /// Three writes of one key, per-key topic first: its retained copy then sorts before the bulk
    /// topic's in mosquitto's retained tree, so a clean session (which gets only the retained
    /// copies, in the broker's topic order) would apply 0.4 before 0.2 and end on 0.2.
    static func writes(_ prefix: String) -> [(topic: String, payload: String, tolerance: Double)] {
        [(prefix + "/config/level_tolerance/set", "0.3", 0.3),
         (prefix + "/config/set", #"{"level_tolerance": 0.2}"#, 0.2),
         (prefix + "/config/level_tolerance/set", "0.4", 0.4)]
    }

    /// Runs the agent once (so the broker has its session), kills it, makes the writes while it is
    /// away, and starts it again on the same state: returns the tolerances it applied, in order,
    /// and the broker.
    static func appliedAfterRestart(retained: Bool, yaml: String = "",
                                    version: MQTTProtocolVersion? = nil) async throws -> (applied: [Double], final: Double?,
                                                                                           broker: MosquittoBroker, prefix: String) {
        let broker = try MosquittoBroker.start()
        let deviceID = "ps" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let prefix = "plumb/" + deviceID
        let state = temporaryPath("ps")
        let observer = try await Observer(port: broker.port, version: version)
        let first = try AgentProcess(brokerURL: broker.url, deviceID: deviceID, yaml: yaml, stateDirectory: state)
        #expect(await observer.waitFor(prefix + "/status", timeout: 20) { $0.payloadString == "online" } != nil)
        await first.send(SIGKILL)
        #expect(await observer.waitFor(prefix + "/status") { $0.payloadString == "offline" } != nil, "the will")

        for write in writes(prefix) { try observer.publish(write.topic, write.payload, retain: retained) }
        try await Task.sleep(for: .milliseconds(300))
        let before = observer.messages.count
        let second = try AgentProcess(brokerURL: broker.url, deviceID: deviceID, yaml: yaml, stateDirectory: state)
        await observer.waitFor(prefix + "/status", after: before, timeout: 20) { $0.payloadString == "online" }
        // Every write has been handled once the agent has published the third config (or, in the
        // clean case, after a couple of seconds).
        let deadline = Date().addingTimeInterval(5)
        var applied: [Double] = []
        while Date() < deadline {
            applied = observer.messages.dropFirst(before).filter { $0.topic == prefix + "/event" }.compactMap(json)
                .filter { $0["type"] as? String == "config_applied" }
                .compactMap { ($0["changes"] as? [String: Any])?["level_tolerance"] as? Double }
            if applied.count >= 3 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(500))
        let config = observer.messages.filter { $0.topic == prefix + "/config" }.last.flatMap(json)
        #expect(await second.send(SIGTERM)?.status == 0)
        await observer.stop()
        return (applied, config?["level_tolerance"] as? Double, broker, prefix)
    }

    @Test func liveWritesMadeWhileTheAgentIsAwayAreAppliedInWriteOrder() async throws {
        let run = try await Self.appliedAfterRestart(retained: false)
        #expect(run.applied == [0.3, 0.2, 0.4])
        #expect(run.final == 0.4)
    }

    @Test func retainedWritesMadeWhileTheAgentIsAwayAreAppliedInWriteOrderAndCleared() async throws {
        let run = try await Self.appliedAfterRestart(retained: true)
        #expect(run.applied == [0.3, 0.2, 0.4], "queued in write order, and no second, retained copy after them")
        #expect(run.final == 0.4, "the last write wins")
        let left = try await Observer.retained(port: run.broker.port, filter: run.prefix + "/config/+/set")
            + Observer.retained(port: run.broker.port, filter: run.prefix + "/config/set")
        #expect(left.isEmpty, "applied desired config is cleared: \(left.map(\.topic))")
    }

    @Test func withoutAPersistentSessionLiveWritesMadeWhileAwayAreLost() async throws {
        let run = try await Self.appliedAfterRestart(retained: false, yaml: "mqtt:\n  session_expiry_s: 0\n")
        #expect(run.applied.isEmpty, "session_expiry_s 0 is a clean session: nothing was kept")
    }
}
