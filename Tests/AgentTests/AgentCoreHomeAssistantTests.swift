import Accelerometers
import Agent
import Contract
import Foundation
import HomeAssistant
import MQTT
import MQTTTesting
import Sampling
import Testing

/// Discovery and health decisions of the agent, without a broker.
@Suite("AgentCore: discovery per unit and the first health")
struct AgentCoreHomeAssistantTests {
    typealias Rig = AgentCoreTests.Rig

    static let options = HomeAssistantOptions(prefix: "homeassistant", device: DiscoveryDevice(id: "unit", version: "test", chipModel: "ADXL345"))
    static let base = "homeassistant/sensor/plumb_unit/"
    static let started = SamplingUpdate.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33))

    static func discovery(_ rig: Rig) -> [MQTTRecorder.Publication] {
        rig.mqtt.publications.filter { $0.topic.hasPrefix("homeassistant/") }
    }

    /// What older versions published and this one never does: the unit-less angle sensors,
    /// those of every unit but degrees, and the picture's image entity.
    static let legacy: [String] = ["tilt", "roll", "pitch"].map { base + $0 + "/config" }
        + ["percent", "mm_per_m", "in_per_ft"].flatMap { unit in
            ["tilt", "roll", "pitch", "uncertainty"].map { base + "\($0)_\(unit)/config" }
        } + ["homeassistant/image/plumb_unit/bubble/config"]

    @Test func eachConnectClearsTheAngleSensorsOfOlderVersionsThenPublishesTheDegreeOnesInAnyUnit() async throws {
        let rig = try Rig(settingsJSON: #"{"angle_unit": "in_per_ft"}"#, homeAssistant: Self.options)
        rig.mqtt.simulateConnect()
        await rig.connect()
        let published = Self.discovery(rig)
        let cleared = published.filter(\.payload.isEmpty)
        #expect(Set(cleared.map(\.topic)) == Set(Self.legacy) && cleared.count == Self.legacy.count)
        #expect(cleared.allSatisfy { $0.retain && $0.qos == .atLeastOnce })
        // The clearing comes before the configs, and no current topic is cleared.
        let firstConfig = try #require(published.firstIndex { !$0.payload.isEmpty })
        #expect(published.prefix(firstConfig).count == Self.legacy.count)
        let configs = published.filter { !$0.payload.isEmpty }.map(\.topic)
        #expect(["tilt", "roll", "pitch", "uncertainty"].allSatisfy { configs.contains(Self.base + $0 + "_deg/config") })
        #expect(configs.contains(Self.base + "slope/config"))

        // A reconnect clears them again (a broker that lost a QoS 1 message), and nothing more.
        rig.mqtt.clear()
        rig.mqtt.simulateDisconnect()
        await rig.core.handle(.disconnected(MQTTError(code: .connectionLost, reason: "simulated")))
        rig.mqtt.simulateConnect()
        await rig.connect()
        #expect(Self.discovery(rig).filter(\.payload.isEmpty).count == Self.legacy.count)
    }

    @Test func thePictureGoesOutOnlyForHomeAssistantAndWithDiscoveryOffTheRetainedOneIsCleared() async throws {
        // With discovery: a moving reading draws a PNG, retained, and a connect clears nothing there.
        let on = try Rig(homeAssistant: Self.options)
        on.mqtt.simulateConnect()
        await on.connect()
        await on.core.handle(Self.started)
        for roll in [0.0, 1, 2, 3] { await on.feed(roll: roll); on.clock.advance(1); await on.core.tick() }
        let pictures = on.mqtt.published(on: on.topics.bubble)
        #expect(!pictures.isEmpty && pictures.allSatisfy { $0.retain && $0.payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) })

        // Without: the same readings draw nothing, and each connect clears what a run with it left.
        let off = try Rig()
        off.mqtt.simulateConnect()
        await off.connect()
        await off.core.handle(Self.started)
        for roll in [0.0, 1, 2, 3] { await off.feed(roll: roll); off.clock.advance(1); await off.core.tick() }
        let sent = off.mqtt.published(on: off.topics.bubble)
        #expect(sent.count == 1 && sent.allSatisfy { $0.payload.isEmpty && $0.retain }, "\(sent.map(\.payload.count))")
        #expect(!off.mqtt.published(on: off.topics.state).isEmpty, "the states went out meanwhile")
    }

    @Test func aUnitChangeRepublishesTheSlopeAloneInTheNewUnitAndRemovesNothing() async throws {
        let rig = try Rig(homeAssistant: Self.options)
        rig.mqtt.simulateConnect()
        await rig.connect()
        rig.mqtt.clear()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "angle_unit"), payload: Array("mm_per_m".utf8))))
        let published = Self.discovery(rig)
        #expect(published.map(\.topic) == [Self.base + "slope/config"])
        let message = try #require(published.first)
        let config = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
        #expect(config["unit_of_measurement"] as? String == "mm/m")
        #expect(message.retain && message.qos == .atLeastOnce)
        // The same unit again changes nothing.
        rig.mqtt.clear()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "angle_unit"), payload: Array("mm_per_m".utf8))))
        #expect(Self.discovery(rig).isEmpty)
    }

    @Test func vibrationOffChangesNoDiscoveryAndAConnectWhileOffAnnouncesTheVibrationEntitiesAsEver() async throws {
        let vibrationEntities = ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running",
                                 "vibration_class", "running_threshold"]
        let rig = try Rig(homeAssistant: Self.options)
        rig.mqtt.simulateConnect()
        await rig.connect()
        rig.mqtt.clear()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "vibration"), payload: Array("false".utf8))))
        // Their availability reads P/config's vibration: nothing to announce or remove.
        #expect(Self.discovery(rig).isEmpty)
        let config = try #require(rig.mqtt.published(on: rig.topics.config).last)
        #expect(String(decoding: config.payload, as: UTF8.self).contains(#""vibration":false"#))

        // A later connect with vibration still off announces them, and clears none of them.
        rig.mqtt.clear()
        rig.mqtt.simulateDisconnect()
        await rig.core.handle(.disconnected(MQTTError(code: .connectionLost, reason: "simulated")))
        rig.mqtt.simulateConnect()
        await rig.connect()
        let published = Self.discovery(rig)
        let announced = Set(published.filter { !$0.payload.isEmpty }.map { String($0.topic.split(separator: "/")[3]) })
        let cleared = Set(published.filter(\.payload.isEmpty).map { String($0.topic.split(separator: "/")[3]) })
        #expect(announced.isSuperset(of: vibrationEntities))
        #expect(cleared.isDisjoint(with: vibrationEntities))
    }

    @Test func theFirstHealthWaitsForAMeasuredRateAndComesAsSoonAsThereIsOne() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        #expect(rig.mqtt.published(on: rig.topics.health).isEmpty, "no health at birth before the rate is known")
        await rig.core.handle(Self.started)
        // 100 Hz: ten samples a block, a block every 0.1 s.
        var samples = 0
        for _ in 0..<19 {
            samples += 10
            await rig.feed(roll: 0, samplesSoFar: samples)
            await rig.core.tick()
        }
        #expect(rig.mqtt.published(on: rig.topics.health).isEmpty, "1.8 s of readings: not measured yet")
        for _ in 0..<3 {
            samples += 10
            await rig.feed(roll: 0, samplesSoFar: samples)
        }
        let healths = rig.mqtt.published(on: rig.topics.health)
        #expect(healths.count == 1)
        let payload = try #require(healths.first).payload
        let health = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(health["sample_rate_hz"] as? Double == 100)
        #expect(health["uptime_s"] as? Int == 2)
        // Then every 60 s, not at every reading.
        for _ in 0..<10 {
            samples += 10
            await rig.feed(roll: 0, samplesSoFar: samples)
            await rig.core.tick()
        }
        #expect(rig.mqtt.published(on: rig.topics.health).count == 1)
    }

    @Test func aSensorThatNeverStartsStillGetsAHealthWithAZeroRate() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.fault(message: "no ADXL345 at 0x53.", retryIn: 0.5))
        await rig.core.tick()
        let health = try #require(rig.mqtt.lastRetained(on: rig.topics.health)?.payload)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(health)) as? [String: Any])
        #expect(object["sample_rate_hz"] as? Double == 0)
    }
}
