import Accelerometers
@testable import Agent
import Contract
import Persistence
import Foundation
import Geometry
import Level
import MQTT
import MQTTTesting
import Sampling
import Testing
import Thermal

/// The temperature through the agent, without a broker: the thermometer's messages, what is
/// refused, a source gone quiet, and learn_drift from start to the model applied.
extension AgentCoreTests {
    static let thermometer = "workshop/thermometer"

    func object(_ payload: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(payload)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// A tumble made at 22 °C, 0.3 mg rms: calibrated, so the temperature's term shows beside it.
    static let calibratedAt22 = CalibrationRecord(
        method: .sixPoint, chip: AgentCore.unknownChip, residualMilliG: .init(rms: 0.3, max: 0.5), calibration: .identity,
        temperatureC: 22)

    func temperatureRig(learning: DriftLearning.Configuration = .standard,
                        calibration: CalibrationRecord? = nil) async throws -> Rig {
        let rig = try Rig(calibration: calibration, temperatureSource: .mqtt(topic: Self.thermometer), driftLearning: learning)
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        return rig
    }

    func send(_ payload: String, to rig: Rig) async {
        await rig.core.handle(.message(MQTTMessage(topic: Self.thermometer, payload: Array(payload.utf8))))
    }

    @Test func aThermometerOnTheBrokerGivesTheStateItsTemperatureInCelsius() async throws {
        let rig = try await temperatureRig()
        await send("21.5", to: rig)
        await rig.feed(roll: 1)
        #expect(try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)["temperature"] as? Double == 21.5)
        // Fahrenheit when the message says so; the tracker smooths towards it.
        await send(#"{"temperature": 70.7, "unit": "°F"}"#, to: rig)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.republish), payload: [])))
        let state = try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        let temperature = try #require(state["temperature"] as? Double)
        #expect(abs(temperature - 21.5) < 0.1, "70.7 °F is 21.5 °C: \(state)")
        #expect((state["uncertainty"] as? Double ?? 0) > 0, "\(state)")
    }

    @Test func garbageIsRefusedWithAnEventAMinuteAndIgnored() async throws {
        let rig = try await temperatureRig()
        await send("20", to: rig)
        await send("warm", to: rig)
        await send(#"{"humidity": 40}"#, to: rig)
        await send("500", to: rig)
        var rejected = rig.events("temperature_rejected")
        #expect(rejected.count == 1, "one event a minute: \(rejected)")
        #expect((rejected.first?["reason"] as? String)?.contains("not a number of degrees") == true, "\(rejected)")
        #expect(rejected.first?["payload"] as? String == "warm")
        #expect(rejected.first?["source"] as? String == "mqtt:\(Self.thermometer)")
        rig.clock.advance(61)
        await send("NaN", to: rig)
        rejected = rig.events("temperature_rejected")
        #expect(rejected.count == 2 && rejected.last?["count"] as? Int == 3, "the two held back and this one: \(rejected)")
        // Nothing refused reached the reading: the temperature is still 20 °C.
        for _ in 0..<30 { await rig.feed(roll: 1) }
        #expect(try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)["temperature"] as? Double == 20)
        await rig.core.tick()
        let health = try object(rig.mqtt.lastRetained(on: rig.topics.health)?.payload)
        #expect(health["temperature_rejected"] as? Int == 4 && health["temperature_source"] as? String == "mqtt:\(Self.thermometer)",
                "\(health)")
    }

    @Test func aSourceThatGoesQuietIsStaleInHealthAndWidensTheUncertainty() async throws {
        let rig = try await temperatureRig(calibration: Self.calibratedAt22)
        await send("22", to: rig)
        await rig.feed(roll: 1)
        let fresh = try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        for _ in 0..<30 { await rig.feed(roll: 1) }
        rig.clock.advance(601)
        await rig.feed(roll: 1)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.republish), payload: [])))
        let stale = try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        #expect(stale["temperature"] is NSNull, "a stale temperature is not reported as current: \(stale)")
        #expect((stale["uncertainty"] as? Double ?? 0) > (fresh["uncertainty"] as? Double ?? 0), "\(fresh) → \(stale)")
        #expect(stale["roll"] as? Double == 1, "the reading itself goes on")
        rig.clock.advance(60)
        await rig.core.tick()
        let health = try object(rig.mqtt.lastRetained(on: rig.topics.health)?.payload)
        #expect(health["temperature_stale"] as? Bool == true && (health["temperature_age_s"] as? Int ?? 0) >= 601, "\(health)")
    }

    @Test func theChipSourceOnAChipWithoutASensorIsNoneAndSaysSo() async throws {
        let lines = LogLines()
        let rig = try Rig(log: AgentLog(level: .info, sink: lines), temperatureSource: .chip)
        await rig.core.handle(.chip(ChipFound(description: ADXL345.description, bus: "simulated",
                                              address: I2CAddressForTests.adxl345, deviceID: 0xE5, warning: nil)))
        #expect(lines.all.contains { $0.contains("the ADXL345 has no temperature sensor") }, "\(lines.all)")
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        for _ in 0..<30 { await rig.feed(roll: 1) }
        await rig.core.tick()
        let health = try object(rig.mqtt.lastRetained(on: rig.topics.health)?.payload)
        #expect(health["temperature_source"] as? String == "none", "\(health)")
    }

    /// A machine that does not move while the workshop warms: the reading creeps with the
    /// temperature, learn_drift learns the creep, and afterwards the reading holds.
    @Test func learnDriftLearnsTheCreepAndAppliesIt() async throws {
        let learning = DriftLearning.Configuration(bucketSeconds: 1, minimumSpanCelsius: 3, minimumDurationSeconds: 20,
                                                   progressEverySeconds: 10)
        let rig = try await temperatureRig(learning: learning)
        let drift = 0.0005  // g/°C on x: 0.029° of roll per °C
        func feed(at celsius: Double) async {
            await send(String(celsius), to: rig)
            rig.clock.advance(0.1)
            let gravity = Attitude.gravity(roll: Angle(degrees: 1), pitch: .zero) + Vector3(x: drift * (celsius - 20), y: 0, z: 0)
            await rig.core.handle(.batch(.steady(gravity, count: 10, time: rig.clock.now(), rateHz: 100),
                                         statistics: SamplerStatistics()))
        }
        for _ in 0..<20 { await feed(at: 20) }
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("stop".utf8))))
        #expect(rig.events("drift_rejected").last?["reason"] as? String == "no learn_drift is under way; send start first,"
                + " and stop once the temperature has moved by 3 °C.")
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("start".utf8))))
        #expect(rig.events("drift_progress").first?["state"] as? String == "started")
        // 200 s of readings from 20 to 30 °C, slow beside the tracker's 30 s smoothing (a workshop's
        // hours are slower still), then a minute at 30 °C.
        for step in 0..<2000 { await feed(at: 20 + 10 * Double(step) / 2000) }
        for _ in 0..<600 { await feed(at: 30) }
        #expect(rig.events("drift_progress").count >= 20, "progress every 10 s")
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("stop".utf8))))
        let learned = try #require(rig.events("drift_learned").first, "\(rig.events("drift_rejected"))")
        let model = try #require(learned["drift"] as? [String: Any])
        let k = try #require(model["offset_mg_per_c"] as? [Double])
        #expect(abs(k[0] - 0.5) < 0.05 && abs(k[1]) < 0.05, "0.5 mg/°C on x: \(model)")
        #expect(model["origin"] as? String == "in_place")
        let calibration = try object(rig.mqtt.lastRetained(on: rig.topics.calibration)?.payload)
        #expect(calibration["method"] as? String == "drift", "\(calibration)")
        // From now on the creep is corrected: at 30 °C the reading is the roll at 20 °C.
        for _ in 0..<40 { await feed(at: 30) }
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.republish), payload: [])))
        let state = try object(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        let roll = try #require(state["roll"] as? Double)
        #expect(abs(roll - 1) < 0.005, "corrected to 1°, was \(1 + 10 * drift * 180 / .pi)° uncorrected: \(state)")
    }

    @Test func learnDriftNeedsASourceAndSaysWhatItStillWaitsFor() async throws {
        let none = try Rig(temperatureSource: .none)
        none.mqtt.simulateConnect()
        await none.connect()
        await none.core.handle(.message(MQTTMessage(topic: none.topics.command(.learnDrift), payload: Array("start".utf8))))
        #expect((none.events("drift_rejected").first?["reason"] as? String)?.contains("sensor.temperature is none") == true)

        let rig = try await temperatureRig()
        await send("20", to: rig)
        await rig.feed(roll: 0)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("start".utf8))))
        await rig.feed(roll: 0)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("stop".utf8))))
        let refusal = try #require(rig.events("drift_rejected").last?["reason"] as? String)
        #expect(refusal.contains("Learning goes on"), "\(refusal)")
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("cancel".utf8))))
        #expect(rig.events("drift_rejected").last?["reason"] as? String == "learn_drift cancelled; nothing changed.")
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.learnDrift), payload: Array("begin".utf8))))
        #expect((rig.events("drift_rejected").last?["reason"] as? String)?.contains("start, stop and cancel") == true)
    }
}

/// Addresses for the tests' chip reports.
enum I2CAddressForTests {
    static let adxl345 = ADXL345.addresses[0]
}
