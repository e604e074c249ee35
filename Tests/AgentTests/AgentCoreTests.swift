import Accelerometers
import Agent
import Configuration
import Foundation
import MQTT
import MQTTTesting
import PlumbDomain
import PlumbSync
import Sampling
import Testing

/// The agent's decisions without a broker: readings and MQTT events in, publications out.
@Suite("AgentCore with an in-memory MQTT client")
struct AgentCoreTests {
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        private let time = Locked(1000.0)
        func now() -> Double { time.withLock { $0 } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    struct Rig {
        let mqtt = MQTTRecorder()
        let clock = TestClock()
        let core: AgentCore
        let topics = Topics(baseTopic: "plumb", deviceID: "unit")

        init(settingsJSON: String = #"{"level_dwell_s": 0, "average_window_s": 0.1}"#) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-core-\(UUID().uuidString)").path
            let settings = try LiveSettings().applying(json: Array(settingsJSON.utf8))
            let sampling = SamplingService(rateHz: 100, rangeG: 16) { throw SensorError.invalidSetting("unused") }
            let clock = clock
            core = AgentCore(topics: topics, mqtt: mqtt, store: StateStore(directory: directory), sampling: sampling,
                             defaults: settings, settings: settings, settingsFromMQTT: false, zeroGravity: nil,
                             log: AgentLog(level: .error), version: "test", clock: { clock.now() })
        }

        func feed(roll degrees: Double) async {
            clock.advance(0.1)
            let gravity = Attitude.gravity(roll: Angle(degrees: degrees), pitch: .zero)
            await core.handle(.reading(Reading(gravity: gravity, samples: 10, time: clock.now()),
                                       statistics: SamplerStatistics()))
        }

        func connect() async {
            await core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: false)))
        }
    }

    @Test func eventsWhileDisconnectedAreQueuedBoundedAndCounted() async throws {
        let rig = try Rig()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        // Alternate across the tolerance: every reading after the first flips the level.
        for index in 0..<301 { await rig.feed(roll: index.isMultiple(of: 2) ? 0 : 1) }
        #expect(rig.mqtt.published(on: rig.topics.event).isEmpty, "nothing is sent while disconnected")
        rig.mqtt.simulateConnect()
        await rig.connect()
        let events = rig.mqtt.published(on: rig.topics.event)
        #expect(events.count == 200, "the queue holds the newest 200")
        #expect(events.allSatisfy { $0.qos == .atLeastOnce && !$0.retain })
        let health = try #require(rig.mqtt.lastRetained(on: rig.topics.health)?.payload)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(health)) as? [String: Any])
        #expect(object["dropped_events"] as? Int == 100)
        #expect(object["queued_events"] as? Int == 0)
    }

    @Test func stateIsRetainedAndCarriesTheContractKeys() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        await rig.feed(roll: 2)
        let state = try #require(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(state)) as? [String: Any])
        #expect(Set(object.keys) == ["roll", "pitch", "tilt", "unit", "level", "alarm", "gravity", "sensor", "ts", "seq"])
        #expect(object["roll"] as? Double == 2)
        #expect(rig.mqtt.lastRetained(on: rig.topics.level)?.payloadString == "OFF")
    }

    @Test func nothingIsPublishedAsStateBeforeTheFirstReading() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        #expect(rig.mqtt.published(on: rig.topics.state).isEmpty)
        #expect(rig.mqtt.lastRetained(on: rig.topics.status)?.payloadString == "online")
    }

    @Test func theSampleRateListsAgree() {
        #expect(LiveSettings.supportedSampleRatesHz == OutputDataRate.supported.map(\.hertz))
    }
}
