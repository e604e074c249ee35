import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make chaos`, outages: the broker restarted and killed under a stream of events, and the
/// sensor unplugged again and again. One summary line each.
@Suite("Chaos: outages", .serialized, .enabled(if: ChaosEnvironment.chaosEnabled))
struct OutageChaosTests {
    static let restarts = 20
    /// Restarts (counted from 1) that are a kill -9 instead of a clean stop.
    static let kills: Set<Int> = [7, 14]
    static let flaps = 20

    /// Level flips every 2 s (the square motion, a 1° step against a 0.5° tolerance): a steady
    /// stream of events, generated whether or not the broker is there.
    static let flippingYAML = """
        mqtt:
          keepalive: 5
        level:
          level_tolerance: 0.5
          level_dwell_s: 0
        """

    @Test func brokerRestartsLoseNoEventUncounted() async throws {
        var report = ScenarioReport("broker restarts")
        let broker = try MosquittoBroker.start(.init(persistence: true))
        let deviceID = "chaos-restarts"
        // A persistent session: what the agent publishes while the observer reconnects waits at the broker.
        let observer = try await Observer(port: broker.port, filter: "plumb/\(deviceID)/#", persistentSession: true)
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID, yaml: Self.flippingYAML,
                                     arguments: ["--sim-motion", "square"])
        let p = agent.prefix
        await observer.waitFor(p + "/health", timeout: 30)
        var outage = 0.0
        for restart in 1...Self.restarts {
            // The agent's own `online`, live: the observer's persistent session also gets the
            // retained copy again when it resubscribes, which says nothing about the agent.
            func liveOnline() -> Int {
                observer.messages(on: p + "/status").filter { $0.payloadString == "online" && !$0.retain }.count
            }
            let online = liveOnline()
            try await Task.sleep(for: .seconds(2))
            let down = Date()
            if Self.kills.contains(restart) { broker.kill() } else { broker.stop() }
            try await Task.sleep(for: .seconds(Double(restart % 3) + 1))
            try broker.restart()
            let back = await observer.waitFor(p + "/status", timeout: 45) { _ in liveOnline() > online }
            outage += Date().timeIntervalSince(down)
            report.check(back != nil, "agent back online after restart \(restart)")
        }
        // Stop the flipping (1° inside 2°), let the queue drain, then ask for a fresh health.
        try observer.publish(p + "/config/set", "{\"level_tolerance\": 2}")
        try await Task.sleep(for: .seconds(6))
        let health = await Self.freshHealth(observer, prefix: p)
        try await Task.sleep(for: .seconds(2))

        let logged = agent.stderr.split(separator: "\n").filter { $0.contains("plumb: event ") }.count
        let payloads = observer.messages(on: p + "/event").compactMap(\.payloadString)
        let unique = Set(payloads).count
        let dropped = health?["dropped_events"] as? Int ?? -1
        let queued = health?["queued_events"] as? Int ?? -1
        let reconnects = health?["reconnects"] as? Int ?? -1
        let lost = logged - unique
        report.figure("\(Self.restarts) restarts (\(Self.kills.count) kill -9), " + String(format: "%.1f s", outage)
            + " offline in all, \(reconnects) reconnects; \(logged) events emitted, \(unique) received"
            + " (\(payloads.count - unique) duplicates), \(dropped) dropped, \(queued) queued")
        report.check(reconnects >= Self.restarts, "every restart reconnected", "\(reconnects) reconnects")
        report.check(lost == dropped + max(0, queued), "no event lost uncounted", "\(lost) missing, \(dropped) counted dropped")
        report.check(dropped == 0, "no event dropped (the queue holds 200)")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
        report.print()
        await observer.stop()
    }

    @Test func sensorFlapsAreEachReportedAndRecovered() async throws {
        var report = ScenarioReport("sensor flaps")
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        // Present 2 s, unplugged 1 s, for ever.
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-fault", "flap:3:1"])
        let p = agent.prefix
        let deadline = Date().addingTimeInterval(Double(Self.flaps) * 3 + 30)
        while Date() < deadline, observer.events("sensor_recovered", prefix: p).count < Self.flaps {
            try await Task.sleep(for: .seconds(1))
        }
        try await Task.sleep(for: .seconds(0.5))
        let arrivals = observer.arrivals(on: p + "/event").compactMap { arrival -> (Date, String)? in
            guard let type = json(arrival.message)?["type"] as? String, type.hasPrefix("sensor_") else { return nil }
            return (arrival.time, type)
        }
        let faults = arrivals.filter { $0.1 == "sensor_fault" }.count
        let recoveries = arrivals.filter { $0.1 == "sensor_recovered" }.count
        // Fault, recovered, fault, recovered…: each fault reported once and recovered before the next.
        let alternating = arrivals.enumerated().allSatisfy { $0.element.1 == ($0.offset % 2 == 0 ? "sensor_fault" : "sensor_recovered") }
        var recoveryTimes: [Double] = []
        for index in stride(from: 0, to: arrivals.count - 1, by: 2) {
            recoveryTimes.append(arrivals[index + 1].0.timeIntervalSince(arrivals[index].0))
        }
        let slowest = recoveryTimes.max() ?? .infinity
        let health = await Self.freshHealth(observer, prefix: p)
        let errors = health?["i2c_errors"] as? Int ?? -1
        report.figure("\(faults) sensor_fault, \(recoveries) sensor_recovered, recovery within "
            + String(format: "%.1f–%.1f s", recoveryTimes.min() ?? 0, slowest) + ", i2c_errors \(errors)")
        report.check(faults >= Self.flaps && recoveries >= Self.flaps, "\(Self.flaps) flaps reported and recovered")
        report.check(alternating, "each fault reported once, then recovered")
        // The chip is back 1 s after it went; the retry waits 0.5 s, doubling, and starts again after a recovery.
        report.check(slowest <= 2.5, "each recovered within 2.5 s", String(format: "slowest %.1f s", slowest))
        report.check(errors >= Self.flaps, "health counts the I²C errors")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
        report.print()
        await observer.stop()
    }

    /// A health message sent now (`republish`), not the last one retained.
    static func freshHealth(_ observer: Observer, prefix: String) async -> [String: Any]? {
        let seen = observer.messages.count
        try? observer.publish(prefix + "/command/republish", "")
        return await observer.waitFor(prefix + "/health", after: seen).flatMap(json)
    }
}
