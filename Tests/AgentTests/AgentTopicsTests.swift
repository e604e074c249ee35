import BrokerHarness
import Foundation
import MQTT
import Testing

/// `plumb run` against a real mosquitto: every topic of the contract.
@Suite("Agent topics over a real broker", .serialized)
struct AgentTopicsTests {
    static let fastLevel = "level:\n  level_dwell_s: 0\n"

    @Test func birthPublishesStatusConfigStateLevelAndHealthRetained() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-roll", "3", "--sim-pitch", "-1"])
        let p = agent.prefix
        await observer.waitFor(p + "/status") { $0.payloadString == "online" }
        let state = try #require(await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "ok" })
        #expect(Set(state.keys) == ["roll", "pitch", "tilt", "unit", "level", "stable", "alarm", "gravity", "temperature", "uncertainty",
                                    "roll_deg", "pitch_deg", "tilt_deg", "uncertainty_deg", "sensor", "ts", "seq"])
        #expect(abs((state["roll"] as? Double ?? 0) - 3) < 0.1)
        #expect(abs((state["pitch"] as? Double ?? 0) + 1) < 0.1)
        #expect(state["unit"] as? String == "deg")
        #expect(state["alarm"] as? Bool == false)
        #expect((state["ts"] as? String)?.hasSuffix("Z") == true)
        await observer.waitFor(p + "/level") { $0.payloadString == "OFF" }
        let config = try #require(await observer.waitForJSON(p + "/config"))
        #expect(Set(config.keys) == ["angle_unit", "length_unit", "level_tolerance", "level_hysteresis", "alarm_threshold",
                                     "level_dwell_s", "mount", "sample_rate_hz", "average_window_s", "filter",
                                     "publish_deadband_deg", "min_interval_s", "heartbeat_s", "vibration",
                                     "vibration_window_s", "vibration_interval_s", "vibration_class", "running_threshold",
                                     "running_hysteresis", "running_start_s", "running_stop_s", "name"])
        let health = try #require(await observer.waitForJSON(p + "/health"))
        #expect(Set(health.keys).isSuperset(of: ["uptime_s", "samples", "sample_rate_hz", "dropped", "i2c_errors",
                                                  "reconnects", "inbound_stalls", "queued_events", "version"]))
        #expect(health["i2c_mode"] as? String == "simulated")
        #expect(health["chip"] as? String == "ADXL345", "the model from the chip's description")
        // Retained: a subscriber arriving later gets them all.
        let retained = Set(try await Observer.retained(port: broker.port, filter: p + "/#").map(\.topic))
        // Vibration is on by default; the simulated machine is still, and its figures are published too.
        #expect(retained == Set(["status", "state", "level", "config", "health", "bubble", "calibration", "vibration"]
            .map { p + "/" + $0 }))
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func theFirstHealthComesSecondsAfterOnlineWithTheMeasuredRate() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "sensor:\n  sample_rate_hz: 50\n")
        let p = agent.prefix
        await observer.waitFor(p + "/status") { $0.payloadString == "online" }
        let online = try #require(observer.arrivals(on: p + "/status").first?.time)
        await observer.waitFor(p + "/health", timeout: 15)
        let first = try #require(observer.arrivals(on: p + "/health").first)
        let health = try #require(json(first.message))
        // Not the 60 s period, nor a 0 Hz that only means "not measured yet". Generous bounds: a
        // loaded machine delays the sampling thread, never the rate the chip produces.
        #expect(first.time.timeIntervalSince(online) < 8, "first health \(first.time.timeIntervalSince(online)) s after online")
        let rate = try #require(health["sample_rate_hz"] as? Double, "\(health)")
        #expect(rate > 40 && rate < 60, "\(rate) Hz at 50 Hz")
        let uptime = try #require(health["uptime_s"] as? Int)
        #expect((1...15).contains(uptime), "uptime \(uptime) s")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aStillMachineIsQuietButForHeartbeats() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  heartbeat_s: 1.5\n",
                                     arguments: ["--sim-noise-lsb", "0", "--sim-roll", "1"])
        let p = agent.prefix
        await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "ok" }
        let start = Date()
        try await Task.sleep(for: .seconds(5))
        let states = observer.messages(on: p + "/state").filter { _ in true }
        let late = states.suffix(from: states.firstIndex { json($0)?["sensor"] as? String == "ok" }! + 1)
        // Five seconds still at a 1.5 s heartbeat: three heartbeats, nothing else.
        #expect((2...4).contains(late.count), "\(late.count) states in \(Date().timeIntervalSince(start)) s")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func commandsZeroClearZeroAndRepublish() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.fastLevel,
                                     arguments: ["--sim-roll", "3", "--sim-noise-lsb", "0"])
        let p = agent.prefix
        await observer.waitFor(p + "/level") { $0.payloadString == "OFF" }
        // The zero waits for a stable reading, which P/state announces.
        await observer.waitForJSON(p + "/state") { $0["stable"] as? Bool == true }

        try observer.publish(p + "/command/zero", "")
        let zeroed = try #require(await observer.waitForJSON(p + "/event") { $0["type"] as? String == "zeroed" })
        #expect(zeroed["reference"] is [String: Any])
        #expect(zeroed["stable"] as? Bool == true)
        await observer.waitFor(p + "/level") { $0.payloadString == "ON" }
        await observer.waitForJSON(p + "/state") { abs(($0["tilt"] as? Double) ?? 9) < 0.05 && $0["level"] as? Bool == true }
        #expect(observer.events("level_entered", prefix: p).count == 1)

        try observer.publish(p + "/command/clear_zero", "")
        await observer.waitForJSON(p + "/event") { $0["type"] as? String == "zeroed" && $0["reference"] is NSNull }
        await observer.waitFor(p + "/level", where: { _ in observer.messages(on: p + "/level").last?.payloadString == "OFF" })

        let before = observer.messages(on: p + "/status").count
        try observer.publish(p + "/command/republish", "")
        await observer.waitFor(p + "/status") { _ in observer.messages(on: p + "/status").count > before }

        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aRetainedCommandIsNotReplayedAtTheNextConnect() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        // (An empty retained payload would delete rather than retain.)
        try observer.publish("plumb/retained-cmd/command/zero", "1", retain: true)
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: "retained-cmd", yaml: Self.fastLevel,
                                     arguments: ["--sim-roll", "3"])
        #expect(await agent.waitForLog("ignored a retained zero command"))
        await observer.waitForJSON(agent.prefix + "/state") { $0["sensor"] as? String == "ok" }
        #expect(observer.events("zeroed", prefix: agent.prefix).isEmpty)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func theZeroSurvivesARestart() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let first = try AgentProcess(brokerURL: broker.url, yaml: Self.fastLevel,
                                     arguments: ["--sim-roll", "2", "--sim-noise-lsb", "0"])
        let p = first.prefix
        await observer.waitForJSON(p + "/state") { $0["stable"] as? Bool == true }
        try observer.publish(p + "/command/zero", "")
        await observer.waitForJSON(p + "/event") { $0["type"] as? String == "zeroed" }
        #expect(await first.send(SIGTERM)?.status == 0)
        let count = observer.messages(on: p + "/state").count
        let second = try AgentProcess(brokerURL: broker.url, deviceID: first.deviceID, yaml: Self.fastLevel,
                                      arguments: ["--sim-roll", "2", "--sim-noise-lsb", "0"],
                                      stateDirectory: first.stateDirectory)
        await observer.waitFor(p + "/state") { _ in observer.messages(on: p + "/state").count > count }
        let state = observer.messages(on: p + "/state").dropFirst(count).first.flatMap(json)
        #expect(abs((state?["tilt"] as? Double) ?? 9) < 0.05, "\(String(describing: state))")
        #expect(await second.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
