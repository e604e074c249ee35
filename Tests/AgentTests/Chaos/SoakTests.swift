import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make soak`: the agent at 100 Hz (vibration on, the default) answering 10 ruler-service
/// requests a second for `SOAK_SECONDS` (an hour by default), against a local broker, under a
/// low-rate hostile mix: `SOAK_HOSTILE_RATE` (2) seeded hostile messages a second, one over 1 MiB
/// every 20 s (on every topic kind, at QoS 0, 1 and 2 in turn), and a valid control write every
/// 10 s that must be applied. A line per interval (`SOAK_INTERVAL` seconds, 60 by default), then
/// a summary.
@Suite("Soak", .serialized, .enabled(if: ChaosEnvironment.soakEnabled))
struct SoakTests {
    static let requestsPerSecond = 10.0
    /// The growth allowed after the first minute, when every buffer has found its size.
    static let growthLimit = 1 * megabyte
    static let warmUp = 60.0
    static var hostileRate: Double { ChaosEnvironment.double("SOAK_HOSTILE_RATE", default: 2) }
    static let oversizeEvery = 20.0
    static let controlEvery = 10.0

    static let requests = [
        ("convert", "{\"value\": 12, \"from\": \"in\", \"to\": \"cm\"}"),
        ("ruler", "{\"length\": 30, \"unit\": \"cm\"}"),
        ("rise", "{\"span\": 1.2, \"unit\": \"m\"}"),
        ("shim", "{\"feet\": {\"x\": 0.5, \"y\": 0.3}, \"unit\": \"m\"}"),
    ]

    @Test func anHourAt100HzWithTenRequestsASecondHoldsItsMemory() async throws {
        var report = ScenarioReport("soak")
        let seconds = ChaosEnvironment.soakSeconds
        let interval = ChaosEnvironment.double("SOAK_INTERVAL", default: 60)
        let broker = try MosquittoBroker.start()
        let deviceID = "soak"
        let p = "plumb/\(deviceID)"
        // Replies (ours, and the hostile requests' wherever they go), events and health; payloads
        // cut at 64 KiB, so an hour of 1000 m rulers does not weigh on the test runner.
        let observer = try await Observer(port: broker.port, filter: p + "/response/#",
                                          moreFilters: [p + "/event", p + "/health", "soak/replies/#"],
                                          maximumIncomingPayload: 64 * 1024)
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID)
        #expect(await agent.waitForLog("sensor running"))
        let pid = agent.process.processIdentifier
        let first = try #require(ProcessSample(pid: pid))
        var previous = first
        var afterWarmUp: ProcessSample?
        var sent = 0
        var traffic = HostileTraffic(prefix: p, replyPrefix: "soak/replies/", seed: ChaosEnvironment.seed)
        var controls = ControlWrites(prefix: p)
        var hostile: [HostileMessage] = []
        var oversize = 0
        func send(_ message: HostileMessage) {
            // A topic the client library refuses (control characters) never reaches the agent: not counted.
            guard (try? observer.client.publish(message.topic, payload: message.payload, qos: message.qos, retain: false,
                                                properties: MQTTPublishProperties(responseTopic: message.responseTopic,
                                                                                  correlationData: message.correlationData)))
                != nil else { return }
            hostile.append(message)
        }
        // Our own requests carry no correlation data; the hostile ones all do.
        func ownReplies() -> Int { observer.messages.filter { $0.correlationData == nil && $0.topic.hasPrefix(p + "/response/") }.count }
        let start = Date()
        var nextReport = start.addingTimeInterval(interval)
        printSummaryLine("SOAK start: RSS \(megabytes(first.residentBytes)), fds \(first.openFiles), \(Int(seconds)) s,"
            + " \(Int(Self.requestsPerSecond)) requests/s, " + String(format: "%.0f", Self.hostileRate)
            + " hostile messages/s, one over 1 MiB every \(Int(Self.oversizeEvery)) s, a control write every"
            + " \(Int(Self.controlEvery)) s, a line every \(Int(interval)) s")
        while Date().timeIntervalSince(start) < seconds {
            let due = start.addingTimeInterval(Double(sent) / Self.requestsPerSecond).timeIntervalSinceNow
            if due > 0.001 { try await Task.sleep(for: .seconds(due)) }
            let (service, body) = Self.requests[sent % Self.requests.count]
            try observer.publish(p + "/request/" + service, body)
            sent += 1
            let elapsed = Date().timeIntervalSince(start)
            while Double(hostile.count - oversize - controls.sent.count) < elapsed * Self.hostileRate { send(traffic.next()) }
            if Double(oversize) < elapsed / Self.oversizeEvery {
                send(OversizeTraffic.message(oversize, prefix: p))
                oversize += 1
            }
            if Double(controls.sent.count) < elapsed / Self.controlEvery { send(controls.next()) }
            if afterWarmUp == nil, elapsed >= Self.warmUp {
                afterWarmUp = ProcessSample(pid: pid)
            }
            if Date() >= nextReport, let now = ProcessSample(pid: pid) {
                let cpu = (now.cpuSeconds - previous.cpuSeconds) / now.time.timeIntervalSince(previous.time) * 100
                let since = afterWarmUp.map { signedMegabytes(now.residentBytes - $0.residentBytes) + " since 1 min" } ?? "warming up"
                let missing = Set(controls.outcome(observer).missing)
                // The write sent a moment ago may be on its way: overdue is unapplied after 2 s.
                let overdue = controls.sent.filter { missing.contains($0.marker) && now.time.timeIntervalSince($0.time) > 2 }.count
                printSummaryLine("SOAK " + String(format: "%5.0f s", now.time.timeIntervalSince(start))
                    + ": RSS \(megabytes(now.residentBytes)) (\(since)), peak \(megabytes(now.peakBytes)),"
                    + " fds \(now.openFiles), CPU " + String(format: "%.1f %%", cpu)
                    + ", replies \(ownReplies())/\(sent), control writes \(controls.sent.count - missing.count)/\(controls.sent.count)"
                    + " (\(overdue) overdue)")
                previous = now
                nextReport = nextReport.addingTimeInterval(interval)
            }
        }
        // What is still on its way: replies, the last writes.
        let hostileRequests = hostile.compactMap { message -> String? in
            guard case .request(let id, _) = message.kind else { return nil }
            return id
        }
        func hostileReplies() -> [String: [MQTTMessage]] {
            HostilePayloadTests.replies(observer.messages, requestPrefix: p + "/request/")
        }
        let drain = Date().addingTimeInterval(30)
        try await Task.sleep(for: .seconds(3))
        while Date() < drain, ownReplies() < sent || !controls.outcome(observer).missing.isEmpty
            || hostileRequests.contains(where: { hostileReplies()[$0] == nil }) {
            try await Task.sleep(for: .seconds(1))
        }
        let last = try #require(ProcessSample(pid: pid))
        let reference = afterWarmUp ?? first
        let growth = last.residentBytes - reference.residentBytes
        let wall = last.time.timeIntervalSince(first.time)
        let cpu = (last.cpuSeconds - first.cpuSeconds) / wall * 100
        let replies = ownReplies()
        let answered = hostileReplies()
        let unanswered = hostileRequests.filter { answered[$0] == nil }.count
        let repeated = hostileRequests.filter { (answered[$0]?.count ?? 0) > 1 }.count
        let control = controls.outcome(observer)
        let health = await OutageChaosTests.freshHealth(observer, prefix: p)
        let stalls = health?["inbound_stalls"] as? Int ?? -1
        let warnings = InboundPath.lines(agent.stderr, containing: InboundPath.stallWarning)
        report.figure(String(format: "%.0f s", wall) + ", \(sent) requests, \(replies) answered;"
            + " RSS \(megabytes(first.residentBytes)) at start, \(megabytes(reference.residentBytes)) after 1 min,"
            + " \(megabytes(last.residentBytes)) at the end (\(signedMegabytes(growth)) after the first minute, limit +1 MB),"
            + " peak \(megabytes(last.peakBytes)); fds \(first.openFiles) → \(last.openFiles);"
            + " CPU " + String(format: "%.1f %%", cpu) + " of one core on average")
        report.figure("hostile: \(hostile.count - oversize - controls.sent.count) sent, \(oversize) over 1 MiB;"
            + " \(hostileRequests.count) hostile requests, \(unanswered) unanswered, \(repeated) answered twice")
        report.figure("control writes \(controls.sent.count) sent, \(controls.sent.count - control.missing.count) applied"
            + " (\(control.repeated.count) twice), slowest " + String(format: "%.1f s", control.slowest)
            + "; inbound_stalls \(stalls), \(warnings) stall warnings")
        report.check(seconds < Self.warmUp * 2 || growth < Self.growthLimit, "RSS growth after the first minute < 1 MB")
        report.check(last.openFiles <= first.openFiles + 1, "fd count steady")
        report.check(replies == sent, "every request answered", "\(sent - replies) missing")
        report.check(unanswered == 0 && repeated == 0, "every hostile request answered exactly once")
        report.check(control.missing.isEmpty, "no control write missed", "missing \(control.missing.prefix(5))")
        report.check(control.repeated.isEmpty, "no control write applied twice", "repeated \(control.repeated.prefix(5))")
        report.check(stalls == 0 && warnings == 0, "no inbound stall", "inbound_stalls \(stalls), \(warnings) warnings")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
        report.print()
        await observer.stop()
    }
}
