import BrokerHarness
import Foundation
import MQTT
import PlumbSync
import Testing

/// `plumb run` against RabbitMQ's MQTT plugin (Debian 12's rabbitmq-server 3.10: MQTT 3.1.1
/// only) instead of mosquitto: status, state, config, requests and the will, and the RabbitMQ
/// behaviours the "Brokers other than mosquitto" (docs/guides/brokers-and-failover.md) describes.
///
/// Skipped, with the reason printed, when RabbitMQ is not installed, unless
/// `PLUMB_REQUIRE_RABBITMQ=1` (what `make test-interop` sets): then its absence fails the test.
@Suite("Interoperability with RabbitMQ's MQTT plugin", .serialized)
struct RabbitMQInteropTests {
    static let required = ProcessInfo.processInfo.environment["PLUMB_REQUIRE_RABBITMQ"] == "1"
    static let runs = RabbitMQBroker.isInstalled || required

    /// One node for the whole test: Erlang takes seconds to boot, more on a busy machine.
    @Test(.enabled(if: runs, Comment(rawValue: RabbitMQBroker.notInstalledReason)), .timeLimit(.minutes(5)))
    func theAgentWorksAgainstRabbitMQ() async throws {
        let broker = try await offThePool { try RabbitMQBroker.start() }
        print("RabbitMQ node \(broker.nodeName) listening for MQTT on \(broker.url) after "
            + String(format: "%.1f", broker.startupSeconds) + " s")
        do {
            try await brokerBehaviours(broker)
            try await theAgentsContract(broker)
            try await oversizeMessagesAndTheProbe(broker)
        } catch {
            await offThePool { broker.stop() }
            throw error
        }
        // The stop blocks (RabbitMQ takes a second or two): not on the cooperative pool.
        await offThePool { broker.stop() }
        #expect(!broker.isRunning)
    }

    /// What RabbitMQ 3.10 does differently from mosquitto, checked with our own client: the
    /// README's list is only as good as this.
    private func brokerBehaviours(_ broker: RabbitMQBroker) async throws {
        let topic = "interop/" + UUID().uuidString.prefix(8)
        let writer = try await Observer(port: broker.port, filter: "interop-none", version: .v311)
        try writer.publish(topic + "/kept", "kept", retain: true)
        try await Task.sleep(for: .milliseconds(300))
        // Retained messages reach a subscription to their exact topic, not a wildcard one.
        #expect(try await retained(broker, filter: topic + "/kept").map(\.payloadString) == ["kept"])
        #expect(try await retained(broker, filter: topic + "/#").isEmpty,
                "RabbitMQ now sends retained messages to wildcard subscriptions: update docs/guides/brokers-and-failover.md")
        #expect(try await retained(broker, filter: topic + "/+").isEmpty)
        // An empty retained message deletes the retained one, as MQTT says.
        try writer.publish(topic + "/kept", "", retain: true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await retained(broker, filter: topic + "/kept").isEmpty)
        // A `.` in a topic is AMQP's level separator inside RabbitMQ: it comes out as `/`.
        let watcher = try await Observer(port: broker.port, filter: topic + "/#", version: .v311)
        // The Observer returns at CONNACK; RabbitMQ binds the subscription's queue a moment later.
        try await Task.sleep(for: .seconds(1))
        try writer.publish(topic + "/a.b", "dotted")
        let dotted = await watcher.waitFor(topic + "/a/b")
        #expect(dotted?.payloadString == "dotted")
        #expect(watcher.messages(on: topic + "/a.b").isEmpty)
        // Large messages pass: a 1.2 MB ruler reply must fit.
        let large = String(repeating: "r", count: 3_000_000)
        try writer.publish(topic + "/large", large)
        #expect(await watcher.waitFor(topic + "/large")?.payload.count == large.utf8.count)
        // MQTT 5 is not spoken: our client falls back to 3.1.1 by itself.
        let modern = MosquittoClient(configuration: MQTTConfiguration(
            host: broker.host, port: broker.port, clientID: "interop-v5-" + UUID().uuidString.prefix(8),
            protocolVersion: .v5))
        let connection = Locked<MQTTConnection?>(nil)
        let events = modern.events
        Task(executorPreference: HarnessExecutor.shared) {
            for await event in events {
                if case .connected(let connected) = event { connection.withLock { $0 = connected } }
            }
        }
        try modern.start()
        await withTaskExecutorPreference(HarnessExecutor.shared) {
            let deadline = Date().addingTimeInterval(20)
            while connection.withLock({ $0 }) == nil && Date() < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(connection.withLock { $0 }?.protocolVersion == .v311,
                "an MQTT 5 client must fall back to 3.1.1 on RabbitMQ 3.10:\n\(broker.logContents().suffix(3000))")
        await modern.disconnect()
        await watcher.stop()
        await writer.stop()
    }

