import Accelerometers
import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import Persistence
import Sampling
import SimulatedADXL345
import Testing

/// `plumb calibrate` end to end: the built binary, driven without a terminal by `--sim-script`,
/// against a random typical chip whose true errors the test knows.
///
/// **Tolerances, from the noise.** Each face is a mean of 200 samples (2 s at 100 Hz) with the
/// datasheet's 0.75 LSB rms on x/y and 1.1 on z: 0.2 mg and 0.3 mg per axis. The fit's offset
/// is the mean of six such means (about 0.1 mg) and each column of A half a difference of two
/// (about 0.2 mg on 1 g, 2e-4); the cubic nonlinearity adds 0.02 mg at most. So 1 mg on the
/// offset and 1e-3 on M·A − I are four or more standard deviations, while the chip's errors are
/// 10–45 mg and 1e-2–4.5e-2: a fit that ignored any of them fails.
@Suite("plumb calibrate end to end")
struct CalibrateCLITests {
    static let chipSeed: UInt64 = 7
    static let chip = SimulatedADXL345.Configuration.randomTypicalPart(seed: chipSeed)
    /// Each face held 6 s: the move (0.5 s), up to 1.5 s to be judged still, 2 s of averaging.
    static let tumble = "face:+z 6s, face:-x 6s, face:+y 6s, face:-z 6s, face:+x 6s, face:-y 6s"

    private func calibrate(_ arguments: [String], script: String, stateDir: String) async throws -> PlumbProcess.Outcome {
        try await PlumbProcess.run(["calibrate"] + arguments + ["--sensor", "sim", "--sim-chip-seed", "\(Self.chipSeed)",
                                                           "--sim-script", script, "--state-dir", stateDir,
                                                           "--timeout", "60"], timeout: 90)
    }

    /// The mean raw reading of the same simulated chip held in `pose`, 2000 samples.
    private func rawReading(_ pose: SimulatedPose) throws -> Vector3 {
        var configuration = Self.chip
        configuration.scene = .pose(pose)
        let clock = ManualSimulationClock()
        let sampler = Sampler(chip: ADXL345(bus: SimulatedADXL345(configuration: configuration, clock: clock),
                                            address: configuration.address), clock: clock)
        try sampler.start(SamplingRequest(rateHz: 100, rangeG: 16))
        return try #require(GravityAverage(sampler.nextBatch(samples: 2000).samples).mean)
    }

    private func degreesBetween(_ a: Vector3, _ b: Vector3) -> Double {
        atan2(a.cross(b).magnitude, a.dot(b)) * 180 / .pi
    }

    @Test func aTumbleRecoversTheChipAndAReversalRefinesIt() async throws {
        let directory = try makeTemporaryDirectory("calibrate")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await calibrate(["six-point", "--json"], script: Self.tumble, stateDir: directory)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.contains("-x up: done") && outcome.stderr.contains("remaining: +x up, +y up, -y up, -z up"))
        let loaded = StateStore(directory: directory).loadCalibration()
        #expect(loaded.warning == nil)
        let record = try #require(loaded.record, "\(outcome)")
        #expect(record.method == .sixPoint && record.format == 1)
        #expect(record.chip == .init(bus: "simulated ADXL345", address: "0x53", devid: "0xE5", model: "ADXL345"))
        #expect(record.faces?.count == 6 && record.faces?.allSatisfy { $0.samples == 200 } == true)
        #expect(try outcome.jsonObjects().first?["method"] as? String == "six_point")
        let residual = try #require(record.residualMilliG)
        #expect(residual.rms > 0 && residual.rms < 1 && residual.max < 1.5, "\(residual)")

        // The fitted parameters against the chip's true ones.
        let calibration = record.calibration
        let offsetError = calibration.offset - Self.chip.offset / 1000
        #expect(max(abs(offsetError.x), abs(offsetError.y), abs(offsetError.z)) < 0.001, "offset off by \(offsetError) g")
        let product = calibration.matrix * Self.chip.sensitivity
        #expect(product.maxDifference(from: .identity) < 1e-3, "M·A − I: \(product - .identity)")

        // Applied to fresh readings of the chip, it reads true; uncorrected, or with gains and
        // offsets alone (the cross-axis terms dropped), it does not.
        let gainsOnly = try Calibration(matrix: Matrix3(diagonal: calibration.matrix.diagonal), offset: calibration.offset)
        var worstGainsOnly = 0.0
        for pose in [SimulatedPose(roll: Angle(degrees: 3), pitch: Angle(degrees: -2)),
                     SimulatedPose(roll: Angle(degrees: -20), pitch: Angle(degrees: 30)),
                     SimulatedPose(face: .minusX, roll: Angle(degrees: 5)), SimulatedPose(face: .plusY)] {
            let raw = try rawReading(pose)
            #expect(degreesBetween(calibration.apply(raw), pose.gravity) < 0.03, "\(pose)")
            #expect(degreesBetween(raw, pose.gravity) > 0.5, "the chip's errors are there to remove")
            worstGainsOnly = max(worstGainsOnly, degreesBetween(gainsOnly.apply(raw), pose.gravity))
        }
        #expect(worstGainsOnly > 0.2, "an offset-and-gain fit misses the cross-axis terms")

