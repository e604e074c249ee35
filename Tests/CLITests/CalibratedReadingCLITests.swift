import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import Persistence
import Testing

/// The stored calibration applied by the commands that read, end to end: the built binary
/// calibrates the simulated chip, then reads it through `calibration.json`.
///
/// **Tolerances.** The calibrated reads average 400 samples (4 s at 100 Hz): the noise of that
/// mean is 0.15 mg on x/y, about 0.01°. The tumble's own error (2 s per face) leaves about 0.02°
/// (a 20 s read of this chip: 0.014° in roll, 0.018° in pitch at 10°/5°). So 0.05° up to 10° and
/// 0.1° at 45° hold with room, while the chip's offsets (29, −30 mg) alone are 1.7° raw.
@Suite("calibration applied by the reading commands")
struct CalibratedReadingCLITests {
    private static let chip = ["--sensor", "sim", "--sim-chip-seed", "\(CalibrateCLITests.chipSeed)"]

    /// Roll and pitch of one `plumb read --json` of the seed-7 chip held at `roll`/`pitch`.
    private func read(roll: Double, pitch: Double, _ extra: [String]) async throws -> (roll: Double, pitch: Double, object: [String: Any]) {
        let outcome = try await PlumbProcess.run(["read"] + Self.chip + ["--sim-roll", "\(roll)", "--sim-pitch", "\(pitch)",
                                                                   "--json"] + extra)
        #expect(outcome.status == 0, "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first, "\(outcome)")
        return (try #require(object["roll"] as? Double), try #require(object["pitch"] as? Double), object)
    }

    @Test func aTumbleThenReadsWithinTarget() async throws {
        let directory = try makeTemporaryDirectory("calibrated")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tumble = try await PlumbProcess.run(["calibrate", "six-point"] + Self.chip + ["--sim-script", CalibrateCLITests.tumble,
                                                                                   "--state-dir", directory, "--timeout", "60"],
                                          timeout: 90)
        try #require(tumble.status == 0, "\(tumble)")
        let record = try #require(StateStore(directory: directory).loadCalibration().record)

        var report: [String] = []
        for (roll, pitch, target) in [(0.0, 0.0, 0.05), (2, -1, 0.05), (-10, 5, 0.05), (45, 0, 0.1), (0, -45, 0.1)] {
            let calibrated = try await read(roll: roll, pitch: pitch, ["--state-dir", directory, "--average", "400"])
            let error = max(abs(calibrated.roll - roll), abs(calibrated.pitch - pitch))
            let raw = try await read(roll: roll, pitch: pitch, ["--raw"])
            let rawError = max(abs(raw.roll - roll), abs(raw.pitch - pitch))
            report.append("(\(roll), \(pitch)): calibrated \(error)°, raw \(rawError)°")
            #expect(error <= target, "\(report.last!)")
            #expect(rawError > 0.5, "the chip's errors are there to remove: \(report.last!)")
            let summary = try #require(calibrated.object["calibration"] as? [String: Any])
            #expect(summary["method"] as? String == "six_point" && summary["date"] as? String == record.date)
            #expect(raw.object["calibration"] is NSNull)
        }
        print("calibrated reads of chip seed 7: " + report.joined(separator: "; "))

        // The text reports name it too.
        let text = try await PlumbProcess.run(["read"] + Self.chip + ["--state-dir", directory])
        #expect(text.stdout.hasSuffix("  calibrated six_point \(record.date.prefix(10))\n"), "\(text)")
        let rise = try await PlumbProcess.run(["rise", "1m"] + Self.chip + ["--state-dir", directory])
        #expect(rise.stdout.contains("sensor     calibrated six_point"), "\(rise)")
        let raw = try await PlumbProcess.run(["shim", "--length", "1m", "--width", "1m", "--raw"] + Self.chip)
        #expect(raw.stdout.hasSuffix("sensor     raw\n"), "\(raw)")
    }

    @Test func aDamagedCalibrationIsSetAsideAndTheReadGoesOnRaw() async throws {
        let directory = try makeTemporaryDirectory("calibrated")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("{\"format\":1,\"method\":".utf8).write(to: URL(fileURLWithPath: directory + "/calibration.json"))
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "3", "--state-dir", directory, "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.contains("warning: \(directory)/calibration.json is corrupt"), "\(outcome)")
        #expect(outcome.stderr.contains("the sensor is used uncalibrated"), "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first)
        #expect(object["calibration"] is NSNull)
        #expect(abs(try #require(object["roll"] as? Double) - 3) < 0.1)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(left.count == 1 && left[0].hasPrefix("calibration.json.corrupt-"), "\(left)")
    }

    @Test func anotherChipsCalibrationIsRefusedUnlessRaw() async throws {
        let directory = try makeTemporaryDirectory("calibrated")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = CalibrationRecord(method: .sixPoint, chip: .init(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5"),
                                      calibration: try Calibration(matrix: .identity, offset: Vector3(x: 0.03, y: 0, z: 0)))
        try StateStore(directory: directory).save(calibration: other)
        for command in [["read"], ["bubble"], ["rise", "1m"], ["shim", "--length", "1m", "--width", "1m"],
                        ["watch", "--count", "1"]] {
            let refused = try await PlumbProcess.run(command + ["--sensor", "sim", "--state-dir", directory])
            #expect(refused.status == 1, "\(command): \(refused)")
            #expect(refused.stderr.contains("was made on the chip at 0x53 on /dev/i2c-1 (ID 0xE5), but this is"
                + " the ADXL345 at 0x53 on simulated ADXL345"), "\(refused)")
            #expect(refused.stderr.contains("add --raw"), "\(refused)")
        }
        let raw = try await PlumbProcess.run(["read", "--sensor", "sim", "--raw", "--json"])
        #expect(raw.status == 0, "\(raw)")
        let object = try #require(try raw.jsonObjects().first)
        #expect(object["calibration"] is NSNull)
    }

    @Test(arguments: [
        (["read", "--sensor", "sim", "--raw", "--state-dir", "/tmp"], "--raw and --state-dir exclude each other"),
        (["rise", "1m", "--sensor", "sim", "--raw", "--config", "/etc/plumb/plumb.yaml"], "--raw and --config"),
        (["bubble", "--sensor", "sim", "--state-dir", ""], "--state-dir needs a directory"),
        (["probe", "--sensor", "sim", "--raw"], "unknown option '--raw'"),
        (["selftest", "--sensor", "sim", "--state-dir", "/tmp"], "unknown option '--state-dir'"),
    ] as [([String], String)])
    func calibrationFlagMistakesAreUsageErrors(arguments: [String], message: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: message)
    }
}
