import BrokerHarness
import Foundation
import MQTT
import Testing

/// `mqtt.brokers` with two real mosquittos on loopback: the agent moves to the second when the
/// first goes away, comes back to the first when it returns, and leaves `offline` retained on the
/// broker it leaves, so no broker's `P/status` says `online` for an agent that is elsewhere.
@Suite("Broker failover over two real brokers", .serialized)
struct FailoverOverBrokerTests {
    static func yaml(_ first: MosquittoBroker, _ second: MosquittoBroker, failback: Int) -> String {
        "mqtt:\n  brokers: [\(first.url), \(second.url)]\n  failback_s: \(failback)\n"
    }

    @Test func theAgentFailsOverToTheSecondBrokerAndBackToTheFirst() async throws {
        let first = try MosquittoBroker.start(.init(persistence: true))
        let second = try MosquittoBroker.start()
        let onSecond = try await Observer(port: second.port)
        let failback = 5
        let agent = try AgentProcess(brokerURL: nil, yaml: Self.yaml(first, second, failback: failback))
        let status = agent.prefix + "/status"
        let onFirst = try await Observer(port: first.port)
        #expect(await onFirst.waitFor(status, timeout: 20) { $0.payloadString == "online" } != nil)
        #expect(onSecond.messages(on: status).isEmpty, "nothing on the second while the first works")

        // The first goes away: the agent is on the second within the backoff (1 s after a loss).
        let stopped = Date()
        first.stop()
        #expect(await onSecond.waitFor(status, timeout: 10) { $0.payloadString == "online" } != nil)
        let failedOver = Date().timeIntervalSince(stopped)
        let health = await onSecond.waitForJSON(agent.prefix + "/health", timeout: 10) {
            $0["broker"] as? String == "127.0.0.1:\(second.port)"
        }
        #expect(health != nil, "P/health names the broker it is on")
        #expect(await agent.waitForLog("switched broker: now on 127.0.0.1:\(second.port)"), "\(agent.stderr)")

        // The first comes back (with its retained `online` from before): the agent returns within
        // failback_s and the backoff, and the second is left saying `offline`.
        let restarted = Date()
        try first.restart()
        let offlineCount = onSecond.messages(on: status).count
        #expect(await onSecond.waitFor(status, after: offlineCount, timeout: Double(failback) + 15) {
            $0.payloadString == "offline"
        } != nil)
        let failedBack = Date().timeIntervalSince(restarted)
        let backOnFirst = try await Observer(port: first.port)
        #expect(await backOnFirst.waitForJSON(agent.prefix + "/health", timeout: 10) {
            $0["broker"] as? String == "127.0.0.1:\(first.port)"
        } != nil, "a health message after the failback, from the first")
        #expect(try await Observer.retained(port: second.port, filter: status).map(\.payloadString) == ["offline"])
        #expect(try await Observer.retained(port: first.port, filter: status).map(\.payloadString) == ["online"])
        #expect(await agent.waitForLog("switched broker: now on 127.0.0.1:\(first.port)"), "\(agent.stderr)")
        print("failover: on the second broker \(String(format: "%.2f", failedOver)) s after the first stopped;"
            + " back on the first \(String(format: "%.2f", failedBack)) s after it restarted (failback_s \(failback))")

        #expect(await agent.send(SIGTERM)?.status == 0)
        #expect(try await Observer.retained(port: first.port, filter: status).map(\.payloadString) == ["offline"])
        await onFirst.stop()
        await onSecond.stop()
        await backOnFirst.stop()
    }

    @Test func anAgentThatStartsWhileTheFirstBrokerIsDownUsesTheSecond() async throws {
        let first = try MosquittoBroker.start()
        let second = try MosquittoBroker.start()
        first.stop()
        let onSecond = try await Observer(port: second.port)
        let agent = try AgentProcess(brokerURL: nil, yaml: Self.yaml(first, second, failback: 60))
        #expect(await onSecond.waitFor(agent.prefix + "/status", timeout: 15) { $0.payloadString == "online" } != nil)
        #expect(await agent.waitForLog("cannot reach the broker"), "the failed attempt on the first is logged")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await onSecond.stop()
    }
}
