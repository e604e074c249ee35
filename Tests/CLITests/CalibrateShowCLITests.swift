import BrokerHarness
import Foundation
import Geometry
import Level
import Persistence
import Testing

/// `plumb calibrate show`: the stored calibration for people, or as JSON; no sensor opened.
@Suite("plumb calibrate show")
struct CalibrateShowCLITests {
    /// Tumbles at 15 and 30 °C of a part drifting 0.4 mg/°C on x, merged as `calibrate` stores them.
    private func mergedRecord() throws -> CalibrationRecord {
        let chip = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5", model: "ADXL345")
        func tumble(_ t: Double) throws -> CalibrationRecord {
            CalibrationRecord(method: .sixPoint, date: "2026-12-01T10:00:00Z", chip: chip, residualMilliG: .init(rms: 0.3, max: 0.45),
                              calibration: try Calibration(matrix: .identity, offset: Vector3(x: 0.02 + 0.0004 * (t - 22.5), y: 0, z: 0)),
                              temperatureC: t)
        }
        return try tumble(15).merging(try tumble(30)).record
    }

    @Test("With no calibration it says so and how to make one, exit 0; --json prints null")
    func nothingStored() async throws {
        let directory = try makeTemporaryDirectory("show")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await PlumbProcess.run(["calibrate", "show", "--state-dir", directory])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("no calibration in \(directory)/calibration.json")
            && outcome.stdout.contains("plumb calibrate six-point"), "\(outcome)")
        let json = try await PlumbProcess.run(["calibrate", "show", "--state-dir", directory, "--json"])
        #expect(json.status == 0 && json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "null", "\(json)")
    }

    @Test("A record merged across temperatures shows its tumbles and its drift; --json the record")
    func merged() async throws {
        let directory = try makeTemporaryDirectory("show")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try StateStore(directory: directory).save(calibration: try mergedRecord())
        let outcome = try await PlumbProcess.run(["calibrate", "show", "--state-dir", directory])
        #expect(outcome.status == 0, "\(outcome)")
        for expected in ["six_point calibration of the ADXL345 at 0x53 on /dev/i2c-1 (ID 0xE5)",
                         "temperature  22.5 °C", "tumbles      15.0 °C", "             30.0 °C",
                         "drift        bench, 2 tumbles; T₀ 22.5 °C, data over 15.0 °C…30.0 °C",
                         "  offset     x +0.400 ± 0.028 mg/°C", "  near level x +0.0229°/°C"] {
            #expect(outcome.stdout.contains(expected), "\(expected) in \(outcome)")
        }
        let json = try await PlumbProcess.run(["calibrate", "show", "--state-dir", directory, "--json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["temperatures"] as? [Any])?.count == 2 && object["temperature_c"] as? Double == 22.5)
        #expect((object["drift"] as? [String: Any])?["origin"] as? String == "bench")
    }

    @Test("An old record shows no temperature and how to learn the drift")
    func oldRecord() async throws {
        let directory = try makeTemporaryDirectory("show")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var record = try mergedRecord()
        record.temperatureC = nil
        record.benchPoints = nil
        record.drift = nil
        try StateStore(directory: directory).save(calibration: record)
        let outcome = try await PlumbProcess.run(["calibrate", "show", "--state-dir", directory])
        #expect(outcome.status == 0 && outcome.stdout.contains("temperature  not recorded")
            && outcome.stdout.contains("drift        none") && outcome.stdout.contains("learn_drift"), "\(outcome)")
    }

    @Test("Sensor and tumble options are refused: show opens no sensor")
    func refusesSensorOptions() async throws {
        try await PlumbProcess.expectUsageError(["calibrate", "show", "--seconds", "3", "--state-dir", "/tmp"],
                                                mentioning: "--seconds does not apply to show")
        try await PlumbProcess.expectUsageError(["calibrate", "show", "--sensor", "sim", "--state-dir", "/tmp"],
                                                mentioning: "--sensor does not apply to show")
    }
}
