import Foundation
import Testing

/// `plumb vibration` end to end on the simulated chip: the figures, the JSON, the flags' errors.
@Suite("plumb vibration end to end")
struct VibrationCLITests {
    @Test func twoTonesAreReportedPerAxisWithTheBandAndZone() async throws {
        let outcome = try await PlumbProcess.run(["vibration", "--sensor", "sim", "--sim-vibration", "z:4@50,x:1@120",
                                            "--rate", "800", "--json", "--count", "2"])
        #expect(outcome.status == 0, "\(outcome)")
        let windows = try outcome.jsonObjects()
        #expect(windows.count == 2)
        let figures = try #require(windows.last)
        #expect(figures["band_hz"] as? [Double] == [10, 312.5])
        #expect(figures["zone"] as? String == "C", "the z axis's 4 mm/s is zone C for class I: \(figures)")
        #expect(figures["running"] as? Bool == true)
        let axes = try #require(figures["axes"] as? [String: [String: Any]])
        let z = try #require(axes["z"]?["velocity_rms_mm_s"] as? Double)
        let x = try #require(axes["x"]?["velocity_rms_mm_s"] as? Double)
        #expect(abs(z - 4) < 0.12 && abs(x - 1) < 0.1, "z \(z), x \(x)")
        #expect(abs((axes["x"]?["dominant_hz"] as? Double ?? 0) - 120) <= 1)
        let overall = try #require(figures["velocity_rms_mm_s"] as? Double)
        #expect(abs(overall - (z * z + x * x).squareRoot()) < 0.15, "the vector's RMS: \(overall)")
    }

    @Test func theTextNamesTheBandZoneAndEachAxis() async throws {
        let outcome = try await PlumbProcess.run(["vibration", "--sensor", "sim", "--sim-vibration", "z:3@50", "--rate", "400",
                                            "--class", "class_iv"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.lines.count == 5, "\(outcome)")
        #expect(outcome.lines.first?.contains("mm/s RMS (10–156.25 Hz)  zone B (class_iv:") == true, "\(outcome)")
        #expect(outcome.lines[3].hasPrefix("  z ") && outcome.lines[3].contains("dominant 50.0 Hz"), "\(outcome)")
    }

    @Test(arguments: [
        (["--rate", "25"], "band"),
        (["--rate", "333"], "--rate takes one of"),
        (["--window", "0.1"], "--window"),
        (["--class", "big"], "class_i"),
        (["--threshold", "1 m/s"], "\"0.02 g\""),
        (["--count", "2", "--watch"], "exclude each other"),
    ])
    func badFlagsSayWhatToDo(flags: [String], hint: String) async throws {
        let outcome = try await PlumbProcess.run(["vibration", "--sensor", "sim"] + flags)
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.stderr.contains(hint), "\(outcome)")
    }
}
