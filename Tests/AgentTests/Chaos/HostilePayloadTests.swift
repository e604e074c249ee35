import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make chaos`, the hostile client: seeded hostile messages at a steady rate, then a flood,
/// against a real broker and the agent on the simulated chip; among them messages over 1 MiB at
/// QoS 0, 1 and 2 on every topic the agent listens to (the broker drops them for the agent, and
/// at a receive maximum of 20 that many at QoS 1/2 would make it deaf) and valid config writes that must all be
/// applied. One summary line.
@Suite("Chaos: hostile payloads", .serialized, .enabled(if: ChaosEnvironment.chaosEnabled))
struct HostilePayloadTests {
    /// The memory the run may leave behind once it settles, and the peak it may reach.
    static let growthLimit = 2 * megabyte
    static let peakLimit = 24 * megabyte
    static var floodMessages: Int { ChaosEnvironment.flood }
    /// About this many oversize messages in the paced run (one every `messages / 250`), and one
    /// in every 50 of the flood.
    static let pacedOversize = 250
    /// A valid control write every this many paced messages (every 2.5 s at 80/s), and a few after the flood.
    static let controlEvery = 200
    static let controlsAfterFlood = 5

    @Test func hostileClientChangesNothingItShouldNotAndMemoryStaysBounded() async throws {
        var report = ScenarioReport("hostile payloads")
        let broker = try MosquittoBroker.start()
        // Dropped like the agent's, so the test runner holds none of the oversize payloads.
        let observer = try await Observer(port: broker.port, filter: "#", maximumPacketSize: OversizeTraffic.maximumPacketSize,
                                          receiveMaximum: 65_535)
        let agent = try AgentProcess(brokerURL: broker.url)
        let p = agent.prefix
        // Warm: connected, sampling, the vibration windows full and the first health out.
        await observer.waitFor(p + "/health", timeout: 30)
        let initialConfig = try #require(await observer.waitForJSON(p + "/config"))
        try await Task.sleep(for: .seconds(5))
        let pid = agent.process.processIdentifier
        let baseline = try #require(ProcessSample(pid: pid))
        let watcher = ProcessWatcher(pid: pid, interval: 0.5)

        var traffic = HostileTraffic(prefix: p, replyPrefix: "chaos/replies/", seed: ChaosEnvironment.seed)
        var controls = ControlWrites(prefix: p)
        var sent: [HostileMessage] = []
        var unsendable = 0, oversize = 0
        func send(_ message: HostileMessage) {
            let properties = MQTTPublishProperties(responseTopic: message.responseTopic,
                                                   correlationData: message.correlationData)
            do {
                try observer.client.publish(message.topic, payload: message.payload, qos: message.qos, retain: false,
                                            properties: properties)
                sent.append(message)
            } catch {
                // A topic the client library refuses (control characters): never reaches the agent.
                unsendable += 1
            }
        }
        func sendOversize() {
            send(OversizeTraffic.message(oversize, prefix: p))
            oversize += 1
        }
        let count = ChaosEnvironment.messages, rate = ChaosEnvironment.rate
        let oversizeEvery = max(1, count / Self.pacedOversize)
        let start = Date()
        for index in 0..<count {
            let due = start.addingTimeInterval(Double(index) / rate).timeIntervalSinceNow
            if due > 0.001 { try await Task.sleep(for: .seconds(due)) }
            send(traffic.next())
            if index % oversizeEvery == oversizeEvery / 2 { sendOversize() }
            if index % Self.controlEvery == Self.controlEvery / 2 { send(controls.next()) }
        }
        let pacedSeconds = Date().timeIntervalSince(start)
        let pacedPeak = ProcessSample(pid: pid)?.peakBytes ?? 0
        for index in 0..<Self.floodMessages {
            send(traffic.flood(index))
            if index % 50 == 25 { sendOversize() }
        }
        // Still listening after it all: a few more writes, behind what the flood left queued.
        for _ in 0..<Self.controlsAfterFlood {
            send(controls.next())
            try await Task.sleep(for: .milliseconds(500))
        }

        // Every request answered: wait until the replies stop coming, at most 60 s.
        let requests = sent.compactMap { message -> (id: String, forbidden: Bool, service: String)? in
            guard case .request(let id, let forbidden) = message.kind else { return nil }
            return (id, forbidden, String(message.topic.dropFirst((p + "/request/").count)))
        }
        let replyDeadline = Date().addingTimeInterval(60)
        var replies: [String: [MQTTMessage]] = [:]
        repeat {
            try await Task.sleep(for: .seconds(1))
            replies = Self.replies(observer.messages, requestPrefix: p + "/request/")
        } while requests.contains(where: { replies[$0.id] == nil }) && Date() < replyDeadline
        try await controls.waitUntilApplied(observer, timeout: 60)
        // Settle, then the figures.
        try await Task.sleep(for: .seconds(15))
        let settled = try #require(ProcessSample(pid: pid))
        watcher.stop()

        report.figure("\(sent.count) sent (\(unsendable) refused by the client library, \(Self.floodMessages) in a flood,"
            + " \(oversize) over 1 MiB at QoS 0/1/2)" + String(format: " at %.0f/s", Double(count) / pacedSeconds))
        report.check(agent.isRunning, "agent alive")

        let unanswered = requests.filter { replies[$0.id] == nil }
        let repeated = requests.filter { (replies[$0.id]?.count ?? 0) > 1 }
        report.figure("\(requests.count) requests, \(unanswered.count) unanswered, \(repeated.count) answered twice")
        report.check(unanswered.isEmpty && repeated.isEmpty, "every request answered exactly once",
                     "unanswered \(unanswered.prefix(3).map(\.id)), repeated \(repeated.prefix(3).map(\.id))")

        let forbidden = requests.filter(\.forbidden)
        let refused = forbidden.filter { request in
            guard let reply = replies[request.id]?.first, reply.topic == p + "/response/" + request.service,
                  let object = json(reply) else { return false }
            return object["code"] as? String == "bad_request" || object["code"] as? String == "busy"
        }
        let leaked = observer.messages.filter { message in
            traffic.forbiddenTopics().contains(message.topic) && (json(message)?["status"] != nil)
        }
        report.figure("\(refused.count)/\(forbidden.count) forbidden response topics refused, \(leaked.count) leaked")
        report.check(refused.count == forbidden.count && leaked.isEmpty, "forbidden response topics refused")

        checkConfig(&report, sent: sent, initial: initialConfig, observer: observer, prefix: p)
        let control = controls.outcome(observer)
        report.figure("\(controls.sent.count) control writes, \(controls.sent.count - control.missing.count) applied"
            + " (\(control.repeated.count) twice), slowest " + String(format: "%.1f s", control.slowest))
        report.check(control.missing.isEmpty && control.repeated.isEmpty, "every control write applied once",
                     "missing \(control.missing.prefix(5)), repeated \(control.repeated.prefix(5))")
        await checkInboundPath(&report, broker: broker, observer: observer, agent: agent, oversize: oversize)

        let problems = LogForgery.problems(in: agent.stderr)
        report.figure("\(agent.stderr.split(separator: "\n").count) log lines, \(problems.count) bad")
        report.check(problems.isEmpty, "log not forged", problems.joined(separator: "; "))

        let growth = settled.residentBytes - baseline.residentBytes
        report.figure("RSS \(megabytes(baseline.residentBytes)) → \(megabytes(settled.residentBytes))"
            + " (\(signedMegabytes(growth)), limit +2 MB), max sampled \(megabytes(watcher.maximumResident)),"
            + " peak VmHWM \(megabytes(settled.peakBytes)) (limit 24 MB; \(megabytes(pacedPeak)) before the flood)")
        report.check(growth <= Self.growthLimit, "RSS growth after settle ≤ 2 MB")
        report.check(settled.peakBytes <= Self.peakLimit, "peak ≤ 24 MB")
        report.figure("fds \(baseline.openFiles) → \(settled.openFiles)")
        report.check(settled.openFiles <= baseline.openFiles + 1, "fd count steady")

        let exit = await agent.send(SIGTERM)
        report.check(exit?.status == 0, "clean exit after the run")
        report.print()
        await observer.stop()
    }

    /// The probe check: the oversize messages reached the broker and were dropped for the agent,
    /// and at the default Receive Maximum (65535) they never stalled it.
    private func checkInboundPath(_ report: inout ScenarioReport, broker: MosquittoBroker, observer: Observer,
                                  agent: AgentProcess, oversize: Int) async {
        let health = await OutageChaosTests.freshHealth(observer, prefix: agent.prefix)
        let stalls = health?["inbound_stalls"] as? Int ?? -1
        let warnings = InboundPath.lines(agent.stderr, containing: InboundPath.stallWarning)
        let drops = InboundPath.brokerDrops(broker, clientID: "plumb-" + agent.deviceID)
        report.figure("broker dropped \(drops) of \(oversize) oversize for the agent; inbound_stalls \(stalls),"
            + " \(warnings) stall warnings")
        report.check(drops >= oversize, "the broker dropped every oversize message for the agent",
                     "\(drops) dropped of \(oversize)")
        report.check(stalls == 0 && warnings == 0, "no inbound stall at the default receive maximum",
                     "inbound_stalls \(stalls), \(warnings) warnings")
    }

    /// Replies by correlation data: every message that carries some, but the requests themselves.
    static func replies(_ messages: [MQTTMessage], requestPrefix: String) -> [String: [MQTTMessage]] {
        var replies: [String: [MQTTMessage]] = [:]
        for message in messages where !message.topic.hasPrefix(requestPrefix) {
            guard let data = message.correlationData else { continue }
            replies[String(decoding: data, as: UTF8.self), default: []].append(message)
        }
        return replies
    }

    /// The effective config changes only for valid input: the `P/config` values of the touched
    /// keys, as they changed, against the model folding the valid messages in order.
    private func checkConfig(_ report: inout ScenarioReport, sent: [HostileMessage], initial: [String: Any],
                             observer: Observer, prefix: String) {
        func project(_ object: [String: Any]) -> [String: ConfigValue] {
            var values: [String: ConfigValue] = [:]
            for key in HostileTraffic.touchedKeys { values[key] = ConfigValue(object[key]) }
            return values
        }
        var model = [project(initial)]
        var valid = 0, invalid = 0
        for message in sent {
            guard case .config(let isValid, let effect) = message.kind else { continue }
            if isValid { valid += 1 } else { invalid += 1 }
            guard isValid else { continue }
            let next = model.last!.merging(effect) { $1 }
            if next != model.last! { model.append(next) }
        }
        var observed: [[String: ConfigValue]] = []
        for message in observer.messages(on: prefix + "/config") {
            guard let object = json(message) else { continue }
            let values = project(object)
            if values != observed.last { observed.append(values) }
        }
        let divergence = zip(model, observed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(model.count, observed.count)
        let matches = model == observed
        report.figure("config: \(valid) valid, \(invalid) invalid, \(model.count - 1) changes expected,"
            + " \(observed.count - 1) seen")
        var detail = ""
        if !matches {
            let expected = divergence < model.count ? Self.describe(model[divergence], against: model[max(0, divergence - 1)]) : "nothing"
            let seen = divergence < observed.count
                ? Self.describe(observed[divergence], against: observed[max(0, divergence - 1)]) : "nothing"
            detail = "change \(divergence): expected \(expected), saw \(seen)"
        }
        report.check(matches, "P/config changes only for valid input", detail)
        let outcomes = observer.messages(on: prefix + "/event").compactMap { json($0)?["type"] as? String }
            .filter { $0 == "config_applied" || $0 == "config_rejected" }
        let applied = outcomes.filter { $0 == "config_applied" }.count
        let rejected = outcomes.count - applied
        report.figure("config_applied \(applied), config_rejected \(rejected)")
        var wrong = ""
        let configs = sent.filter { if case .config = $0.kind { true } else { false } }
        if configs.count == outcomes.count {
            // One event per config message, in order: which invalid ones were applied, and which valid refused.
            var tally: [String: Int] = [:]
            for (message, outcome) in zip(configs, outcomes) {
                guard case .config(let isValid, _) = message.kind, isValid != (outcome == "config_applied") else { continue }
                tally[isValid ? "valid refused" : "applied: \(message.label)", default: 0] += 1
            }
            wrong = tally.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        }
        report.check(applied == valid && rejected == invalid, "one config_applied per valid, one config_rejected per invalid",
                     "applied \(applied) of \(valid), rejected \(rejected) of \(invalid)" + (wrong.isEmpty ? "" : ": " + wrong))
    }

    private static func describe(_ values: [String: ConfigValue], against previous: [String: ConfigValue]) -> String {
        let changed = values.filter { previous[$0.key] != $0.value }.map { "\($0.key)=\($0.value)" }.sorted()
        return changed.isEmpty ? "no change" : changed.joined(separator: " ")
    }
}
