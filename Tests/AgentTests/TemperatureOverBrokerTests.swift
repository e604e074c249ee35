import BrokerHarness
import Foundation
import MQTT
import Testing

/// `plumb run` with each kind of temperature source against a real mosquitto: the chip's own
/// sensor, a thermometer on the broker (and what it sends that is not a temperature), and
/// learn_drift from start to the model applied.
@Suite("Temperature through the agent over a real broker", .serialized)
struct TemperatureOverBrokerTests {
    @Test func theChipsOwnSensorGivesTheStateItsTemperature() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, moreFilters: ["homeassistant/#"])
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "sensor:\n  sample_rate_hz: 100\n",
                                     arguments: ["--sim-chip", "adxl355", "--sim-temperature", "31.5"])
        let p = agent.prefix
        let state = try #require(await observer.waitForJSON(p + "/state", timeout: 15) { $0["temperature"] is Double })
        #expect(abs((state["temperature"] as? Double ?? 0) - 31.5) < 0.5, "\(state)")
        #expect((state["uncertainty"] as? Double ?? 0) > 0, "\(state)")
        let entity = try #require(await observer.waitForJSON("homeassistant/sensor/plumb_\(agent.deviceID)/temperature/config",
                                                             timeout: 15))
        #expect(entity["device_class"] as? String == "temperature" && entity["unit_of_measurement"] as? String == "°C", "\(entity)")
        let health = try #require(await observer.waitForJSON(p + "/health", timeout: 15) { $0["temperature_source"] != nil })
        #expect(health["temperature_source"] as? String == "chip" && health["temperature_stale"] as? Bool == false, "\(health)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    /// A thermometer on the broker ramps from 20 to 30 °C while the machine stands still:
    /// learn_drift reports progress, refuses garbage on the way, and applies what it learned.
    @Test func aThermometerOnTheBrokerAndLearnDrift() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let thermometer = "workshop/t" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let yaml = """
            sensor:
              temperature: "mqtt:\(thermometer)"
              learn_drift_minimum_s: 10
              learn_drift_bucket_s: 1
            """
        let agent = try AgentProcess(brokerURL: broker.url, yaml: yaml, arguments: ["--sim-roll", "1"])
        let p = agent.prefix
        await observer.waitFor(p + "/status", timeout: 15) { $0.payloadString == "online" }
        // Retained, as many thermometers publish: the agent reads it at once, however it connects.
        try observer.publish(thermometer, "20.0", retain: true)
        try await Task.sleep(for: .milliseconds(500))
        // A temperature alone publishes no state (the deadband is on the angles): ask for one.
        try observer.publish(p + "/command/republish", "")
        let state = try #require(await observer.waitForJSON(p + "/state", timeout: 15) { $0["temperature"] as? Double == 20 })
        #expect(state["roll"] as? Double != nil)
        try observer.publish(thermometer, "balmy")
        let rejected = try #require(await observer.waitForJSON(p + "/event", timeout: 10) { $0["type"] as? String == "temperature_rejected" })
        #expect((rejected["reason"] as? String)?.contains("not a number of degrees") == true, "\(rejected)")

        try observer.publish(p + "/command/learn_drift", "start")
        #expect(await observer.waitForJSON(p + "/event", timeout: 10) { $0["type"] as? String == "drift_progress" } != nil)
        // 20 → 30 °C over 15 s, then 10 s at 30: the tracker's 30 s smoothing follows it by 4 °C,
        // over the 3 °C learn_drift needs.
        for step in 0..<100 {
            try observer.publish(thermometer, #"{"temperature": \#(min(30, 20 + Double(step) * 10 / 60))}"#)
            try await Task.sleep(for: .milliseconds(250))
        }
        try observer.publish(p + "/command/learn_drift", "stop")
        let learned = try #require(await observer.waitForJSON(p + "/event", timeout: 10) {
            ["drift_learned", "drift_rejected"].contains($0["type"] as? String ?? "") && $0["action"] as? String != "start"
        })
        #expect(learned["type"] as? String == "drift_learned", "\(learned)")
        let model = try #require(learned["drift"] as? [String: Any], "\(learned)")
        #expect(model["origin"] as? String == "in_place")
        let span = try #require(model["span_c"] as? [Double])
        #expect(span.count == 2 && span[1] - span[0] >= 3, "\(model)")
        let calibration = try #require(await observer.waitForJSON(p + "/calibration", timeout: 10) { $0["method"] as? String == "drift" })
        #expect(calibration["date"] is String)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
