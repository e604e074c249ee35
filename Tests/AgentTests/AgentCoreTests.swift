import Accelerometers
import Agent
import BrokerHarness
import Configuration
import Contract
import Foundation
import Geometry
import Level
import MQTT
import MQTTTesting
import Persistence
import PlumbSync
import Sampling
import Settings
import Testing
import Thermal

/// The agent's decisions without a broker: readings and MQTT events in, publications out.
@Suite("AgentCore with an in-memory MQTT client")
struct AgentCoreTests {
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        private let time = Locked(1000.0)
        func now() -> Double { time.withLock { $0 } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    /// Keeps the log lines, for the decisions that only log.
    final class LogLines: LogSink {
        private let lines = Locked([String]())
        func write(_ level: LogLevel, _ message: String) { lines.withLock { $0.append(message) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Rig {
        let mqtt = MQTTRecorder()
        let clock = TestClock()
        let core: AgentCore
        let topics = Topics(baseTopic: "plumb", deviceID: "unit")

        let directory = temporaryPath("core")

        /// - Parameters:
        ///   - calibration: the calibration to start with, as if loaded from the state directory.
        ///   - sampling: the chip's thread; by default one whose chip never opens (nothing samples).
        init(settingsJSON: String = #"{"level_dwell_s": 0, "average_window_s": 0.1}"#,
             homeAssistant: HomeAssistantOptions? = nil, log: AgentLog = AgentLog(level: .error),
             calibration: CalibrationRecord? = nil, zeroGravity: Vector3? = nil,
             sampling: SamplingService = SamplingService(rateHz: 100, rangeG: 16) { throw SensorError.invalidSetting("unused") },
             temperatureSource: TemperatureSource = .automatic, driftLearning: DriftLearning.Configuration = .standard)
            throws {
            let settings = try LiveSettings().applying(json: Array(settingsJSON.utf8))
            let clock = clock
            core = AgentCore(topics: topics, mqtt: mqtt, store: StateStore(directory: directory), sampling: sampling,
                             defaults: settings, settings: settings, settingsFromMQTT: false, zeroGravity: zeroGravity,
                             calibration: calibration, log: log, version: "test", homeAssistant: homeAssistant,
                             temperatureSource: temperatureSource, driftLearning: driftLearning, clock: { clock.now() })
        }

        func feed(roll degrees: Double, samplesSoFar: Int = 0) async {
            clock.advance(0.1)
            let gravity = Attitude.gravity(roll: Angle(degrees: degrees), pitch: .zero)
            var statistics = SamplerStatistics()
            statistics.samples = samplesSoFar
            await core.handle(.batch(.steady(gravity, count: 10, time: clock.now(), rateHz: 100), statistics: statistics))
        }

        func connect() async {
            await core.handle(.connected(MQTTConnection(protocolVersion: .v5, sessionPresent: false)))
        }

        /// The `P/event` messages of `type` published so far, parsed.
        func events(_ type: String) -> [[String: Any]] {
            mqtt.published(on: topics.event).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
            }.filter { $0["type"] as? String == type }
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
        #expect(Set(object.keys) == ["roll", "pitch", "tilt", "unit", "level", "stable", "alarm", "gravity", "temperature", "uncertainty",
                                     "roll_deg", "pitch_deg", "tilt_deg", "uncertainty_deg", "sensor", "ts", "seq"])
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

    /// A stop right after the CONNACK, before the agent has handled the connect (its birth not
    /// yet sent): `offline` still goes out, since the clean DISCONNECT after it drops the will.
    @Test func aStopBeforeTheConnectIsHandledStillLeavesOffline() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.core.shutdown()
        let statuses = rig.mqtt.published(on: rig.topics.status)
        #expect(statuses.map(\.payloadString) == ["offline"] && statuses.allSatisfy { $0.retain }, "\(statuses)")
    }

    @Test func nothingIsPublishedAfterOfflineDuringShutdown() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.shutdown()
        // A reconnect or a republish command handled while disconnect() is awaited.
        await rig.connect()
        _ = rig.mqtt.deliver(topic: rig.topics.command(.republish), payload: "")
        let statuses = rig.mqtt.publications.filter { $0.topic == rig.topics.status }.compactMap(\.payloadString)
        #expect(statuses.last == "offline", "\(statuses)")
    }

    @Test func anUnknownCommandIsLoggedEscapedWithTheCommandsThatRun() async throws {
        let lines = LogLines()
        let rig = try Rig(log: AgentLog(level: .warning, sink: lines))
        rig.mqtt.simulateConnect()
        await rig.connect()
        rig.mqtt.clear()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.prefix + "/command/zer\no", payload: [])))
        #expect(lines.all == ["unknown command 'zer\\no'; the commands are zero, clear_zero, republish, calibrate_reversal,"
            + " calibrate_six_point, clear_calibration, selftest and learn_drift."])
        #expect(rig.mqtt.publications.isEmpty)
    }

    @Test func theFilterSettingReachesThePipelineLive() async throws {
        let rig = try Rig(settingsJSON: #"{"level_dwell_s": 0, "average_window_s": 1, "vibration": false}"#)
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        // Still at 0.3° of roll on a machine running at 0.2 g, 49.3 Hz, on every axis.
        var sample = 0
        func feedRunning(seconds: Double) async {
            for _ in 0..<Int(seconds * 10) {
                rig.clock.advance(0.1)
                let samples = (0..<10).map { _ -> Vector3 in
                    let phase = 2 * Double.pi * 49.3 * Double(sample) / 100
                    sample += 1
                    let shake = Vector3(x: sin(phase), y: sin(phase + 2 * .pi / 3), z: sin(phase + 4 * .pi / 3)) * 0.2
                    return Attitude.gravity(roll: Angle(degrees: 0.3), pitch: .zero) + shake
                }
                await rig.core.handle(.batch(SampleBatch(samples: samples, time: rig.clock.now(), rateHz: 100),
                                             statistics: SamplerStatistics()))
            }
        }
        func stable() throws -> Bool? {
            let state = try #require(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
            return try #require(try JSONSerialization.jsonObject(with: Data(state)) as? [String: Any])["stable"] as? Bool
        }
        await feedRunning(seconds: 3)
        #expect(try stable() == false, "under mean, the raw samples' 0.14 g rms is shaking")
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "filter"), payload: Array("lowpass".utf8))))
        await feedRunning(seconds: 3)
        #expect(try stable() == true, "under lowpass the reading is still, and so is stable")
    }

    @Test func aFaultForgetsThePreviousReading() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        await rig.feed(roll: 4)
        await rig.core.handle(.fault(message: "gone", retryIn: 1))
        await rig.core.handle(.recovered(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        rig.clock.advance(60)
        await rig.core.tick()
        let states = rig.mqtt.published(on: rig.topics.state).compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let afterFault = states.drop { $0["sensor"] as? String == "ok" }
        #expect(afterFault.allSatisfy { $0["roll"] is NSNull }, "no pre-fault angles after the fault: \(afterFault)")
    }

    @Test func aReloadedFileIsAppliedButNotPersistedAsAnMQTTChange() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        let fromFile = try LiveSettings().applying(json: Array(#"{"level_tolerance": 0.4}"#.utf8))
        await rig.core.reload(defaults: fromFile)
        let config = try #require(rig.mqtt.lastRetained(on: rig.topics.config)?.payloadString)
        #expect(config.contains("\"level_tolerance\":0.4"))
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/settings.json"))
        #expect(rig.mqtt.published(on: rig.topics.event).isEmpty, "config_applied is for MQTT changes")
        // Still the file's: a second edit applies too.
        let again = try LiveSettings().applying(json: Array(#"{"level_tolerance": 0.5}"#.utf8))
        await rig.core.reload(defaults: again)
        #expect(rig.mqtt.lastRetained(on: rig.topics.config)?.payloadString?.contains("\"level_tolerance\":0.5") == true)
    }

}
