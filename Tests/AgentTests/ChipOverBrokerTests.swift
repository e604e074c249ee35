import BrokerHarness
import Foundation
import MQTT
import Testing

/// `plumb run` on each simulated chip against a real mosquitto: the agent asks the chip's
/// description for everything, so health, discovery, `stable` and vibration follow the chip
/// and the rate it really runs at.
@Suite("Each chip through the agent over a real broker", .serialized)
struct ChipOverBrokerTests {
    /// sample_rate_hz 100: the ADXL355 runs at its nearest, 125 Hz; vibration windows of 1 s.
    static let yaml = """
        sensor:
          sample_rate_hz: 100
        vibration:
          vibration_interval_s: 1
        """

    @Test(arguments: [("adxl355", "ADXL355", 125.0), ("mpu6050", "MPU-6050", 100.0)])
    func theAgentRunsOnTheChipAtItsOwnRate(kind: String, model: String, rateHz: Double) async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, moreFilters: ["homeassistant/#"])
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.yaml, arguments: ["--sim-chip", kind, "--sim-roll", "1.5"])
        let p = agent.prefix
        // The discovery device names the chip.
        let device = try #require(await observer.waitForJSON("homeassistant/sensor/plumb_\(agent.deviceID)/tilt_deg/config",
                                                             timeout: 15) { _ in true })
        #expect((device["device"] as? [String: Any])?["model"] as? String == "\(model) level", "\(device)")
        // Still readings are stable against the chip's own noise, at the roll it is held at.
        let state = try #require(await observer.waitForJSON(p + "/state", timeout: 15) { $0["stable"] as? Bool == true })
        #expect(abs((state["roll"] as? Double ?? 0) - 1.5) < 0.05, "\(state)")
        // Health says which chip and the rate it runs at, not the one asked for.
        let health = try #require(await observer.waitForJSON(p + "/health", timeout: 15) { $0["chip"] != nil })
        #expect(health["chip"] as? String == model, "\(health)")
        let measured = try #require(health["sample_rate_hz"] as? Double)
        #expect(abs(measured - rateHz) < rateHz * 0.1, "\(measured) Hz on a chip running at \(rateHz)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test(arguments: [("adxl355", 125.0), ("mpu6050", 100.0)])
    func vibrationIsAnalysedAtTheRateTheChipRuns(kind: String, rateHz: Double) async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.yaml,
                                     arguments: ["--sim-chip", kind, "--sim-vibration", "z:3@20"])
        // A window cut at 100 Hz from samples at 125 Hz would find the tone at 16 Hz, or none.
        let figures = try #require(await observer.waitForJSON(agent.prefix + "/vibration", timeout: 20) { $0["dominant_hz"] is Double })
        #expect(figures["rate_hz"] as? Double == rateHz, "\(figures)")
        #expect(abs((figures["dominant_hz"] as? Double ?? 0) - 20) <= 1.5, "\(figures)")
        let velocity = figures["velocity_rms_mm_s"] as? Double ?? 0
        #expect(abs(velocity - 3) < 0.3, "\(velocity) mm/s for 3 mm/s: \(figures)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
