import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import Persistence
import Testing

@Suite("StateStore: calibration.json round trip; a damaged file is set aside, never applied")
struct CalibrationRecordTests {
    static let chip = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5")

    static func sixPoint() throws -> CalibrationRecord {
        let matrix = try #require(Matrix3([[0.97, -0.007, 0.004], [0.008, 0.99, -0.004], [0.0077, -0.0078, 1.01]]))
        return CalibrationRecord(
            method: .sixPoint, date: CalibrationRecord.timestamp(1_796_126_400), chip: chip,
            residualMilliG: .init(rms: 0.31, max: 0.47),
            calibration: try Calibration(matrix: matrix, offset: Vector3(x: 0.0289, y: -0.03, z: -0.0055)),
            faces: [.init(face: .plusZ, mean: Vector3(x: 0.033, y: -0.034, z: 0.998), samples: 200)])
    }

    @Test("A saved record loads back equal, with the documented keys")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        var record = try Self.sixPoint()
        record.reversal = CalibrationRecord.Reversal(try ReversalCalibration(
            first: Attitude.gravity(roll: Angle(degrees: 0.3), pitch: Angle(degrees: -0.2)),
            second: Attitude.gravity(roll: Angle(degrees: -0.3), pitch: Angle(degrees: 0.2)), mount: .flat))
        record.method = .sixPointAndReversal
        try store.save(calibration: record)
        let loaded = store.loadCalibration()
        #expect(loaded.record == record && loaded.warning == nil)
        let text = try String(contentsOfFile: store.calibrationPath, encoding: .utf8)
        for key in ["\"format\" : 1", "\"method\" : \"six_point+reversal\"", "\"date\" : \"2026-12-01T12:00:00Z\"",
                    "\"devid\" : \"0xE5\"", "\"residual_mg\"", "\"offset_g\"", "\"mean_g\"", "\"surface_roll_deg\"",
                    "\"zero_offset_mg\""] {
            #expect(text.contains(key), "\(key) in \(text)")
        }
        #expect(try directory.contents() == ["calibration.json"])
        try store.removeCalibration()
        #expect(store.loadCalibration() == (nil, nil) as (CalibrationRecord?, String?))
        try store.removeCalibration()  // removing what is not there is fine
    }

    @Test("No file is no calibration and no warning")
    func missing() throws {
        let directory = try TemporaryDirectory()
        let loaded = StateStore(directory: directory.path).loadCalibration()
        #expect(loaded.record == nil && loaded.warning == nil)
    }

    @Test("A damaged file is moved aside with a warning that says why", arguments: [
        ("{not json", "not JSON (line 1, column 4)"),
        (#"{"format":2}"#, "format"),
        ("IMPLAUSIBLE", "implausible"),
        ("UNKNOWN-METHOD", "method"),
    ])
    func damaged(content: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        var text = content
        if content == "IMPLAUSIBLE" || content == "UNKNOWN-METHOD" {
            try store.save(calibration: try Self.sixPoint())
            let saved = try String(contentsOfFile: store.calibrationPath, encoding: .utf8)
            text = content == "IMPLAUSIBLE"
                ? saved.replacingOccurrences(of: "0.0289", with: "0.9")  // a 900 mg offset
                : saved.replacingOccurrences(of: "\"six_point\"", with: "\"tumble\"")
            #expect(text != saved)
        }
        try directory.write(text, to: "calibration.json")
        let loaded = store.loadCalibration()
        #expect(loaded.record == nil)
        let warning = try #require(loaded.warning)
        #expect(warning.contains(reason) && warning.contains("corrupt") && warning.contains("uncalibrated"), "\(warning)")
        let contents = try directory.contents()
        #expect(contents.count == 1 && contents[0].hasPrefix("calibration.json.corrupt-"), "\(contents)")
    }
}
