@testable import Agent
import BrokerHarness
import Foundation
import Testing

/// The `mqtt:<topic>` thermometer's messages, read strictly: the forms thermometers publish, and
/// every other one refused with the reason.
@Suite("A thermometer's messages")
struct TemperatureMessageTests {
    func celsius(_ text: String) -> Double? {
        try? TemperatureMessage.celsius(Array(text.utf8)).get()
    }

    func refusal(_ text: String) -> String? {
        if case .failure(let error) = TemperatureMessage.celsius(Array(text.utf8)) { return error.description }
        return nil
    }

    @Test(arguments: [
        ("21.5", 21.5), (" 21.5\n", 21.5), ("-4", -4), ("21.5 °C", 21.5), ("21.5C", 21.5), ("70.7°F", 21.5),
        ("212 F", 100), ("2.15e1", 21.5),
        (#"{"temperature": 21.5}"#, 21.5), (#"{"value": 21}"#, 21), (#"{"temperature": 21.5, "humidity": 40}"#, 21.5),
        (#"{"value": 70.7, "unit": "°F"}"#, 21.5), (#"{"temperature": 294.65, "unit_of_measurement": "°C"}"#, 294.65),
        (#"{"temperature": 32, "temperature_unit": "fahrenheit"}"#, 0),
    ])
    func theFormsThermometersPublish(text: String, expected: Double) throws {
        let value = try #require(celsius(text), "\(text): \(refusal(text) ?? "")")
        #expect(abs(value - expected) < 0.01, "\(text) → \(value)")
    }

    @Test(arguments: [
        ("", "empty"), ("warm", "not a number of degrees"), ("0x15", "not a number of degrees"), ("21,5", "not a number"),
        ("inf", "not a number"), ("NaN", "not a number"), ("21.5 K", "not a number of degrees"),
        (#"{"humidity": 40}"#, "neither \"temperature\" nor \"value\""), (#"{"temperature": null}"#, "is null"),
        (#"{"temperature": "21.5"}"#, "is a string"), (#"{"temperature": 21.5,}"#, "not valid JSON"),
        (#"{"temperature": 21, "temperature": 22}"#, "not valid JSON"), (#"{"temperature": 21, "unit": "K"}"#, "not a temperature unit"),
        (#"[21.5]"#, "not a number of degrees"),
    ])
    func everythingElseIsRefusedWithTheReason(text: String, reason: String) throws {
        let message = try #require(refusal(text), "\(text) was read as \(celsius(text) ?? .nan)")
        #expect(message.contains(reason), "\(text): \(message)")
    }

    @Test func aHugeMessageIsRefusedUnread() throws {
        let message = try #require(refusal(String(repeating: "1", count: 5000)))
        #expect(message.contains("5000 bytes"), "\(message)")
    }

    @Test func theThermalZoneIsReadInMillidegrees() throws {
        let root = temporaryPath("zone")
        try FileManager.default.createDirectory(atPath: root + "/thermal_zone0", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "48312\n".write(toFile: root + "/thermal_zone0/temp", atomically: true, encoding: .utf8)
        #expect(try ThermalZone(zone: 0, root: root).read().get() == 48.312)
        try "hot\n".write(toFile: root + "/thermal_zone0/temp", atomically: true, encoding: .utf8)
        guard case .failure(let error) = ThermalZone(zone: 0, root: root).read() else { Issue.record("garbage read"); return }
        #expect(error.description.contains("not whole millidegrees"), "\(error)")
        guard case .failure(let missing) = ThermalZone(zone: 7, root: root).read() else { Issue.record("no zone 7"); return }
        #expect(missing.description.contains("thermal_zone7/temp") && missing.description.contains("ls \(root)"), "\(missing)")
    }
}
