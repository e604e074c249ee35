import Agent
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
import Testing

/// `calibrate_six_point` without a broker: the tumble fed the raw batches, its events in order,
/// the record saved and applied, and one calibration at a time whoever started it.
@Suite("AgentCore: the six-point tumble")
struct AgentCoreSixPointTests {
    typealias Rig = AgentCoreTests.Rig
    typealias Calibration = AgentCoreCalibrationTests

    /// The chip's zero-g offset, device frame, in g.
    static let offset = Vector3(x: 0.020, y: -0.015, z: 0.010)
    /// The order a person might lay the faces in.
    static let faces: [Face] = [.plusZ, .minusZ, .plusX, .minusX, .plusY, .minusY]

    static func raw(_ face: Face) -> Vector3 { face.gravity + offset }

    /// Feeds `seconds` of the device lying still on `face`, in batches of a tenth of a second.
    static func lie(_ rig: Rig, on face: Face, seconds: Double) async {
        for _ in 0..<Int((seconds * 10).rounded()) { await rig.feed(gravity: raw(face), spread: 0.002) }
    }

    static func sixPoint(_ rig: Rig, _ payload: String) async {
        await Calibration.command(rig, .calibrateSixPoint, payload)
    }

    /// The `calibration_progress` events of the tumble, in order.
    static func progress(_ rig: Rig) -> [[String: Any]] {
        Calibration.events(rig, .calibrationProgress).filter { $0["method"] as? String == "six_point" }
    }

    @Test func aWholeTumbleReportsEachFaceInOrderThenSavesAndAppliesTheCalibration() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        let tilted = try Calibration.lastState(rig)
        #expect(abs(tilted["roll"] as? Double ?? 0) > 0.5, "the offset tilts the raw reading: \(tilted)")

        await Self.sixPoint(rig, "start")
        let waiting = try #require(Self.progress(rig).first)
        #expect(waiting["state"] as? String == "waiting" && waiting["face"] as? String == "+x")
        #expect(waiting["remaining"] as? [String] == ["+x", "-x", "+y", "-y", "+z", "-z"])
        #expect(waiting["done"] as? [String] == [] && waiting["fraction"] == nil)
        #expect(waiting["started_by"] as? String == "mqtt" && (waiting["message"] as? String)?.isEmpty == false)

        for face in Self.faces {
            await Self.lie(rig, on: face, seconds: 0.3)
            await Self.sixPoint(rig, "next")
            await Self.lie(rig, on: face, seconds: 4)
        }
        let events = Self.progress(rig)
        var states: [String] = []
        for event in events {
            let state = try #require(event["state"] as? String)
            if states.last != state { states.append(state) }
        }
        let face = ["settling", "averaging", "done"]
        var expected = ["waiting"]
        for _ in 0..<5 { expected += face + ["waiting"] }
        expected += face
        #expect(states == expected, "\(states)")
        let averaging = events.filter { $0["state"] as? String == "averaging" }
        #expect(averaging.allSatisfy { $0["fraction"] is Double }, "fraction while averaging")
        #expect(events.filter { $0["state"] as? String != "averaging" }.allSatisfy { $0["fraction"] == nil })
        #expect(averaging.count <= 6 * 11, "at most every 10 % of a face: \(averaging.count) averaging events")
        let done = events.filter { $0["state"] as? String == "done" }
        #expect(done.compactMap { $0["face"] as? String } == Self.faces.map(\.rawValue))
        #expect(done.last?["remaining"] as? [String] == [])

