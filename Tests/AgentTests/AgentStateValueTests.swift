@testable import Agent
import Configuration
import Contract
import Geometry
import HomeAssistant
import MQTT
import Settings
import Testing

/// The agent's own state as values, without the actor: the sensor's phase and self-test, the
/// settings' source on reload, the vibration stage's changes, and each publication's topic,
/// retain flag and QoS.
@Suite("Agent state values")
struct AgentStateValueTests {
    @Test func aReadingIsReportedOnlyWhileTheSensorRuns() {
        var sensor = SensorState(rateHz: 100)
        #expect(!sensor.mayReport && !sensor.isFaulty, "starting: nothing to report, nothing wrong")
        #expect(sensor.calibrationHold == "the sensor is starting")
        sensor.started()
        #expect(sensor.mayReport && sensor.calibrationHold == nil)
        let new = sensor.fault("i2c read failed")
        let again = sensor.fault("i2c read failed again")
        #expect(new, "a new fault is reported")
        #expect(!again, "the same outage is not reported twice")
        #expect(sensor.faultMessage == "i2c read failed", "the first message stands")
        #expect(!sensor.mayReport)
        #expect(sensor.calibrationHold == "the sensor is faulty (i2c read failed)")
        sensor.started()
        #expect(sensor.isFaulty, "only a recovery ends a fault")
        sensor.recovered()
        #expect(sensor.mayReport && sensor.faultMessage == nil)
    }

    @Test func oneSelfTestAtATimeAndItHoldsTheChipFromACalibration() {
        var sensor = SensorState(rateHz: 100)
        sensor.started()
        let first = sensor.beginSelfTest()
        let second = sensor.beginSelfTest()
        #expect(first)
        #expect(!second, "a second self-test while one runs is refused")
        #expect(sensor.calibrationHold == "a self-test is running on the chip")
        #expect(sensor.mayReport, "the self-test does not make the last reading false")
        sensor.endSelfTest()
        #expect(sensor.calibrationHold == nil)
        let afterwards = sensor.beginSelfTest()
        #expect(afterwards)
    }

    @Test func aReloadFollowsTheFileOnlyWhenNoSettingCameOverMQTT() throws {
        let file = LiveSettings()
        let edited = try file.applying(key: "level_tolerance", rawValue: Array("0.5".utf8))
        var state = SettingsState(file, fromMQTT: false)
        #expect(state.reload(defaults: file) == .unchanged)
        #expect(state.reload(defaults: edited) == .apply(edited))
        _ = state.use(edited, fromFile: true)
        #expect(!state.fromMQTT, "settings from the file keep following the file")
        let old = state.use(file, fromFile: false)
        #expect(old == edited)
        #expect(state.fromMQTT)
        #expect(state.reload(defaults: edited) == .keptMQTTSettings)
    }

