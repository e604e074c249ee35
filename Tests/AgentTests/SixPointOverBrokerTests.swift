import BrokerHarness
import Configuration
import Foundation
import Geometry
import MQTT
import Persistence
import Testing

/// `calibrate_six_point` on `plumb run` with the simulated chip against a real mosquitto: the
/// chip is turned face by face by its script, a client says `next` as Home Assistant's button
/// would, and the calibration it makes is in force for the next `P/state`.
@Suite("The six-point tumble over a real broker", .serialized)
struct SixPointOverBrokerTests {
    /// Half-second windows: stable soon after a move.
    static let quickLevel = "level:\n  level_dwell_s: 0\n  average_window_s: 0.5\n  heartbeat_s: 1\n"
    /// The chip's zero-g offset, in mg: about 1.1° of roll and 0.9° of pitch when it lies flat.
    static let offset = ["--sim-offset-mg", "20,-15,10"]
    static let faces = ["+z", "-x", "+y", "-z", "+x", "-y"]

    static func isSixPoint(_ event: [String: Any], _ type: String) -> Bool {
        event["type"] as? String == type && event["method"] as? String == "six_point"
    }

    @Test func aWholeTumbleOverMQTTReportsEachFaceAppliesTheCalibrationAndTheNextStateIsCalibrated() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        // Each face long enough to settle and average 2 s on a loaded machine; flat again at the end.
        let script = Self.faces.map { "face:\($0) 12s" }.joined(separator: ", ") + ", face:+z 600s"
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.quickLevel, arguments: Self.offset + [
            "--sim-seed", "5", "--sim-script", script,
        ])
        let p = agent.prefix
        let command = p + "/command/calibrate_six_point"
        try #require(await observer.waitForJSON(p + "/state", timeout: 20) { $0["stable"] as? Bool == true } != nil)
        try observer.publish(command, "start")
        let waiting = try #require(await observer.waitForJSON(p + "/event") { Self.isSixPoint($0, "calibration_progress") })
        #expect(waiting["state"] as? String == "waiting")
        #expect(waiting["remaining"] as? [String] == ["+x", "-x", "+y", "-y", "+z", "-z"])

        // The person: says next, and again a moment later when the face was refused (still on the
        // one just done), until the calibration is applied.
        var applied: [String: Any]?
        for _ in 0..<60 {
            let skip = observer.messages.count
            try observer.publish(command, "next")
            let answer = try #require(await observer.waitFor(p + "/event", after: skip, timeout: 30) { message in
                guard let event = json(message) else { return false }
                return Self.isSixPoint(event, "calibration_progress") && event["state"] as? String == "waiting"
                    || event["type"] as? String == "calibration_applied" || Self.isSixPoint(event, "calibration_rejected")
            }.flatMap(json))
            try #require(!Self.isSixPoint(answer, "calibration_rejected"), "\(answer)")
            if answer["type"] as? String == "calibration_applied" {
                applied = answer
                break
            }
            if answer["refused"] != nil { try await Task.sleep(for: .seconds(TestTimeScale.scaled(1.5))) }
        }
        let result = try #require(applied, "no calibration_applied")
        #expect(result["method"] as? String == "six_point" && result["started_by"] as? String == "mqtt")
        #expect(result["residual_mg"] is [String: Any] && result["persisted"] == nil, "\(result)")

        // The progress, in order: each face settled, averaged and done, in the order it was laid.
        let progress = observer.events("calibration_progress", prefix: p).filter { $0["method"] as? String == "six_point" }
        let done = progress.filter { $0["state"] as? String == "done" }
        #expect(done.compactMap { $0["face"] as? String } == Self.faces, "\(done)")
        #expect(done.map { ($0["done"] as? [String])?.count ?? 0 } == Array(1...6))
        var lastState = "waiting"
        for event in progress {
            let state = event["state"] as? String ?? ""
            let allowed: [String: Set<String>] = [
                "waiting": ["waiting", "settling"], "settling": ["settling", "averaging", "waiting"],
                "averaging": ["averaging", "settling", "done"], "done": ["waiting"],
            ]
            #expect(allowed[lastState]?.contains(state) == true, "\(lastState) then \(state)")
            if state == "averaging" { #expect(event["fraction"] is Double) }
            lastState = state
        }

        // Saved, published and in force: flat again, the next stable state reads level, not the offset's tilt.
        let skip = observer.messages.count
        let state = try #require(await observer.waitFor(p + "/state", after: skip, timeout: 30) { message in
            guard let state = json(message), state["stable"] as? Bool == true else { return false }
            return (state["tilt"] as? Double ?? 90) < 5
        }.flatMap(json))
        #expect(abs(state["roll"] as? Double ?? 9) < 0.15 && abs(state["pitch"] as? Double ?? 9) < 0.15, "\(state)")
        #expect(await observer.waitForJSON(p + "/calibration") { $0["method"] as? String == "six_point" } != nil)
        #expect(StateStore(directory: agent.stateDirectory).loadCalibration().record?.method == .sixPoint)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aSecondStartIsRefusedCancelEndsItAndAnInvalidPayloadListsThePayloads() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.quickLevel, arguments: ["--sim-seed", "6"])
        let p = agent.prefix
        let command = p + "/command/calibrate_six_point"
        try #require(await observer.waitForJSON(p + "/state", timeout: 20) { $0["stable"] as? Bool == true } != nil)

        try observer.publish(command, "begin")
        let invalid = try #require(await observer.waitForJSON(p + "/event") { Self.isSixPoint($0, "calibration_rejected") })
        #expect((invalid["reason"] as? String)?.contains("the payloads are start, next and cancel") == true, "\(invalid)")

        try observer.publish(command, "start")
        try #require(await observer.waitForJSON(p + "/event") { Self.isSixPoint($0, "calibration_progress") } != nil)
        try observer.publish(command, "start")
        let second = try #require(await observer.waitForJSON(p + "/event") {
            Self.isSixPoint($0, "calibration_rejected") && $0["action"] as? String == "start"
        })
        #expect(second["running"] as? String == "six_point" && second["started_by"] as? String == "mqtt")
        #expect((second["reason"] as? String)?.contains("a six-point calibration is running, started by mqtt") == true)
        try observer.publish(p + "/command/calibrate_reversal", "first")
        let reversal = try #require(await observer.waitForJSON(p + "/event") {
            $0["type"] as? String == "calibration_rejected" && $0["step"] as? String == "first"
        })
        #expect(reversal["running"] as? String == "six_point", "\(reversal)")

        try observer.publish(command, "cancel")
        let cancelled = try #require(await observer.waitForJSON(p + "/event") { $0["cancelled"] as? Bool == true })
        #expect(cancelled["type"] as? String == "calibration_rejected" && cancelled["method"] as? String == "six_point")
        #expect((cancelled["reason"] as? String)?.contains("cancelled by mqtt") == true, "\(cancelled)")
        // Free again: a reversal may begin.
        try observer.publish(p + "/command/calibrate_reversal", "first")
        #expect(await observer.waitForJSON(p + "/event") {
            $0["type"] as? String == "calibration_progress" && $0["step"] as? String == "first"
        } != nil)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