    private func theAgentsContract(_ broker: RabbitMQBroker) async throws {
        let observer = try await Observer(port: broker.port, version: .v311)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-roll", "1"])
        let p = agent.prefix
        #expect(await agent.waitForLog("connected to the broker (MQTT 3.1.1)", timeout: 30), "\(agent.stderr)")
        #expect(!agent.stderr.contains("refused"), "the fallback to 3.1.1 is silent: \(agent.stderr)")

        // Status and state, live and retained (the retained copies only on an exact topic).
        await observer.waitFor(p + "/status") { $0.payloadString == "online" }
        let state = try #require(await observer.waitForJSON(p + "/state"))
        #expect(state["sensor"] as? String == "ok")
        #expect(abs((state["roll"] as? Double ?? 0) - 1) < 0.2, "\(state)")
        await observer.waitForJSON(p + "/config")
        #expect(try await retained(broker, filter: p + "/status").map(\.payloadString) == ["online"])
        #expect(try await retained(broker, filter: p + "/state").count == 1)

        // Config: bulk (retained, so the agent must clear it) and per key, applied and reported.
        try observer.publish(p + "/config/set", #"{"angle_unit": "percent", "level_tolerance": 2}"#, retain: true)
        let applied = try #require(await observer.waitForJSON(p + "/event") { $0["type"] as? String == "config_applied" })
        #expect((applied["changes"] as? [String: Any])?["angle_unit"] as? String == "percent")
        await observer.waitForJSON(p + "/config") { $0["angle_unit"] as? String == "percent" && $0["level_tolerance"] as? Double == 2 }
        await observer.waitForJSON(p + "/state") { $0["unit"] as? String == "percent" && $0["level"] as? Bool == true }
        try observer.publish(p + "/config/length_unit/set", "cm")
        await observer.waitForJSON(p + "/config") { $0["length_unit"] as? String == "cm" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await retained(broker, filter: p + "/config/set").isEmpty,
                "the retained desired config is deleted once applied, on RabbitMQ too")

        // The ruler service: on 3.1.1 the reply goes to P/response/<service>, matched by transaction.
        try observer.publish(p + "/request/convert", #"{"value":12,"from":"in","to":"cm","transaction":"rmq-1"}"#)
        let reply = try #require(await observer.waitForJSON(p + "/response/convert") { $0["transaction"] as? String == "rmq-1" })
        #expect(reply["status"] as? String == "ok")
        #expect((reply["data"] as? [String: Any])?["result"] as? Double == 30.48)

        // The will: kill -9, and RabbitMQ publishes `offline`, retained as the will asks.
        await agent.send(SIGKILL)
        await observer.waitFor(p + "/status", timeout: 15) { $0.payloadString == "offline" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await retained(broker, filter: p + "/status").map(\.payloadString) == ["offline"])

        // Desired config written while the agent is away: the persistent session (a durable queue)
        // keeps both writes, applied at the reconnect in write order and then cleared. The retained
        // copy RabbitMQ sends the exact P/config/set at the resubscribe is cleared, not applied
        // twice: the session brought it already.
        try observer.publish(p + "/config/angle_unit/set", "mm_per_m", retain: true)
        try observer.publish(p + "/config/set", #"{"heartbeat_s": 40}"#, retain: true)
        try await Task.sleep(for: .milliseconds(300))
        let appliedBefore = observer.events("config_applied", prefix: p).count
        let restart = observer.messages.count
        let again = try AgentProcess(brokerURL: broker.url, deviceID: agent.deviceID, arguments: ["--sim-roll", "1"],
                                     stateDirectory: agent.stateDirectory)
        #expect(await again.waitForLog("connected to the broker (MQTT 3.1.1)", timeout: 30), "\(again.stderr)")
        #expect(again.stderr.contains("session resumed"), "\(again.stderr)")
        let reported = try #require(await observer.waitFor(p + "/config", after: restart).flatMap(json))
        #expect(reported["angle_unit"] as? String == "percent", "the settings persisted across the restart")
        await observer.waitForJSON(p + "/config") { $0["angle_unit"] as? String == "mm_per_m" && $0["heartbeat_s"] as? Double == 40 }
        try await Task.sleep(for: .seconds(1))
        #expect(observer.events("config_applied", prefix: p).count == appliedBefore + 2,
                "the writes made while away are applied once each, from the session's queue")
        #expect(try await retained(broker, filter: p + "/config/angle_unit/set").isEmpty, "and cleared")
        #expect(try await retained(broker, filter: p + "/config/set").isEmpty, "and cleared")

        // A clean stop: `offline` published by the agent itself.
        let stopping = observer.messages.count
        #expect(await again.send(SIGTERM)?.status == 0)
        await observer.waitFor(p + "/status", after: stopping) { $0.payloadString == "offline" }
        await observer.stop()
    }

    /// The inbound stall on RabbitMQ: MQTT 3.1.1 announces no maximum packet size, so messages over 1 MiB
    /// reach the agent (refused `too_large`, cut at receipt) instead of being dropped, nothing
    /// stalls, and the inbound probe comes back through RabbitMQ.
    private func oversizeMessagesAndTheProbe(_ broker: RabbitMQBroker) async throws {
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "mqtt:\n  inbound_probe_s: 2\n")
        let p = agent.prefix
        #expect(await agent.waitForLog("connected to the broker (MQTT 3.1.1)", timeout: 30), "\(agent.stderr)")
        let replies = try await Observer(port: broker.port, filter: p + "/response/+", version: .v311)
        let flooder = try await Observer(port: broker.port, filter: "interop-none", version: .v311)
        let oversize = String(repeating: "x", count: 1024 * 1024 + 1)
        for _ in 0..<25 { try flooder.publish(p + "/request/convert", oversize) }
        try flooder.publish(p + "/request/convert", #"{"value":1,"from":"in","to":"mm","transaction":"after"}"#)
        let answered = await replies.waitForJSON(p + "/response/convert", timeout: 30) { $0["transaction"] as? String == "after" }
        #expect(answered?["status"] as? String == "ok")
        #expect(replies.messages(on: p + "/response/convert").filter { $0.payloadString?.contains("too_large") ?? false }.count
            == 25, "every oversize request reached the agent and was refused")
        // Some probes later (2 s of silence each): none unanswered, no stall.
        try await Task.sleep(for: .seconds(6))
        #expect(!agent.stderr.contains("stopped delivering") && !agent.stderr.contains("unanswered"), "\(agent.stderr)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await replies.stop()
        await flooder.stop()
    }

    /// What the broker holds retained for `filter`: a fresh 3.1.1 subscriber's view, a second long.
    private func retained(_ broker: RabbitMQBroker, filter: String) async throws -> [MQTTMessage] {
        let fresh = try await Observer(port: broker.port, filter: filter, version: .v311)
        try await Task.sleep(for: .seconds(1))
        await fresh.stop()
        return fresh.messages.filter(\.retain)
    }
}
