import Foundation
import Fleet
import Testing

@Suite("Fleet table and JSON")
struct FleetRenderingTests {
    let now = try! Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse("2026-12-01T12:00:12.000Z")

    @Test func theTableHasAColumnPerFigureAndARowPerDeviceProblemsFirst() {
        var messages = healthyDevice("plumb/hall-2/lathe") + healthyDevice("plumb/mill", status: "offline")
        messages.append(("plumb/hall-2/lathe/vibration", #"{"running":true,"zone":"C"}"#))
        messages.append(("plumb/hall-2/lathe/calibration", #"{"method":"reversal","date":"2026-11-30T10:00:00Z"}"#))
        let lines = FleetTable(devices: fleet(messages).devices, now: now).lines
        #expect(lines.count == 3)
        let columns = lines[0].split(separator: " ").map(String.init)
        #expect(columns == ["PROBLEM", "ID", "NAME", "SITE", "STATUS", "LEVEL", "TILT", "STABLE", "SENSOR", "RUNNING",
                            "ZONE", "AGE", "VERSION", "CALIBRATED", "NOTES"])
        #expect(lines[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            == ["offline", "mill", "Lathe", "offline", "yes", "0.021°", "yes", "ok", "12s", "0.1.0", "none"])
        #expect(lines[2].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            == ["lathe", "Lathe", "hall-2", "online", "yes", "0.021°", "yes", "ok", "yes", "C", "12s", "0.1.0", "2026-11-30"])
        // Columns line up: each header starts where its cells start.
        let zone = lines[0].range(of: "ZONE")!.lowerBound.utf16Offset(in: lines[0])
        #expect(lines[2].range(of: " C ")!.lowerBound.utf16Offset(in: lines[2]) + 1 == zone)
    }

    @Test func slopeUnitsAgesAndUndecidedRunning() {
        var messages = healthyDevice("plumb/lathe", ts: "2026-12-01T09:00:00Z")
        messages.append(("plumb/lathe/state", #"{"tilt":2.15,"unit":"mm_per_m","level":false,"ts":"2026-12-01T09:00:00Z"}"#))
        messages.append(("plumb/lathe/vibration", #"{"running":null,"zone":"A"}"#))
        let row = FleetTable(devices: fleet(messages).devices, now: now).lines[1]
        #expect(row.contains("2.15 mm/m") && row.contains(" 3h ") && row.contains(" ?  "), "\(row)")
        #expect(row.hasPrefix("not level"), "\(row)")
    }

    @Test func malformedTopicsAreNotedAndControlCharactersNeverReachTheTerminal() {
        var messages = healthyDevice("plumb/lathe")
        messages.append(("plumb/lathe/config", "{\"name\":\"\\u001b[2Jevil\\u0007\"}"))
        messages.append(("plumb/lathe/health", "garbage"))
        let lines = FleetTable(devices: fleet(messages).devices, now: now).lines
        #expect(!lines.joined().contains("\u{1B}") && !lines.joined().contains("\u{07}"))
        #expect(lines[1].contains("?[2Jevil?"), "\(lines[1])")
        #expect(lines[1].hasSuffix("malformed health"), "\(lines[1])")
    }

    private func listing(_ messages: [(String, String)]) throws -> [String: Any] {
        let json = FleetListing(baseTopic: "plumb", devices: fleet(messages).devices, now: now).json
        #expect(!json.contains("\n"))
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func theJSONHasEveryKeyAndRunningAndZoneOnlyWithVibration() throws {
        var messages = healthyDevice("plumb/hall-2/lathe") + healthyDevice("plumb/mill", status: "offline")
        messages.append(("plumb/hall-2/lathe/vibration", #"{"running":null,"zone":"C"}"#))
        let object = try listing(messages)
        #expect(object["base_topic"] as? String == "plumb" && object["count"] as? Int == 2)
        let devices = try #require(object["devices"] as? [[String: Any]])
        let common: Set = ["id", "name", "site", "base_topic", "status", "problem", "level", "tilt", "unit", "stable",
                           "sensor", "alarm", "state_ts", "state_age_s", "version", "calibration_method",
                           "calibration_date", "malformed"]
        #expect(Set(devices[0].keys) == common)
        #expect(Set(devices[1].keys) == common.union(["running", "zone"]))
        #expect(devices[0]["id"] as? String == "mill" && devices[0]["problem"] as? String == "offline")
        #expect(devices[0]["site"] is NSNull && devices[0]["status"] as? String == "offline")
        #expect(devices[1]["site"] as? String == "hall-2" && devices[1]["running"] is NSNull)
        #expect(devices[1]["zone"] as? String == "C" && devices[1]["state_age_s"] as? Double == 12)
        #expect(devices[1]["tilt"] as? Double == 0.021 && devices[1]["level"] as? Bool == true)
        #expect(devices[1]["calibration_method"] is NSNull && devices[1]["malformed"] as? [String] == [])
    }

    @Test func problemNamesAndMalformedInTheJSON() throws {
        var messages = healthyDevice("plumb/a", sensor: "fault") + healthyDevice("plumb/b", alarm: true)
            + healthyDevice("plumb/c", level: false)
        messages.append(("plumb/c/state", "{broken"))
        let devices = try #require(try listing(messages)["devices"] as? [[String: Any]])
        #expect(devices.map { $0["problem"] as? String } == ["sensor_fault", "alarm", "not_level"])
        #expect(devices[2]["malformed"] as? [String] == ["state"] && devices[2]["level"] as? Bool == false)
    }
}
