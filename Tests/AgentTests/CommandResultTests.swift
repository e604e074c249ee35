@testable import Agent
import Accelerometers
import Contract
import Foundation
import MQTT
import MQTTTesting
import Sampling
import Testing

/// `P/result`: the answer to the latest command, from the event that reports it.
@Suite("Command result: the answer to every press")
struct CommandResultTests {
    typealias Rig = AgentCoreTests.Rig

    static func results(_ rig: Rig) throws -> [[String: Any]] {
        try rig.mqtt.published(on: rig.topics.result).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])
        }
    }

    @Test func aZeroWithoutAReadingIsRefusedInASentenceRetainedAtLeastOnce() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.zero), payload: Array("PRESS".utf8))))
        let published = rig.mqtt.published(on: rig.topics.result)
        #expect(published.count == 1 && published.allSatisfy { $0.retain && $0.qos == .atLeastOnce })
        let result = try #require(try Self.results(rig).first)
        #expect(result["command"] as? String == "zero" && result["ok"] as? Bool == false)
        #expect(result["event"] as? String == "zero_rejected")
        let reason = try #require(rig.events("zero_rejected").first?["reason"] as? String)
        #expect(result["message"] as? String == "Zero refused: " + reason)
        #expect(result["ts"] as? String == rig.events("zero_rejected").first?["ts"] as? String)
    }

    @Test func aZeroOnAStillReadingAndASettingAreAnsweredAndTheLastIsResentAtTheNextConnect() async throws {
        let rig = try Rig()
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33)))
        for _ in 0..<20 { await rig.feed(roll: 0.5) }
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(.zero), payload: [])))
        // Level now, which is no answer to a press.
        for _ in 0..<5 { await rig.feed(roll: 0.5) }
        #expect(!rig.events("level_entered").isEmpty)
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "level_tolerance"), payload: Array("0.25".utf8))))
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.configSet(key: "level_tolerance"), payload: Array("banana".utf8))))
        let results = try Self.results(rig)
        #expect(results.map { $0["event"] as? String } == ["zeroed", "config_applied", "config_rejected"])
        #expect(results[0]["message"] as? String == "Zeroed: this position now reads level." && results[0]["ok"] as? Bool == true)
        #expect(results[1]["message"] as? String == "Settings applied: level_tolerance 0.25.")
        #expect((results[2]["message"] as? String)?.hasPrefix("Setting refused: level_tolerance: ") == true, "\(results[2])")
        #expect(results[2]["ok"] as? Bool == false && results[2]["command"] as? String == "config")

        // Leaving level is no answer to a press either.
        rig.mqtt.clear()
        for _ in 0..<20 { await rig.feed(roll: 3) }
        #expect(!rig.events("level_left").isEmpty)
        #expect(rig.mqtt.published(on: rig.topics.result).isEmpty)

        // A reconnect re-sends the latest, in case the broker lost it.
        rig.mqtt.simulateDisconnect()
        await rig.core.handle(.disconnected(MQTTError(code: .connectionLost, reason: "simulated")))
        rig.mqtt.simulateConnect()
        await rig.connect()
        #expect(try Self.results(rig).last?["event"] as? String == "config_rejected")
    }

    @Test func eventsThatAnswerNoPressHaveNoResultAndTheOthersSaySomething() {
        let noAnswer: [EventType] = [.levelEntered, .levelLeft, .alarmRaised, .alarmCleared, .sensorFault, .sensorRecovered,
                                     .runningStarted, .runningStopped, .zoneChanged, .temperatureRejected]
        for type in EventType.allCases {
            let result = CommandResult(AgentEvent(type: type, encoded: ["reason": .string("because."), "state": .string("started"),
                                                                        "step": .string("first"), "passed": .bool(true)]))
            if noAnswer.contains(type) {
                #expect(result == nil, "\(type)")
            } else {
                #expect(result.map { !$0.message.isEmpty && $0.event == type } == true, "\(type)")
            }
        }
        // The tumble's settling and averaging, and learning's periodic progress, are no answers either.
        #expect(CommandResult(AgentEvent(type: .calibrationProgress, encoded: ["method": .string("six_point"), "state": .string("averaging")])) == nil)
        #expect(CommandResult(AgentEvent(type: .driftProgress, encoded: ["state": .string("learning")])) == nil)
        let selftest = CommandResult(AgentEvent(type: .selftest, encoded: ["passed": .null, "error": .string("another is running.")]))
        #expect(selftest?.ok == false && selftest?.message == "Self-test could not run: another is running.")
    }
}

extension CommandResultTests {
    @Test func aCancelDidWhatWasAskedAndAnUnsavedChangeSaysSo() {
        let cancelled = CommandResult(AgentEvent(type: .calibrationRejected, encoded: [
            "method": .string("six_point"), "cancelled": .bool(true), "reason": .string("cancelled by mqtt; nothing applied."),
        ]))
        #expect(cancelled?.ok == true && cancelled?.message == "Calibration cancelled: cancelled by mqtt; nothing applied.")
        let refused = CommandResult(AgentEvent(type: .calibrationRejected, encoded: ["method": .string("six_point"), "reason": .string("not on a face.")]))
        #expect(refused?.ok == false && refused?.message == "Calibration refused: not on a face.")
        let drift = CommandResult(AgentEvent(type: .driftRejected, encoded: [
            "action": .string("cancel"), "reason": .string("learn_drift cancelled; nothing changed."), "cancelled": .bool(true),
        ]))
        #expect(drift?.ok == true)
        let nothingToCancel = CommandResult(AgentEvent(type: .driftRejected, encoded: [
            "action": .string("cancel"), "reason": .string("no learn_drift is under way; nothing to cancel."),
        ]))
        #expect(nothingToCancel?.ok == false)
        let unsaved = CommandResult(AgentEvent(type: .zeroed, encoded: ["reference": .object(["x": .number(0)]), "persisted": .bool(false)]))
        #expect(unsaved?.ok == true && unsaved?.message.contains("could not be saved") == true)
    }
}