        let applied = try #require(Calibration.events(rig, .calibrationApplied).first,
                                   "\(Calibration.events(rig, .calibrationRejected))")
        #expect(applied["method"] as? String == "six_point" && applied["started_by"] as? String == "mqtt")
        #expect(applied["residual_mg"] is [String: Any] && applied["persisted"] == nil, "\(applied)")
        let stored = try #require(StateStore(directory: rig.directory).loadCalibration().record)
        #expect(stored.method == .sixPoint)
        let found = stored.calibration.offset
        #expect(abs(found.x - Self.offset.x) + abs(found.y - Self.offset.y) + abs(found.z - Self.offset.z) < 0.002, "\(found)")
        #expect(try Calibration.calibration(rig)["method"] as? String == "six_point")

        // Applied live: the next state is corrected, flat on +z reads level.
        await Self.lie(rig, on: .plusZ, seconds: 1)
        let corrected = try Calibration.lastState(rig)
        #expect(abs(corrected["roll"] as? Double ?? 9) < 0.05 && abs(corrected["pitch"] as? Double ?? 9) < 0.05,
                "\(corrected)")
        // Over: next has nothing to drive.
        await Self.sixPoint(rig, "next")
        let refused = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect((refused["reason"] as? String)?.contains("no six-point calibration is running") == true)
    }

    @Test func aSecondStartIsRefusedNamingTheRunningOneAndWhoStartedIt() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        await rig.core.calibrate(sixPoint: .start, from: .controlSocket(client: 7))
        await Self.sixPoint(rig, "start")
        let refused = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(refused["method"] as? String == "six_point" && refused["action"] as? String == "start")
        #expect(refused["running"] as? String == "six_point" && refused["started_by"] as? String == "plumb calibrate")
        #expect((refused["reason"] as? String)?.contains("a six-point calibration is running, started by plumb calibrate")
            == true, "\(refused)")
        // Nor a reversal, nor next from someone else.
        await Calibration.command(rig, .calibrateReversal, "first")
        let reversal = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(reversal["step"] as? String == "first" && reversal["running"] as? String == "six_point")
        #expect(Calibration.events(rig, .calibrationProgress).allSatisfy { $0["step"] == nil }, "no reversal began")
        await Self.sixPoint(rig, "next")
        let next = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect((next["reason"] as? String)?.contains("was started by plumb calibrate, which says next") == true)
        #expect(Self.progress(rig).count == 1, "the tumble is still waiting, as plumb calibrate left it")
    }

    @Test func aHeldReversalRefusesATumbleUntilCancelDropsIt() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        await Calibration.command(rig, .calibrateReversal, "first")
        await rig.core.calibrate(sixPoint: .start, from: .controlSocket(client: 2))
        let refused = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(refused["running"] as? String == "reversal" && refused["started_by"] as? String == "mqtt")
        #expect((refused["reason"] as? String)?.contains("a reversal calibration is in progress, started by mqtt") == true)
        await rig.core.calibrate(sixPoint: .cancel, from: .controlSocket(client: 2))
        let cancelled = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(cancelled["method"] as? String == "reversal" && cancelled["cancelled"] as? Bool == true)
        #expect(cancelled["cancelled_by"] as? String == "plumb calibrate" && cancelled["started_by"] as? String == "mqtt")
        await rig.core.calibrate(sixPoint: .start, from: .controlSocket(client: 2))
        #expect(Self.progress(rig).first?["state"] as? String == "waiting")
    }

    @Test func cancelEndsTheTumbleAndSaysWhoAndNothingIsApplied() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        await Self.sixPoint(rig, "start")
        await Self.sixPoint(rig, "next")
        await Self.lie(rig, on: .plusZ, seconds: 4)
        await Self.sixPoint(rig, "cancel")
        let cancelled = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(cancelled["method"] as? String == "six_point" && cancelled["cancelled"] as? Bool == true)
        #expect((cancelled["reason"] as? String)?.contains("cancelled by mqtt") == true, "\(cancelled)")
        let before = Self.progress(rig).count
        await Self.lie(rig, on: .minusZ, seconds: 2)
        #expect(Self.progress(rig).count == before, "no tumble is fed after the cancel")
        #expect(Calibration.events(rig, .calibrationApplied).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/calibration.json"))
        await Self.sixPoint(rig, "cancel")
        #expect((Calibration.events(rig, .calibrationRejected).last?["reason"] as? String)?
            .contains("no calibration is in progress") == true)
    }

    @Test(arguments: ["", "Start", "begin", "next face"])
    func anInvalidPayloadIsRefusedListingThePayloads(payload: String) async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.sixPoint(rig, payload)
        let refused = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(refused["method"] as? String == "six_point")
        #expect((refused["reason"] as? String)?.contains("the payloads are start, next and cancel") == true, "\(refused)")
        #expect(Self.progress(rig).isEmpty)
    }

    @Test func theOriginGoingAwayCancelsOnlyTheRunItStarted() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        await rig.core.calibrate(sixPoint: .start, from: .controlSocket(client: 3))
        await rig.core.calibrationOriginGone(.controlSocket(client: 4))
        #expect(Calibration.events(rig, .calibrationRejected).isEmpty, "another connection's going changes nothing")
        await rig.core.calibrationOriginGone(.controlSocket(client: 3))
        let gone = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect(gone["cancelled"] as? Bool == true && (gone["reason"] as? String)?.contains("went away") == true)
        await Self.sixPoint(rig, "start")
        #expect(Self.progress(rig).last?["started_by"] as? String == "mqtt", "free again")
    }

    @Test func aSensorFaultFailsTheTumbleAndASelfTestIsRefusedDuringIt() async throws {
        let rig = try Rig()
        await Calibration.connected(rig)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        await Self.sixPoint(rig, "start")
        await Calibration.command(rig, .selftest)
        let selftest = try #require(Calibration.events(rig, .selftest).last)
        #expect((selftest["error"] as? String)?.contains("a six-point calibration is running") == true, "\(selftest)")
        await rig.core.handle(.fault(message: "i2c read failed", retryIn: 1))
        let failed = try #require(Calibration.events(rig, .calibrationRejected).last)
        #expect((failed["reason"] as? String)?.contains("the sensor failed during the six-point calibration") == true)
        await Self.sixPoint(rig, "start")
        #expect((Calibration.events(rig, .calibrationRejected).last?["reason"] as? String)?
            .contains("the sensor is faulty") == true, "no tumble starts on a faulty sensor")
    }

    @Test func listenersHearTheEventsWhetherOrNotTheBrokerIsConnectedEachSayingWhomItConcerns() async throws {
        let rig = try Rig()
        let heard = Locked([AgentEvent]())
        let id = await rig.core.addEventListener { event in heard.withLock { $0.append(event) } }
        await rig.core.handle(Calibration.started)
        await Self.lie(rig, on: .plusZ, seconds: 1)
        let client = CalibrationOrigin.controlSocket(client: 1)
        await rig.core.calibrate(sixPoint: .start, from: client)
        let progress = try #require(heard.withLock { $0 }.first { $0.type == .calibrationProgress })
        #expect(progress.origins == [client] && progress.details["state"] == .string("waiting"))
        #expect(rig.mqtt.published(on: rig.topics.event).isEmpty, "nothing on P/event while disconnected")
        await Self.sixPoint(rig, "start")
        let refused = try #require(heard.withLock { $0 }.last)
        #expect(refused.type == .calibrationRejected && refused.origins == [.mqtt],
                "a refusal answers who asked, not the run's owner")
        await Self.sixPoint(rig, "cancel")
        let cancelled = try #require(heard.withLock { $0 }.last)
        #expect(cancelled.origins == [client, .mqtt], "a cancel concerns who started the run and who ended it")
        #expect(heard.withLock { $0 }.allSatisfy { !$0.payload.isEmpty })
        await rig.core.removeEventListener(id)
        let count = heard.withLock { $0.count }
        await rig.core.calibrate(sixPoint: .start, from: client)
        #expect(heard.withLock { $0.count } == count)
    }
}