        // A reversal on top: same matrix, offset refined by what little is left, surface found.
        let reversal = try await calibrate(["reversal"], script: "surface:0.3/-0.2 6s, turn:180 6s", stateDir: directory)
        #expect(reversal.status == 0, "\(reversal)")
        #expect(reversal.stdout.contains("surface tilt"), "\(reversal)")
        let refined = try #require(StateStore(directory: directory).loadCalibration().record)
        #expect(refined.method == .sixPointAndReversal)
        #expect(refined.calibration.matrix == calibration.matrix && refined.residualMilliG == record.residualMilliG)
        #expect((refined.calibration.offset - calibration.offset).magnitude < 0.001)
        let surface = try #require(refined.reversal)
        #expect(abs(try #require(surface.surfaceRollDeg) - 0.3) < 0.03 && abs(surface.surfacePitchDeg + 0.2) < 0.03,
                "\(surface)")
    }

    @Test func aReversalAloneSeparatesTheZeroErrorFromTheSurface() async throws {
        let directory = try makeTemporaryDirectory("calibrate")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await calibrate(["reversal", "--json"], script: "surface:0.3/-0.2 6s, turn:180 6s", stateDir: directory)
        #expect(outcome.status == 0, "\(outcome)")
        let record = try #require(StateStore(directory: directory).loadCalibration().record, "\(outcome)")
        #expect(record.method == .reversal && record.residualMilliG == nil && record.faces == nil)
        #expect(record.calibration.matrix == .identity)
        // The zero error is what the chip reads on a level surface: A·(0, 0, 1) + b, horizontally.
        let level = Self.chip.sensitivity * Vector3(x: 0, y: 0, z: 1) + Self.chip.offset / 1000
        let reversal = try #require(record.reversal)
        #expect(abs(reversal.zeroOffsetMilliG[0] - level.x * 1000) < 1 && abs(reversal.zeroOffsetMilliG[1] - level.y * 1000) < 1,
                "\(reversal.zeroOffsetMilliG) mg vs \(level * 1000) mg")
        // The surface, read through the chip's uncorrected gain (up to 4.5 % of 0.3°) and noise.
        #expect(abs(try #require(reversal.surfaceRollDeg) - 0.3) < 0.04 && abs(reversal.surfacePitchDeg + 0.2) < 0.04,
                "\(reversal)")
        // Applied, the chip on a level surface reads level.
        let corrected = Attitude(gravity: record.calibration.apply(try rawReading(.level)))
        let raw = Attitude(gravity: try rawReading(.level))
        #expect(abs(corrected.roll.degrees) < 0.03 && abs(corrected.pitch.degrees) < 0.03, "\(corrected)")
        #expect(raw.tilt.degrees > 1, "uncorrected it is well off level: \(raw)")
    }

    @Test(arguments: [
        ("face:+z 6s, face:-z 6s, face:+z 6s", "The face +z up was measured twice"),
        ("face:+z 6s, face:+x roll:15 6s", "° from lying on a face (nearest: +x up); lay it flat"),
    ])
    func aRefusedFaceEndsTheScriptedTumbleAndSavesNothing(script: String, message: String) async throws {
        let directory = try makeTemporaryDirectory("calibrate")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await calibrate(["six-point"], script: script, stateDir: directory)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.stderr.contains(message) && outcome.stderr.contains("Nothing was saved"), "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/calibration.json"))
    }

    @Test func mistakesAreUsageErrors() async throws {
        try await PlumbProcess.expectUsageError(["calibrate", "--sensor", "sim"], mentioning: "six-point or reversal")
        try await PlumbProcess.expectUsageError(["calibrate", "tumble", "--sensor", "sim"], mentioning: "got 'tumble'")
        try await PlumbProcess.expectUsageError(["calibrate", "six-point", "--sensor", "sim", "--mount", "upright"],
                                          mentioning: "--mount applies to reversal only")
        try await PlumbProcess.expectUsageError(["calibrate", "reversal", "--sensor", "sim", "--mount", "y,x,-z"],
                                          mentioning: "flat or upright")
        try await PlumbProcess.expectUsageError(["calibrate", "six-point", "--sensor", "sim", "--seconds", "1"],
                                          mentioning: "--seconds must be between 2")
        try await PlumbProcess.expectUsageError(["calibrate", "six-point", "--sensor", "sim", "--sim-script", "face:+z"],
                                          mentioning: "--sim-script: step 1 ends with 'face:+z' and no duration")
        try await PlumbProcess.expectUsageError(["read", "--sensor", "sim", "--sim-script", "face:+z 2s", "--sim-roll", "3"],
                                          mentioning: "--sim-script and --sim-roll exclude each other")
        try await PlumbProcess.expectUsageError(["read", "--sensor", "sim", "--sim-cross-axis", "1,2"],
                                          mentioning: "--sim-cross-axis takes one bound")
    }

    @Test func everyCommandThatReadsTheSensorFollowsTheScript() async throws {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-noise-lsb", "0", "--sim-script",
                                            "face:+z 1.5s, roll:10 3s", "--count", "3", "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        let rolls = try outcome.jsonObjects().compactMap { $0["roll"] as? Double }
        #expect(rolls.count == 3 && abs(rolls[0]) < 0.3 && abs(rolls[2] - 10) < 0.3, "\(rolls)")
    }
}
