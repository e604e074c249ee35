import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make soak`: the agent at 100 Hz (vibration on, the default) answering 10 ruler-service
/// requests a second for `SOAK_SECONDS` (an hour by default), against a local broker. A line
/// per interval (`SOAK_INTERVAL` seconds, 60 by default), then a summary.
@Suite("Soak", .serialized, .enabled(if: ChaosEnvironment.soakEnabled))
struct SoakTests {
    static let requestsPerSecond = 10.0
    /// The growth allowed after the first minute, when every buffer has found its size.
    static let growthLimit = 1 * megabyte
    static let warmUp = 60.0

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
        let observer = try await Observer(port: broker.port, filter: "plumb/\(deviceID)/response/#")
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID)
        let p = agent.prefix
        #expect(await agent.waitForLog("sensor running"))
        let pid = agent.process.processIdentifier
        let first = try #require(ProcessSample(pid: pid))
        var previous = first
        var afterWarmUp: ProcessSample?
        var sent = 0
        let start = Date()
        var nextReport = start.addingTimeInterval(interval)
        printSummaryLine("SOAK start: RSS \(megabytes(first.residentBytes)), fds \(first.openFiles), \(Int(seconds)) s,"
            + " \(Int(Self.requestsPerSecond)) requests/s, a line every \(Int(interval)) s")
        while Date().timeIntervalSince(start) < seconds {
            let due = start.addingTimeInterval(Double(sent) / Self.requestsPerSecond).timeIntervalSinceNow
            if due > 0.001 { try await Task.sleep(for: .seconds(due)) }
            let (service, body) = Self.requests[sent % Self.requests.count]
            try observer.publish(p + "/request/" + service, body)
            sent += 1
            if afterWarmUp == nil, Date().timeIntervalSince(start) >= Self.warmUp {
                afterWarmUp = ProcessSample(pid: pid)
            }
            if Date() >= nextReport, let now = ProcessSample(pid: pid) {
                let cpu = (now.cpuSeconds - previous.cpuSeconds) / now.time.timeIntervalSince(previous.time) * 100
                let since = afterWarmUp.map { signedMegabytes(now.residentBytes - $0.residentBytes) + " since 1 min" } ?? "warming up"
                printSummaryLine("SOAK " + String(format: "%5.0f s", now.time.timeIntervalSince(start))
                    + ": RSS \(megabytes(now.residentBytes)) (\(since)), peak \(megabytes(now.peakBytes)),"
                    + " fds \(now.openFiles), CPU " + String(format: "%.1f %%", cpu)
                    + ", replies \(observer.messages.count)/\(sent)")
                previous = now
                nextReport = nextReport.addingTimeInterval(interval)
            }
        }
        try await Task.sleep(for: .seconds(3))
        let last = try #require(ProcessSample(pid: pid))
        let reference = afterWarmUp ?? first
        let growth = last.residentBytes - reference.residentBytes
        let wall = last.time.timeIntervalSince(first.time)
        let cpu = (last.cpuSeconds - first.cpuSeconds) / wall * 100
        let replies = observer.messages.count
        report.figure(String(format: "%.0f s", wall) + ", \(sent) requests, \(replies) replies;"
            + " RSS \(megabytes(first.residentBytes)) at start, \(megabytes(reference.residentBytes)) after 1 min,"
            + " \(megabytes(last.residentBytes)) at the end (\(signedMegabytes(growth)) after the first minute, limit +1 MB),"
            + " peak \(megabytes(last.peakBytes)); fds \(first.openFiles) → \(last.openFiles);"
            + " CPU " + String(format: "%.1f %%", cpu) + " of one core on average")
        report.check(seconds < Self.warmUp * 2 || growth < Self.growthLimit, "RSS growth after the first minute < 1 MB")
        report.check(last.openFiles <= first.openFiles + 1, "fd count steady")
        report.check(replies == sent, "every request answered", "\(sent - replies) missing")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
        report.print()
        await observer.stop()
    }
}
