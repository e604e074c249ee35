@testable import Agent
import Configuration
import Contract
import HomeAssistant
import MQTT
import PlumbDomain
import Settings
import Testing

/// The agent's own state as values, without the actor: the sensor's phase and self-test, the
/// settings' source on reload, the vibration stage's changes, and each publication's topic,
/// retain flag and QoS.
@Suite("Agent state values")
struct AgentStateValueTests {
    @Test func aReadingIsReportedOnlyWhileTheSensorRuns() {
        var sensor = SensorState()
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
        var sensor = SensorState()
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
        let event = AgentEvent(type: .zeroed, details: [:])
        let cases: [(Publication, String, Bool, MQTTQoS)] = [
            (.status(online: true), "plumb/bench/status", true, .atLeastOnce),
            (.level(true), "plumb/bench/level", true, .atMostOnce),
            (.config([]), "plumb/bench/config", true, .atMostOnce),
            (.calibration(nil), "plumb/bench/calibration", true, .atLeastOnce),
            (.health([:]), "plumb/bench/health", true, .atMostOnce),
            (.event(event), "plumb/bench/event", false, .atLeastOnce),
            (.bubble(svg: "<svg/>"), "plumb/bench/bubble", true, .atMostOnce),
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
}
