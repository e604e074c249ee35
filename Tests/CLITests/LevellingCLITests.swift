import Foundation
import Testing

/// `plumb rise` and `plumb shim` on the simulated sensor, run as subprocesses.
///
/// The noiseless simulated chip quantizes like the real one, to 1/256 g (3.9 mg): sin 1° is 4.47
/// LSB and reads as 4, so a noiseless answer is off by up to half an LSB's worth of slope, the
/// tolerance those tests allow. With the datasheet's noise the average dithers through the
/// steps, and the reported k = 2 uncertainty must then cover the exact answer; a fixed seed
/// keeps those runs repeatable.
@Suite("plumb rise and shim end to end")
struct LevellingCLITests {
    /// tan 1°.
    private static let tanOneDegree = tan(Double.pi / 180)
    /// Half of one LSB at 256 LSB/g, as a slope.
    private static let halfStep = 0.5 / 256

    private func json(_ arguments: [String]) async throws -> [String: Any] {
        let outcome = try await PlumbProcess.run(arguments)
        #expect(outcome.status == 0, "\(outcome)")
        return try #require(try outcome.jsonObjects().first, "\(outcome)")
    }

    // MARK: rise

    @Test func pitchUpRaisesTheRearEnd() async throws {
        // The sensor options may come before the command, as in a shell alias.
        let data = try await json(["--sensor", "sim", "--sim-pitch", "1", "--sim-noise-lsb", "0",
                             "rise", "1m", "--axis", "pitch", "--json"])
        let rise = try #require(data["rise"] as? Double)
        #expect(abs(rise - 1000 * Self.tanOneDegree) <= 1000 * Self.halfStep, "\(rise) mm vs 17.455 mm")
        #expect(data["high_end"] as? String == "-x")
        #expect(data["result_unit"] as? String == "mm")
        #expect(data["axis"] as? String == "pitch")
        // A noiseless reading has no spread, but an uncalibrated chip may be off by its datasheet's
        // zero-g offset (±35 mg, 2°): that is what the uncertainty says, and the note says why.
        let uncertainty = try #require(data["uncertainty"] as? Double)
        #expect(uncertainty > 60 && uncertainty < 90, "2 × 35 mg over a metre: \(uncertainty) mm")
        #expect(data["uncertainty_dominant"] as? String == "calibration")
        #expect((data["precision_note"] as? String)?.contains("plumb calibrate six-point") == true, "\(data)")
        #expect((data["uncertainty_deg"] as? Double ?? 0) > 4, "\(data)")
        let span = try #require(data["span"] as? [String: Any])
        #expect(span["value"] as? Double == 1 && span["unit"] as? String == "m")
        #expect(Set(data.keys) == ["span", "axis", "rise", "result_unit", "high_end", "angle_deg", "uncertainty",
                                   "uncertainty_deg", "uncertainty_dominant", "precision_note", "reading_age_s", "stable",
                                   "source"])
    }

    @Test func optionsBeforeOrAfterTheCommandGiveTheSameAnswer() async throws {
        let before = try await PlumbProcess.run(["--sensor", "sim", "--sim-pitch", "1", "--sim-noise-lsb", "0",
                                           "rise", "1m", "--json"])
        let after = try await PlumbProcess.run(["rise", "1m", "--json", "--sensor", "sim", "--sim-pitch", "1",
                                          "--sim-noise-lsb", "0"])
        #expect(before.status == 0, "\(before)")
        #expect(before.stdout == after.stdout)
    }

    @Test func theUncertaintyCoversTheExactRiseThroughTheNoise() async throws {
        for seed in ["1", "2", "3"] {
            let data = try await json(["rise", "1m", "--axis", "pitch", "--sensor", "sim", "--sim-pitch", "1",
                                 "--sim-seed", seed, "--json"])
            let rise = try #require(data["rise"] as? Double)
            let uncertainty = try #require(data["uncertainty"] as? Double)
            // Uncalibrated, the datasheet's zero-g offset dominates the noise's 0.1–2 mm.
            #expect(uncertainty > 0.1 && uncertainty < 90, "\(uncertainty) mm")
            #expect(abs(rise - 1000 * Self.tanOneDegree) <= uncertainty, "seed \(seed): \(rise) ± \(uncertainty) mm")
        }
    }

    @Test(arguments: [("1", "+y"), ("-1", "-y")])
    func rollRaisesTheLeftOrRightSide(roll: String, highEnd: String) async throws {
        let data = try await json(["rise", "1m", "--axis", "roll", "--sensor", "sim", "--sim-roll", roll,
                             "--sim-noise-lsb", "0", "--json"])
        #expect(data["high_end"] as? String == highEnd)
        let rise = try #require(data["rise"] as? Double)
        #expect(abs(rise - 1000 * Self.tanOneDegree) <= 1000 * Self.halfStep)
    }

    @Test func theSteepestRiseReportsItsDirection() async throws {
        let data = try await json(["rise", "47in", "--sensor", "sim", "--sim-roll", "2", "--sim-noise-lsb", "0",
                             "--result-unit", "in", "--json"])
        #expect(data["axis"] as? String == "steepest")
        #expect(data["result_unit"] as? String == "in")
        #expect(data["high_end"] as? String == "+y")
        let azimuth = try #require(data["azimuth_deg"] as? Double)
        #expect(abs(azimuth - 90) < 0.01, "uphill is +y, 90° from +x")
    }

    @Test func theTextNamesTheHighEnd() async throws {
        let outcome = try await PlumbProcess.run(["rise", "1.2m", "--axis", "roll", "--sensor", "sim", "--sim-roll", "1",
                                            "--sim-noise-lsb", "0"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("over 1.2 m along roll"))
        #expect(outcome.stdout.contains("high end   +y: the left side is higher"))
        #expect(outcome.stdout.contains("(k = 2)"))
    }

    @Test func aLevelFacingDownHasNoRiseToReport() async throws {
        let outcome = try await PlumbProcess.run(["rise", "1m", "--sensor", "sim", "--sim-roll", "180", "--sim-noise-lsb", "0"])
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.stderr.contains("within 89° of flat"), "\(outcome)")
        #expect(outcome.stdout.isEmpty)
    }

    // MARK: shim

    @Test func rollUpShimsTheRightFeet() async throws {
        let data = try await json(["--sensor", "sim", "--sim-roll", "1", "--sim-noise-lsb", "0",
                             "shim", "--length", "1m", "--width", "0.5m", "--json"])
        let feet = try #require(data["feet"] as? [[String: Any]])
        #expect(feet.compactMap { $0["foot"] as? String } == ["front_left", "front_right", "rear_left", "rear_right"])
        let shims = Dictionary(uniqueKeysWithValues: feet.compactMap { foot in
            (foot["foot"] as? String).flatMap { name in (foot["shim"] as? Double).map { (name, $0) } }
        })
        // The left feet (+y) stand high; the right ones come up by the width times tan 1°: 8.727 mm.
        #expect(shims["front_left"] == 0 && shims["rear_left"] == 0)
        for foot in ["front_right", "rear_right"] {
            let shim = try #require(shims[foot])
            #expect(abs(shim - 500 * Self.tanOneDegree) <= 500 * Self.halfStep, "\(foot): \(shim) mm vs 8.727 mm")
        }
        #expect(data["highest_foot"] as? String == "front_left")
        #expect(data["result_unit"] as? String == "mm")
        #expect(data["unit"] as? String == "m")
        #expect(feet.first?["x"] as? Double == 500 && feet.first?["y"] as? Double == 250, "x to the front, y to the left")
    }

    @Test func theShimUncertaintyCoversTheExactShim() async throws {
        let data = try await json(["shim", "--length", "1m", "--width", "500mm", "--sensor", "sim", "--sim-roll", "1",
                             "--sim-seed", "5", "--json"])
        let feet = try #require(data["feet"] as? [[String: Any]])
        let right = try #require(feet.first { $0["foot"] as? String == "rear_right" })
        let shim = try #require(right["shim"] as? Double)
        let uncertainty = try #require(right["uncertainty"] as? Double)
        #expect(abs(shim - 500 * Self.tanOneDegree) <= uncertainty, "\(shim) ± \(uncertainty) mm")
    }

    @Test func threeFeetAreTheFrontAndTheTwoRearCorners() async throws {
        let data = try await json(["shim", "--length", "1", "--width", "0.5", "--unit", "m", "--feet", "3",
                             "--sensor", "sim", "--sim-roll", "1", "--sim-noise-lsb", "0", "--json"])
        let feet = try #require(data["feet"] as? [[String: Any]])
        #expect(feet.compactMap { $0["foot"] as? String } == ["front", "rear_left", "rear_right"])
        #expect(data["highest_foot"] as? String == "rear_left")
        let shims = feet.compactMap { $0["shim"] as? Double }
        // The front foot is on the centre line: half the rise across the width.
        #expect(abs(shims[0] - 250 * Self.tanOneDegree) <= 250 * Self.halfStep)
        #expect(shims[1] == 0)
        #expect(abs(shims[2] - 500 * Self.tanOneDegree) <= 500 * Self.halfStep)
    }

    @Test func theTextIsATableOfFeet() async throws {
        let outcome = try await PlumbProcess.run(["shim", "--length", "47in", "--width", "31.5in", "--sensor", "sim",
                                            "--sim-pitch", "1", "--sim-noise-lsb", "0", "--result-unit", "in"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("47 in long (x) × 31.5 in wide (y), 4 feet"))
        for foot in ["front_left", "front_right", "rear_left", "rear_right"] {
            #expect(outcome.stdout.contains(foot))
        }
        #expect(outcome.stdout.contains("highest    rear_left"), "pitch up raises the rear: \(outcome)")
    }

    // MARK: mistakes

    @Test(arguments: [
        (["rise", "--sensor", "sim"], "plumb rise 1.2m"),
        (["rise", "1", "--sensor", "sim"], "has no unit"),
        (["rise", "1m", "--unit", "cm", "--sensor", "sim"], "written in m but --unit says cm"),
        (["rise", "1m", "--axis", "diagonal", "--sensor", "sim"], "--axis takes one of roll, pitch, steepest"),
        (["rise", "1m", "--result-unit", "px", "--sensor", "sim"], "--result-unit"),
        (["rise", "-1m", "--sensor", "sim"], "greater than 0"),
        (["rise", "1m", "--mount", "sideways", "--sensor", "sim"], "--mount"),
        (["rise", "1m", "--sim-roll", "1"], "--sensor sim"),
        (["shim", "--width", "1m", "--sensor", "sim"], "--length is required"),
        (["shim", "--length", "1m", "--sensor", "sim"], "--width is required"),
        (["shim", "--length", "1m", "--width", "1", "--sensor", "sim"], "--width '1' has no unit"),
        (["shim", "--length", "1m", "--width", "50cm", "--unit", "m", "--sensor", "sim"], "--unit says m"),
        (["shim", "--length", "1m", "--width", "1m", "--feet", "5", "--sensor", "sim"], "--feet takes one of 3, 4"),
        (["shim", "--length", "2km", "--width", "1m", "--sensor", "sim"], "--length"),
        (["shim", "--length", "1px", "--width", "1m", "--sensor", "sim"], "px is not one"),
    ] as [([String], String)])
    func mistakesPrintUsageAndExitTwo(arguments: [String], mentioned: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: mentioned, usage: "Usage: plumb \(arguments[0])")
    }

    @Test(arguments: ["bubble", "convert", "forget", "probe", "read", "rise", "ruler", "run", "selftest", "shim"])
    func everyCommandIsListedAndHasHelp(command: String) async throws {
        let help = try await PlumbProcess.run([command, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: plumb \(command)"))
        #expect(help.stdout.contains("--help"))
        let overview = try await PlumbProcess.run(["--help"])
        #expect(overview.stdout.contains("  \(command) "))
    }
}
