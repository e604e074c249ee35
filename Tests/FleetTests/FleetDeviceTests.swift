import FoundationEssentials
import Fleet
import Testing

@Suite("Fleet devices from their payloads")
struct FleetDeviceTests {
    @Test func aHealthyDeviceShowsEveryFigure() throws {
        let device = try #require(fleet(healthyDevice("plumb/hall-2/lathe")).devices.first)
        #expect(device.id == "lathe" && device.site == "hall-2" && device.baseTopic == "plumb/hall-2")
        #expect(device.online == true && device.level == true && device.stable == true && device.alarm == false)
        #expect(device.tilt == 0.021 && device.unit == "deg" && device.sensor == "ok")
        #expect(device.name == "Lathe" && device.version == "0.1.0")
        #expect(device.calibrationMethod == nil && device.calibrationDate == nil)
        #expect(device.hasVibration == false && device.running == nil && device.zone == nil)
        #expect(device.malformed.isEmpty && device.problem == nil)
    }

    @Test func theAgeIsFromTheStatesTimestamp() throws {
        let device = try #require(fleet(healthyDevice("plumb/lathe", ts: "2026-12-01T12:00:00.250Z")).devices.first)
        let now = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse("2026-12-01T12:05:00.250Z")
        #expect(device.stateAge(at: now) == 300)
        let plain = try #require(fleet(healthyDevice("plumb/lathe", ts: "2026-12-01T12:04:48Z")).devices.first)
        #expect(plain.stateAge(at: now).map { ($0 * 1000).rounded() / 1000 } == 12.25)
        let unreadable = try #require(fleet(healthyDevice("plumb/lathe", ts: "yesterday")).devices.first)
        #expect(unreadable.stateAge(at: now) == nil)
        #expect(unreadable.stateTimestamp == "yesterday")
    }

    @Test(arguments: [
        "not json", "[1,2]", "{\"tilt\":\"flat\"}", "{\"level\":1}", "{", "\u{FF}\u{FE}", "null", "42",
        String(repeating: "[", count: 10_000),
        // Not RFC 8259, though a lenient parser reads them: strict JSON only, as everywhere.
        "{\"tilt\":1.5,\"level\":true,}", "{\"tilt\":1.5,\"tilt\":2}", "{\"tilt\":NaN}",
    ])
    func aMalformedStateShowsAsSuchAndNeverCrashes(payload: String) throws {
        var messages = healthyDevice("plumb/lathe")
        messages.append(("plumb/lathe/state", payload))
        let device = try #require(fleet(messages).devices.first)
        #expect(device.malformed == [.state])
        #expect(device.tilt == nil && device.stable == nil && device.stateTime == nil)
        // P/level still says level; the rest of the device is unharmed.
        #expect(device.level == true && device.name == "Lathe" && device.online == true)
    }

    @Test func malformedTextTopicsAndOtherJSONTopics() throws {
        let device = try #require(fleet([
            ("plumb/lathe/status", "maybe"), ("plumb/lathe/level", "on"), ("plumb/lathe/config", "{\"name\":7}"),
            ("plumb/lathe/health", "[]"), ("plumb/lathe/calibration", "x"), ("plumb/lathe/vibration", "{\"running\":\"yes\"}"),
        ]).devices.first)
        #expect(device.malformed == Set(FleetLeaf.allCases).subtracting([.state]))
        #expect(device.online == nil && device.problem == .offline && device.hasVibration == false)
        // A readable payload later clears the mark.
        var later = fleet(healthyDevice("plumb/lathe"))
        later.receive(topic: "plumb/lathe/health", payload: Array("oops".utf8))
        later.receive(topic: "plumb/lathe/health", payload: Array(#"{"version":"0.2.0"}"#.utf8))
        #expect(later.devices.first?.malformed.isEmpty == true && later.devices.first?.version == "0.2.0")
    }

    @Test func missingTopicsLeaveTheirFieldsEmpty() throws {
        let device = try #require(fleet([("plumb/lathe/status", "online")]).devices.first)
        #expect(device.name == nil && device.version == nil && device.tilt == nil && device.level == nil)
        #expect(device.present == [.status] && device.malformed.isEmpty)
        #expect(device.problem == .notLevel)
    }

    @Test func vibrationWhenPresentAndNothingWhenCleared() throws {
        var messages = healthyDevice("plumb/lathe")
        messages.append(("plumb/lathe/vibration", #"{"running":null,"zone":"B","velocity_rms_mm_s":1.2}"#))
        let undecided = try #require(fleet(messages).devices.first)
        #expect(undecided.hasVibration && undecided.running == nil && undecided.zone == "B")
        messages.append(("plumb/lathe/vibration", ""))
        let off = try #require(fleet(messages).devices.first)
        #expect(!off.hasVibration && off.zone == nil && !off.present.contains(.vibration))
    }

    @Test func aDeviceWhoseTopicsAreAllClearedLeavesTheFleet() {
        var fleet = fleet(healthyDevice("plumb/lathe") + healthyDevice("plumb/mill"))
        for leaf in ["status", "state", "level", "config", "health", "calibration"] {
            fleet.receive(topic: "plumb/lathe/" + leaf, payload: [])
        }
        #expect(fleet.devices.map(\.id) == ["mill"])
    }

    @Test func theCalibrationInForceGivesItsDate() throws {
        var messages = healthyDevice("plumb/lathe")
        messages.append(("plumb/lathe/calibration", #"{"method":"six_point","date":"2026-11-30T10:00:00Z"}"#))
        let device = try #require(fleet(messages).devices.first)
        #expect(device.calibrationMethod == "six_point" && device.calibrationDate == "2026-11-30T10:00:00Z")
    }
}
