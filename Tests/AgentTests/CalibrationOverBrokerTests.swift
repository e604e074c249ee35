import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import MQTT
import Persistence
import Testing

/// `plumb run` on the simulated chip against a real mosquitto: the calibration loaded at start
/// and on SIGHUP, the reversal over MQTT, and the self-test on a running agent.
@Suite("Calibration and self-test over a real broker", .serialized)
struct CalibrationOverBrokerTests {
    /// Half-second windows and a 1 s heartbeat: stable soon after a move, and states keep coming.
    static let quickLevel = "level:\n  level_dwell_s: 0\n  average_window_s: 0.5\n  heartbeat_s: 1\n"
    /// The chip's zero-g offset: 20 mg on x and −15 mg on y, about 1.4° of tilt on a level surface.
    static let offset = ["--sim-offset-mg", "20,-15,0"]

    static func angles(_ state: [String: Any]) -> (roll: Double, pitch: Double)? {
        guard let roll = state["roll"] as? Double, let pitch = state["pitch"] as? Double else { return nil }
        return (roll, pitch)
    }

    @Test func theReversalOverMQTTFindsTheOffsetAndTheSurfaceAndCorrectsTheReadings() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        // Long holds: the first position must outlast the agent's start on a loaded machine.
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.quickLevel, arguments: Self.offset + [
            "--sim-seed", "11", "--sim-script", "surface:0.3/-0.2 25s, turn:180 600s",
        ])
        let p = agent.prefix
        let before = try #require(await observer.waitForJSON(p + "/state", timeout: 20) { $0["stable"] as? Bool == true })
        let first = try #require(Self.angles(before))
        try observer.publish(p + "/command/calibrate_reversal", "first")
        let progress = await observer.waitForJSON(p + "/event") {
            ["calibration_progress", "calibration_rejected"].contains($0["type"] as? String)
        }
        try #require(progress?["type"] as? String == "calibration_progress", "\(String(describing: progress))")

        // Turned: the surface's 0.3°/−0.2° flip sign in the sensor's frame, the chip's offset stays.
        let turned = await observer.waitForJSON(p + "/state", timeout: 30) { state in
            guard state["stable"] as? Bool == true, let now = Self.angles(state) else { return false }
            return abs(now.roll - first.roll) + abs(now.pitch - first.pitch) > 0.6
        }
        try #require(turned != nil)
        try observer.publish(p + "/command/calibrate_reversal", "second")
        let outcome = await observer.waitForJSON(p + "/event") {
            ["calibration_applied", "calibration_rejected"].contains($0["type"] as? String)
        }
        let applied = try #require(outcome, "no outcome")
        try #require(applied["type"] as? String == "calibration_applied", "\(applied)")
        let found = try #require(applied["zero_offset_mg"] as? [Double])
        #expect(abs(found[0] - 20) < 2 && abs(found[1] + 15) < 2, "zero error \(found) mg, the chip's is 20, −15")
        #expect(abs((applied["surface_roll_deg"] as? Double ?? 9) - 0.3) < 0.1, "\(applied)")
        #expect(abs((applied["surface_pitch_deg"] as? Double ?? 9) + 0.2) < 0.1, "\(applied)")
        #expect(applied["stable"] as? Bool == true && applied["persisted"] == nil)

        // From now on the turned device reads the surface, turned, not the surface plus 1.4°.
        let skip = observer.messages.count
        let corrected = try #require(await observer.waitFor(p + "/state", after: skip, timeout: 15) {
            json($0)?["stable"] as? Bool == true
        }.flatMap(json).flatMap(Self.angles))
        #expect(abs(corrected.roll + 0.3) < 0.1 && abs(corrected.pitch - 0.2) < 0.1, "\(corrected)")
        let published = try #require(await observer.waitForJSON(p + "/calibration") { $0["method"] as? String == "reversal" })
        #expect(published["date"] is String && published["calibration"] is [String: Any])
        #expect(StateStore(directory: agent.stateDirectory).loadCalibration().record?.method == .reversal)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aCalibrationInTheStateDirectoryIsAppliedAtStartAndSIGHUPReadsItAgain() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let directory = temporaryPath("cal")
        let store = StateStore(directory: directory)
        try store.save(calibration: CalibrationRecord(
            method: .reversal, chip: .init(bus: "simulated", address: "0x53", devid: "0xE5"),
            calibration: try Calibration(matrix: .identity, offset: Vector3(x: 0.020, y: -0.015, z: 0))))
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.quickLevel, arguments: Self.offset,
                                     stateDirectory: directory)
        let p = agent.prefix
        await observer.waitForJSON(p + "/calibration") { $0["method"] as? String == "reversal" }
        let state = try #require(await observer.waitForJSON(p + "/state") { $0["stable"] as? Bool == true })
        #expect((state["tilt"] as? Double ?? 9) < 0.15, "the stored offset is corrected: \(state)")

        try store.removeCalibration()
        await agent.send(SIGHUP)
        await observer.waitForJSON(p + "/calibration") { $0["method"] is NSNull }
        let skip = observer.messages.count
        let raw = await observer.waitFor(p + "/state", after: skip) { json($0)?["stable"] as? Bool == true }.flatMap(json)
        #expect(abs((raw?["tilt"] as? Double ?? 0) - 1.43) < 0.15, "raw again after SIGHUP: \(String(describing: raw))")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aSelfTestOnTheRunningAgentPassesAndSamplingResumes() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.quickLevel)
        let p = agent.prefix
        await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "ok" }
        try observer.publish(p + "/command/selftest", "PRESS")
        let event = try #require(await observer.waitForJSON(p + "/event") { $0["type"] as? String == "selftest" })
        #expect(event["passed"] as? Bool == true, "\(event)")
        #expect((event["axes"] as? [[String: Any]])?.count == 3)
        #expect(await agent.waitForLog("sampling resumed"))
        let skip = observer.messages.count
        await observer.waitFor(p + "/state", after: skip) { json($0)?["sensor"] as? String == "ok" && json($0)?["roll"] is Double }
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