    @Test func theVibrationStageSaysWhenTheRetainedFiguresMustBeCleared() throws {
        func settings(_ json: String) throws -> VibrationSettings {
            try LiveSettings().applying(json: Array(json.utf8)).vibration
        }
        let on = try settings(#"{"sample_rate_hz": 800, "vibration": true}"#)
        let off = try settings(#"{"sample_rate_hz": 800, "vibration": false}"#)
        let tooSlow = try settings(#"{"sample_rate_hz": 25, "vibration": true}"#)
        var stage = VibrationStage(off)
        #expect(stage.monitor == nil && stage.refusal == nil)
        let quiet = stage.configure(off)
        #expect(quiet == .unchanged, "off stays off quietly")
        let started = stage.configure(on)
        #expect(started == .running)
        #expect(stage.monitor != nil)
        let same = stage.configure(on)
        #expect(same == .unchanged)
        guard case .stopped(let warning?) = stage.configure(tooSlow) else {
            Issue.record("a rate with no velocity band stops the analysis with a warning")
            return
        }
        #expect(warning.hasPrefix("vibration analysis is off: "))
        #expect(stage.refusal == warning)
        let refusedAgain = stage.configure(tooSlow)
        #expect(refusedAgain == .unchanged, "the same refusal is said once")
        let turnedOff = stage.configure(off)
        #expect(turnedOff == .stopped(warning: nil), "turned off, the retained figures are cleared")
        let offAgain = stage.configure(off)
        #expect(offAgain == .unchanged)
        let refused = VibrationStage(tooSlow)
        #expect(refused.monitor == nil && refused.refusal != nil)
    }

    @Test func eachPublicationKnowsItsTopicRetainAndQoS() throws {
        let topics = Topics(baseTopic: "plumb", deviceID: "bench")
        let event = AgentEvent(type: .zeroed, encoded: [:])
        let cases: [(Publication, String, Bool, MQTTQoS)] = [
            (.status(online: true), "plumb/bench/status", true, .atLeastOnce),
            (.level(true), "plumb/bench/level", true, .atMostOnce),
            (.config([]), "plumb/bench/config", true, .atMostOnce),
            (.calibration(nil), "plumb/bench/calibration", true, .atLeastOnce),
            (.health([:]), "plumb/bench/health", true, .atMostOnce),
            (.event(event), "plumb/bench/event", false, .atLeastOnce),
            (.bubble(png: [0x89, 0x50]), "plumb/bench/bubble", true, .atMostOnce),
            (.vibration(nil), "plumb/bench/vibration", true, .atMostOnce),
            (.discovery(DiscoveryMessage(topic: "homeassistant/x/config", payload: [])), "homeassistant/x/config", true,
             .atLeastOnce),
            (.clear(topic: "plumb/bench/config/set"), "plumb/bench/config/set", true, .atLeastOnce),
        ]
        for (publication, topic, retain, qos) in cases {
            #expect(publication.topic(in: topics) == topic)
            #expect(publication.retain == retain, "\(topic)")
            #expect(publication.qos == qos, "\(topic)")
        }
        #expect(Publication.status(online: false).payload == Array("offline".utf8))
        #expect(Publication.level(false).payload == Array("OFF".utf8))
        #expect(Publication.vibration(nil).payload.isEmpty, "an empty retained message deletes the figures")
        #expect(Publication.clear(topic: "t").payload.isEmpty)
    }

    @Test func theStateReasonStaysTypedAndOnlyAHeartbeatKeepsTheBubble() {
        #expect(PublishReason.policy(.heartbeat).isHeartbeat)
        #expect(!PublishReason.policy(.moved).isHeartbeat && !PublishReason.birth.isHeartbeat)
        #expect("\(PublishReason.homeAssistant)" == "home assistant")
        #expect("\(PublishReason.policy(.first))" == "first")
    }

    @Test func anIncomingMessageIsRoutedByItsTopicFlagsAndSize() {
        let topics = Topics(baseTopic: "plumb", deviceID: "bench")
        func route(_ topic: String, _ payload: String = "x", retain: Bool = false, resumed: Bool = false,
                   length: Int? = nil) -> InboundRoute {
            InboundRoute(MQTTMessage(topic: topic, payload: Array(payload.utf8), retain: retain, payloadLength: length),
                         topics: topics, sessionResumed: resumed, homeAssistantStatus: "homeassistant/status")
        }
        let set = "plumb/bench/config/set"
        let key = "plumb/bench/config/mount/set"
        #expect(route(set, "{}") == .desiredConfig)
        #expect(route(key, "upright") == .configValue(key: "mount"))
        #expect(route(set, "") == .ignored && route(key, "") == .ignored, "the deletion of our retained message")
        #expect(route(set, "{", length: 70_000) == .oversizeConfig(key: nil))
        #expect(route(key, "u", length: 70_000) == .oversizeConfig(key: "mount"))
        #expect(route(set, "{}", retain: true, resumed: true) == .retainedCopyOfDeliveredWrite)
        #expect(route(set, "{}", retain: true, resumed: false) == .desiredConfig, "a retained write at a fresh session")
        #expect(route("plumb/bench/config/nothing", "1") == .strayConfig)
        #expect(route("plumb/bench/config/nothing", "") == .ignored)
        #expect(route("homeassistant/status", "online") == .homeAssistantOnline)
        #expect(route("homeassistant/status", "online", retain: true) == .ignored, "a retained birth is not a restart")
        #expect(route("homeassistant/status", "offline") == .ignored)
        #expect(route("plumb/bench/command/calibrate_six_point", "start") == .command("calibrate_six_point"))
        #expect(route("plumb/bench/command/zero", retain: true) == .retainedCommand("zero"))
        #expect(route("plumb/other/command/zero") == .ignored)
        let withoutDiscovery = InboundRoute(MQTTMessage(topic: "homeassistant/status", payload: Array("online".utf8)),
                                            topics: topics, sessionResumed: false, homeAssistantStatus: nil)
        #expect(withoutDiscovery == .ignored)
    }

    @Test func aWriteRecordsItsKeysAndALaterWriteWinsPerKey() throws {
        var state = SettingsState(LiveSettings(), fromMQTT: false)
        let one = state.write(key: "level_tolerance", rawValue: Array("0.5".utf8), now: 100)
        #expect((try? one.get())?.levelTolerance == Angle(degrees: 0.5))
        #expect(state.writeOrder.lastWritten(.levelTolerance) == 100)
        #expect(!state.fromMQTT, "a write is not in force until used")
        let older = state.write(desired: Array(#"{"level_tolerance": 0.2, "heartbeat_s": 10, "written_at": 50}"#.utf8),
                                now: 200)
        #expect(older.superseded == [.levelTolerance], "written before the value in force")
        #expect((try? older.result.get())?.heartbeatS == 10)
        let stale = state.write(desired: Array(#"{"level_tolerance": 0.2, "written_at": 50}"#.utf8), now: 200)
        guard case .failure(let rejection) = stale.result else {
            Issue.record("every key superseded: refused")
            return
        }
        #expect(rejection.reason.contains("the later write stands"))
        let ahead = state.write(desired: Array(#"{"heartbeat_s": 5, "written_at": 1000}"#.utf8), now: 200)
        guard case .failure(let future) = ahead.result else {
            Issue.record("a written_at beyond the allowed lead is refused")
            return
        }
        #expect(future.key == "written_at")
        guard case .failure = state.write(key: "level_tolerance", rawValue: Array("lots".utf8), now: 300) else {
            Issue.record("a bad value is refused")
            return
        }
        #expect(state.writeOrder.lastWritten(.levelTolerance) == 100, "a refused write records nothing")
    }
}
