import BrokerHarness
import Foundation
import MQTT
import Testing

/// `plumb run` on a simulated machine that vibrates, against a real mosquitto: `P/vibration`,
/// the running and zone events, the health count, and turning the analysis off.
@Suite("Vibration over a real broker", .serialized)
struct VibrationOverBrokerTests {
    /// 800 Hz for the band up to 312.5 Hz; short dwells so a run fits in seconds.
    static let yaml = """
        sensor:
          sample_rate_hz: 800
        vibration:
          running_start_s: 1
          running_stop_s: 1
          vibration_interval_s: 1
        """

    @Test func vibrationIsPublishedRetainedWithTheBandAndTheZone() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.yaml, arguments: ["--sim-vibration", "z:3@50"])
        let p = agent.prefix
        let figures = try #require(await observer.waitForJSON(p + "/vibration", timeout: 15) { $0["running"] as? Bool == true })
        #expect(figures["band_hz"] as? [Double] == [10, 312.5])
        #expect(figures["zone"] as? String == "C", "3 mm/s is zone C for class I: \(figures)")
        #expect(figures["vibration_class"] as? String == "class_i")
        #expect(figures["rate_hz"] as? Double == 800)
        let velocity = try #require(figures["velocity_rms_mm_s"] as? Double)
        #expect(abs(velocity - 3) < 0.15, "\(velocity) mm/s for 3 mm/s")
        let dominant = try #require(figures["dominant_hz"] as? Double)
        #expect(abs(dominant - 50) <= 1)
        let axes = try #require(figures["axes"] as? [String: [String: Any]])
        #expect(Set(axes.keys) == ["x", "y", "z"])
        #expect((axes["x"]?["velocity_rms_mm_s"] as? Double ?? 1) < 0.3, "x is still: \(axes["x"] ?? [:])")
        let retained = try await Observer.retained(port: broker.port, filter: p + "/vibration")
        #expect(retained.count == 1)
        // A health from now (`republish` sends one): the first, 2 s after the start, may count
        // no window yet on a loaded machine, where FIFO overruns restart the windows.
        let seen = observer.messages.count
        try observer.publish(p + "/command/republish", "PRESS")
        let health = try #require(await observer.waitFor(p + "/health", after: seen, timeout: 15).flatMap(json))
        #expect((health["analysis_windows"] as? Int ?? 0) > 0, "the windows analysed so far are counted: \(health)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aMachineThatStartsAndStopsSendsRunningEventsWithTheRunsDuration() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.yaml,
                                     arguments: ["--sim-vibration", "z:3@50", "--sim-machine", "4:4"])
        let p = agent.prefix
        // Running at start (no event: the first window decides), stopped at 4 s, running at 8 s,
        // stopped at 12 s: the second stop ends a whole 4 s run.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let stops = observer.events("running_stopped", prefix: p)
            if stops.count >= 2 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let starts = observer.events("running_started", prefix: p)
        let stops = observer.events("running_stopped", prefix: p)
        try #require(stops.count >= 2 && !starts.isEmpty, "starts \(starts), stops \(stops)")
        // That the figure is this run's (not the uptime, nor a dwell) is what a test can check:
        // on a loaded machine a FIFO overrun restarts the windows and moves an edge by up to a
        // window. How close it comes is `make bench`'s washer figure (duration_s against 600 s).
        let duration = try #require(stops[1]["duration_s"] as? Double)
        #expect(abs(duration - 4) < 1.5, "a 4 s run lasted \(duration) s")
        #expect(starts[0]["threshold"] as? String == "1 mm/s")
        // The state follows: the last P/vibration says what the last event said.
        let states = observer.messages(on: p + "/vibration").compactMap(json).compactMap { $0["running"] as? Bool }
        #expect(states.contains(true) && states.contains(false))
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func anAgentStartedWithVibrationOffClearsFiguresLeftRetainedByAnEarlierRun() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let deviceID = "stale" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        try observer.publish("plumb/\(deviceID)/vibration", #"{"velocity_rms_mm_s": 9.9, "zone": "D"}"#, retain: true)
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID, yaml: "vibration:\n  vibration: false\n")
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        await observer.waitFor(agent.prefix + "/vibration") { $0.payload.isEmpty }
        let retained = try await Observer.retained(port: broker.port, filter: agent.prefix + "/vibration")
        #expect(retained.isEmpty, "\(retained.map(\.payloadString))")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func turningVibrationOffClearsTheRetainedFigures() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.yaml, arguments: ["--sim-vibration", "z:3@50"])
        let p = agent.prefix
        await observer.waitForJSON(p + "/vibration", timeout: 15)
        try observer.publish(p + "/config/vibration/set", "false")
        await observer.waitFor(p + "/vibration", timeout: 10) { $0.payload.isEmpty }
        try await Task.sleep(for: .seconds(1))
        let retained = try await Observer.retained(port: broker.port, filter: p + "/vibration")
        #expect(retained.isEmpty, "\(retained.map(\.payloadString))")
        let config = try #require(await observer.waitForJSON(p + "/config") { $0["vibration"] as? Bool == false })
        #expect(config["vibration"] as? Bool == false)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
