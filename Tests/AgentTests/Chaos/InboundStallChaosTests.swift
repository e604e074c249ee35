import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make chaos`, the inbound stall made to happen: the agent announces libmosquitto's
/// old Receive Maximum of 20 and probes after 2 s of silence, and messages over 1 MiB at QoS 1/2
/// (which mosquitto drops for it, never giving back their units) stall its inbound path. The
/// probe must find each stall, say so once, and reconnect keeping the session, so that every
/// config write and request the broker held is delivered. One summary line each.
@Suite("Chaos: inbound stall", .serialized, .enabled(if: ChaosEnvironment.chaosEnabled))
struct InboundStallChaosTests {
    static let yaml = """
        mqtt:
          receive_maximum: 20
          inbound_probe_s: 2
        """
    static let receiveMaximum = 20
    /// How long a write may take from sent to applied, stall or not.
    static let applyLimit = 60.0

    @Test func oversizeMessagesStallAReceiveMaximumOf20AndTheProbeRepairsEachStall() async throws {
        var report = ScenarioReport("inbound stall")
        let run = try await StallRun.start(yaml: Self.yaml)
        let p = run.agent.prefix
        // Each round: 36 oversize messages, 3.6 s, every topic kind at QoS 0, 1 and 2 in turn, so 24
        // at QoS 1/2, more than the 20 units: a stall. Fewer than 20 are left held by the broker
        // when the probe's reconnect comes, so the new connection has units to spare. A control
        // write every sixth message, then for 8 s a write every 0.5 s and a request every second,
        // through the stall and after its repair.
        let rounds = 3, burst = 36
        for round in 0..<rounds {
            for index in 0..<burst {
                try run.publish(OversizeTraffic.message(round * burst + index, prefix: p))
                if index % 6 == 5 { try run.publish(run.controls.next()) }
                try await Task.sleep(for: .milliseconds(100))
            }
            for step in 0..<16 {
                try run.publish(run.controls.next())
                if step % 2 == 0 { try run.request() }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        try await run.controls.waitUntilApplied(run.observer, timeout: Self.applyLimit)
        try await run.waitForReplies(timeout: 20)
        await run.check(&report, oversize: run.oversize, expectingStalls: 1, applyLimit: Self.applyLimit)
        report.print()
        await run.observer.stop()
    }

    /// A burst of more than twice the Receive Maximum: the first 20 stall the path, and the
    /// broker still holds more than 20 when the probe reconnects, so the new connection stalls at
    /// once too. The unanswered check of the repair reconnects again, each round draining 20,
    /// until the held writes and the request come through: one stall, repaired in rounds.
    @Test func aBurstOverTwiceTheReceiveMaximumIsRepairedInRounds() async throws {
        var report = ScenarioReport("inbound stall, burst over twice the receive maximum")
        let run = try await StallRun.start(yaml: Self.yaml)
        let p = run.agent.prefix
        for index in 0..<(3 * Self.receiveMaximum) {
            try run.publish(OversizeTraffic.message(index, prefix: p, qos1or2Only: true))
        }
        for _ in 0..<10 {
            try run.publish(run.controls.next())
            try await Task.sleep(for: .seconds(1))
        }
        try run.request()
        try await run.controls.waitUntilApplied(run.observer, timeout: Self.applyLimit)
        try await run.waitForReplies(timeout: 20)
        await run.check(&report, oversize: run.oversize, expectingStalls: 1, applyLimit: Self.applyLimit)
        let rounds = InboundPath.lines(run.agent.stderr, containing: "still stalled after reconnecting")
        report.figure("\(rounds) further rounds")
        report.check(rounds >= 1, "the repair took more than one round", "\(rounds) further rounds")
        report.print()
        await run.observer.stop()
    }
}

/// One agent on its own broker with an observer, the control writes and the requests sent.
final class StallRun {
    let broker: MosquittoBroker
    let observer: Observer
    let agent: AgentProcess
    var controls: ControlWrites
    private(set) var oversize = 0
    private(set) var requests: [String] = []

    private init(broker: MosquittoBroker, observer: Observer, agent: AgentProcess) {
        self.broker = broker
        self.observer = observer
        self.agent = agent
        controls = ControlWrites(prefix: agent.prefix)
    }

    /// Started and warm: connected, the first health and config out.
    static func start(yaml: String) async throws -> StallRun {
        let broker = try MosquittoBroker.start()
        // The observer too is dropped the oversize messages: with a large Receive Maximum, it goes on listening.
        let observer = try await Observer(port: broker.port, filter: "#", maximumPacketSize: OversizeTraffic.maximumPacketSize,
                                          receiveMaximum: 65_535)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: yaml)
        await observer.waitFor(agent.prefix + "/health", timeout: 30)
        await observer.waitFor(agent.prefix + "/config")
        return StallRun(broker: broker, observer: observer, agent: agent)
    }

    func publish(_ message: HostileMessage) throws {
        if case .oversize = message.kind { oversize += 1 }
        try observer.client.publish(message.topic, payload: message.payload, qos: message.qos, retain: false,
                                    properties: MQTTPublishProperties(responseTopic: message.responseTopic,
                                                                      correlationData: message.correlationData))
    }

    /// A `convert` request stamped `sent_at` now, answered on a topic of its own: held through a
    /// stall of seconds, it must still be answered, and not `stale` (30 s).
    func request() throws {
        let id = "stall-\(requests.count)"
        requests.append(id)
        let body = String(format: "{\"value\": 12, \"from\": \"in\", \"to\": \"cm\", \"sent_at\": %.3f}",
                          Date().timeIntervalSince1970)
        try observer.client.publish(agent.prefix + "/request/convert", payload: Array(body.utf8), qos: .atLeastOnce,
                                    retain: false, properties: MQTTPublishProperties(
                                        responseTopic: "chaos/stall-replies/" + id, correlationData: Array(id.utf8)))
    }

    /// The replies to ``requests``, by id.
    var replies: [String: [MQTTMessage]] {
        HostilePayloadTests.replies(observer.messages.filter { $0.topic.hasPrefix("chaos/stall-replies/") },
                                    requestPrefix: agent.prefix + "/request/")
    }

    func waitForReplies(timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while requests.contains(where: { replies[$0] == nil }) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The checks and figures both scenarios share.
    func check(_ report: inout ScenarioReport, oversize: Int, expectingStalls minimum: Int, applyLimit: Double) async {
        let control = controls.outcome(observer)
        // A deaf agent answers no republish: then the last health it sent says what it knew.
        let fresh = await OutageChaosTests.freshHealth(observer, prefix: agent.prefix)
        let health = fresh ?? observer.messages(on: agent.prefix + "/health").last.flatMap(json)
        let stalls = health?["inbound_stalls"] as? Int ?? -1
        let reconnects = health?["reconnects"] as? Int ?? -1
        let log = agent.stderr
        let warnings = InboundPath.lines(log, containing: InboundPath.stallWarning)
        let gaveUp = InboundPath.lines(log, containing: InboundPath.probeUnanswered)
        let resumed = InboundPath.lines(log, containing: "session resumed")
        let drops = InboundPath.brokerDrops(broker, clientID: "plumb-" + agent.deviceID)
        let replies = replies
        let unanswered = requests.filter { replies[$0] == nil }, repeated = requests.filter { (replies[$0]?.count ?? 0) > 1 }
        let stale = requests.filter { id in replies[id]?.contains { json($0)?["code"] as? String == "stale" } ?? false }
        report.figure("\(oversize) oversize sent, \(drops) dropped for the agent by the broker; inbound_stalls \(stalls)"
            + (fresh == nil ? " (in its last health: no reply to republish)" : "")
            + ", \(warnings) stall warnings, \(gaveUp) probe given up, \(reconnects) reconnects (\(resumed) resuming the session)")
        report.figure("\(controls.sent.count) control writes, \(controls.sent.count - control.missing.count) applied"
            + " (\(control.repeated.count) twice), slowest " + String(format: "%.1f s", control.slowest))
        report.figure("\(requests.count) requests, \(unanswered.count) unanswered, \(repeated.count) answered twice,"
            + " \(stale.count) stale")
        report.check(stalls >= minimum, "the oversize messages stalled the agent and the probe found it", "inbound_stalls \(stalls)")
        report.check(warnings == stalls, "exactly one warning per stall", "\(warnings) warnings, \(stalls) stalls")
        report.check(gaveUp == 0, "the probe never gave up")
        report.check(resumed >= stalls, "each repair kept the session", "\(resumed) resumed")
        report.check(control.missing.isEmpty, "every control write applied", "missing \(control.missing.prefix(5))")
        report.check(control.repeated.isEmpty, "none applied twice", "repeated \(control.repeated.prefix(5))")
        report.check(control.slowest <= applyLimit, "each applied within \(Int(applyLimit)) s",
                     String(format: "slowest %.1f s", control.slowest))
        report.check(unanswered.isEmpty && repeated.isEmpty, "every request answered exactly once",
                     "unanswered \(unanswered.prefix(3)), repeated \(repeated.prefix(3))")
        report.check(stale.isEmpty, "no held request answered stale")
        report.check(LogForgery.problems(in: log).isEmpty, "log clean")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
    }
}
