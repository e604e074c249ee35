import Contract
import Control
import Geometry
import Level
import Testing

@Suite("The control socket's requests, parsed strictly")
struct ControlProtocolTests {
    private func parse(_ text: String) throws(ControlFailure) -> ControlRequest {
        try ControlRequest(line: Array(text.utf8))
    }

    private func failure(_ text: String) -> ControlFailure? {
        do { _ = try parse(text) } catch { return error }
        return nil
    }

    @Test("Every request round-trips through its line")
    func roundTrip() throws {
        let requests: [ControlRequest] = [.hello, .read, .watch(interval: 0.25), .vibration, .probe, .selftest,
                                          .sixPoint(.start), .sixPoint(.next), .sixPoint(.cancel),
                                          .reversal(.first), .reversal(.second)]
        for request in requests {
            #expect(try ControlRequest(line: request.json.bytes) == request)
        }
    }

    @Test("watch without an interval streams ten a second; outside 0.05–60 s is refused")
    func watchInterval() throws {
        #expect(try parse(#"{"request":"watch"}"#) == .watch(interval: 0.1))
        #expect(try parse(#"{"request":"watch","interval_s":2}"#) == .watch(interval: 2))
        #expect(failure(#"{"request":"watch","interval_s":0.001}"#)?.code == .badField)
        #expect(failure(#"{"request":"watch","interval_s":"fast"}"#)?.code == .badField)
    }

    @Test("Malformed lines get malformed, each saying what a request looks like",
          arguments: ["", "read", "{\"request\":\"read\",}", "{\"request\":\"read\",\"request\":\"read\"}", "[1]",
                      "{\"request\":7}", "{}", "{\"request\":\"read\"} x", "\u{FEFF}{\"request\":\"read\"}"])
    func malformed(_ line: String) {
        let error = failure(line)
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("request") == true)
    }

    @Test("An unknown request lists the requests; an unknown field names the fields")
    func unknown() {
        let unknown = failure(#"{"request":"reboot"}"#)
        #expect(unknown?.code == .unknownRequest)
        #expect(unknown?.message.contains("hello, read, watch") == true)
        let extra = failure(#"{"request":"read","rate":800}"#)
        #expect(extra?.code == .badField)
        #expect(extra?.message.contains("\"rate\"") == true)
        #expect(failure(#"{"request":"six_point","action":"go"}"#)?.message.contains("start, next and cancel") == true)
        #expect(failure(#"{"request":"reversal"}"#)?.code == .badField)
    }

    @Test("A request quoted back is cut and shows no control characters")
    func quoting() {
        let name = String(repeating: "x", count: 200) + "\u{1B}[2J"
        let message = failure(#"{"request":"\#(name)"}"#)?.message ?? ""
        #expect(!message.contains("\u{1B}"))
        #expect(message.count < 200)
    }

    @Test("A reading survives the wire: angles from the level frame, flags, age and calibration")
    func readingWire() throws {
        let gravity = Vector3(x: 0.01, y: -0.02, z: 0.9997)
        let measurement = Measurement(deviceGravity: gravity, levelGravity: gravity, attitude: Attitude(gravity: gravity),
                                      standardError: Vector3(x: 1e-5, y: 2e-5, z: 3e-5), noise: Vector3(x: 1e-3, y: 1e-3, z: 2e-3),
                                      stillness: .stable, isLevel: false, isAlarm: nil, events: [], time: 100)
        let reading = AgentReading(measurement: measurement, age: 0.25, calibrationMethod: "six_point",
                                   calibrationDate: "2026-12-02T01:00:00Z", mount: "flat", zeroed: true, angleUnit: .percent,
                                   tolerance: Angle(degrees: 0.2))
        let back = try AgentReading(json: reading.json, now: 50)
        #expect(back.measurement.levelGravity == gravity)
        #expect(abs(back.measurement.attitude.tilt.degrees - measurement.attitude.tilt.degrees) < 1e-9)
        #expect(back.measurement.isStable && back.measurement.isLevel == false && back.measurement.isAlarm == nil)
        #expect(back.measurement.time == 49.75)
        #expect(back.calibrationMethod == "six_point" && back.zeroed && back.angleUnit == .percent)
        #expect(abs(back.tolerance.degrees - 0.2) < 1e-12)
        guard case .object(var fields) = reading.json else { Issue.record("not an object"); return }
        fields["stillness"] = .string("wobbly")
        #expect(throws: ControlFailure.self) { try AgentReading(json: .object(fields), now: 0) }
    }

    @Test("The unit is the cgroup's service, nil outside one")
    func unit() {
        #expect(ChipOwner.currentUnit(cgroup: "0::/system.slice/plumb.service\n") == "plumb.service")
        #expect(ChipOwner.currentUnit(cgroup: "0::/user.slice/user-1000.slice/session-3.scope\n") == nil)
        #expect(ChipOwner.currentUnit(cgroup: nil) == nil)
    }
}
