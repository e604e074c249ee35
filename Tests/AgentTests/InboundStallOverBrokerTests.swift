import BrokerHarness
import Foundation
import MQTT
import Testing

/// The inbound stall over a real mosquitto: messages just over the agent's 1 MiB maximum packet size,
/// which the broker drops, must not leave the agent deaf to QoS 1/2 config writes, commands and
/// requests; and when something does stall the inbound path, the probe finds and repairs it.
@Suite("Inbound stall over a real broker", .serialized)
struct InboundStallOverBrokerTests {
    /// A payload one byte over 1 MiB: with its header, larger than the agent's maximum packet size.
    static let oversizeFile: String = {
        let path = temporaryPath("oversize")
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(ascii: "x"), count: 1024 * 1024 + 1))
        return path
    }()

    /// One topic of each kind the agent subscribes to.
    static func subscribedKinds(_ prefix: String) -> [String] {
        [prefix + "/config/set", prefix + "/config/level_tolerance/set", prefix + "/command/zero",
         prefix + "/request/convert"]
    }

    /// Sends `count` oversize messages at QoS 1 and `count` at QoS 2 to every kind of topic.
    static func flood(port: Int, prefix: String, count: Int) async throws {
        for topic in subscribedKinds(prefix) {
            for qos in [1, 2] {
                try await MosquittoClients.publish(port: port, topic: topic, file: oversizeFile, qos: qos, times: count)
            }
        }
    }

    /// The messages mosquitto dropped for being over the agent's maximum packet size.
    static func drops(_ broker: MosquittoBroker) -> Int {
        broker.logContents().components(separatedBy: "Dropping too large outgoing PUBLISH").count - 1
    }

    /// A QoS 1 config write is applied, and a QoS 1 request answered, as fast as without the flood.
    static func checkStillListening(_ agent: AgentProcess, events: Observer, replies: Observer, tolerance: Double,
                                    transaction: String) async throws {
        let started = Date()
        try events.publish(agent.prefix + "/config/set", #"{"level_tolerance": \#(tolerance)}"#)
        let applied = await events.waitForJSON(agent.prefix + "/event", timeout: 5) { event in
            event["type"] as? String == "config_applied"
                && (event["changes"] as? [String: Any])?["level_tolerance"] as? Double == tolerance
        }
        #expect(applied != nil, "the QoS 1 write after the flood was not applied within 5 s")
        try replies.publish(agent.prefix + "/request/convert",
                            #"{"value": 1, "from": "in", "to": "mm", "transaction": "\#(transaction)"}"#)
        let reply = await replies.waitFor(agent.prefix + "/response/convert", timeout: 5) {
            $0.payloadString?.contains(transaction) ?? false
        }
        #expect(reply?.payloadString?.contains(#""status":"ok""#) == true)
        print("inbound after the flood: write applied and request answered in "
              + String(format: "%.2f s", Date().timeIntervalSince(started)))
    }

    @Test func twentyThenTwoHundredOversizeMessagesOnEveryTopicKindLeaveTheAgentListening() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        // Two narrow observers: one on `P/#` would take the flood itself.
        let events = try await Observer(port: broker.port, filter: agent.prefix + "/event")
        let replies = try await Observer(port: broker.port, filter: agent.prefix + "/response/+")

        try await Self.flood(port: broker.port, prefix: agent.prefix, count: 20)
        #expect(await broker.waitForLog(containing: "Dropping too large outgoing PUBLISH"),
                "the broker never dropped a message for the agent: the test floods nothing")
        #expect(Self.drops(broker) >= 4 * 2 * 20, "every oversize message reached the agent's queue and was dropped")
        try await Self.checkStillListening(agent, events: events, replies: replies, tolerance: 0.31, transaction: "after-20")

        try await Self.flood(port: broker.port, prefix: agent.prefix, count: 100)
        #expect(Self.drops(broker) >= 4 * 2 * (20 + 100))
        try await Self.checkStillListening(agent, events: events, replies: replies, tolerance: 0.32,
                                           transaction: "after-200")
        // Nothing stalled, so nothing needed repairing.
        #expect(!agent.stderr.contains("stopped delivering"), "\(agent.stderr)")
        await events.stop()
        await replies.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    /// With the Receive Maximum of libmosquitto's default (20), the flood does stall the path: the
    /// probe finds it, the reconnect repairs it, and what the broker held is handled once, in
    /// order: the older write loses to the newer one, the stale request is answered `stale`.
    @Test func aStallIsFoundAndRepairedAndWhatWasHeldIsHandledOnceInOrder() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let agent = try AgentProcess(brokerURL: broker.url,
                                     yaml: "mqtt:\n  receive_maximum: 20\n  inbound_probe_s: 3\n")
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        let p = agent.prefix
        let events = try await Observer(port: broker.port, filter: p + "/event")
        let replies = try await Observer(port: broker.port, filter: p + "/response/+")
        let health = try await Observer(port: broker.port, filter: p + "/health")

        try await MosquittoClients.publish(port: broker.port, topic: p + "/request/convert", file: Self.oversizeFile,
                                           qos: 1, times: 20)
        // Held now: an older QoS 1 write, a stale and a fresh request. The newer write goes at QoS 0
        // and passes them; stamped, it still wins once the older arrives.
        let now = Date().timeIntervalSince1970
        try events.publish(p + "/config/set", #"{"level_tolerance": 0.2, "written_at": \#(now - 1)}"#)
        try await MosquittoClients.publish(port: broker.port, topic: p + "/config/set",
                                           message: #"{"level_tolerance": 0.3, "written_at": \#(now)}"#, qos: 0)
        try replies.publish(p + "/request/convert",
                            #"{"value": 1, "from": "in", "to": "mm", "transaction": "old", "sent_at": \#(now - 120)}"#)
        try replies.publish(p + "/request/convert",
                            #"{"value": 1, "from": "in", "to": "mm", "transaction": "fresh", "sent_at": \#(now)}"#)

        #expect(await agent.waitForLog("stopped delivering", timeout: 20), "\(agent.stderr)")
        let rejected = await events.waitForJSON(p + "/event", timeout: 15) { $0["type"] as? String == "config_rejected" }
        #expect((rejected?["reason"] as? String)?.contains("written later") == true, "\(rejected ?? [:])")
        let stale = await replies.waitFor(p + "/response/convert", timeout: 15) { $0.payloadString?.contains("\"old\"") ?? false }
        #expect(stale?.payloadString?.contains(#""code":"stale""#) == true, "\(stale?.payloadString ?? "")")
        let fresh = await replies.waitFor(p + "/response/convert", timeout: 15) { $0.payloadString?.contains("\"fresh\"") ?? false }
        #expect(fresh?.payloadString?.contains(#""status":"ok""#) == true)
        let counted = await health.waitForJSON(p + "/health", timeout: 15) { ($0["inbound_stalls"] as? Int ?? 0) >= 1 }
        #expect(counted?["inbound_stalls"] as? Int == 1)

        // Once applied each: the newer write (live) and no second copy of anything.
        try await Task.sleep(for: .seconds(2))
        let applied = events.events("config_applied", prefix: p)
        #expect(applied.count == 1, "\(applied)")
        #expect((applied.first?["changes"] as? [String: Any])?["level_tolerance"] as? Double == 0.3)
        #expect(replies.messages(on: p + "/response/convert").count == 2)
        #expect(agent.stderr.components(separatedBy: "stopped delivering").count - 1 == 1, "logged once: \(agent.stderr)")
        #expect(!agent.stderr.contains("unanswered on a fresh connection"), "\(agent.stderr)")
        let config = try #require(await Observer.retained(port: broker.port, filter: p + "/config").first.flatMap(json))
        #expect(config["level_tolerance"] as? Double == 0.3)
        for observer in [events, replies, health] { await observer.stop() }
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func aStrayConfigTopicPublishedRetainedWhileTheAgentListensIsCleared() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        let events = try await Observer(port: broker.port, filter: agent.prefix + "/event")
        let stray = agent.prefix + "/config/a/b/set"
        try await MosquittoClients.publish(port: broker.port, topic: stray, message: "0.5", retain: true, qos: 1)
        let rejected = await events.waitForJSON(agent.prefix + "/event") { $0["type"] as? String == "config_rejected" }
        #expect(rejected != nil)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Observer.retained(port: broker.port, filter: stray).isEmpty, "the live stray stayed retained")
        // A stray sent without the retain flag is refused and costs no clear: nothing was kept.
        let watcher = try await Observer(port: broker.port, filter: stray)
        let refusals = events.events("config_rejected", prefix: agent.prefix).count
        try await MosquittoClients.publish(port: broker.port, topic: stray, message: "0.6", qos: 1)
        _ = await events.waitForJSON(agent.prefix + "/event") { _ in
            events.events("config_rejected", prefix: agent.prefix).count > refusals
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(watcher.messages.map { $0.payloadString ?? "" } == ["0.6"], "an empty clear followed a passing stray")
        await watcher.stop()
        await events.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
    }
}
