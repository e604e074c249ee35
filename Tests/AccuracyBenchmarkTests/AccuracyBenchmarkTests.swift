import AccuracyBenchmark
import Geometry
import Level
import Persistence
import SimulatedADXL345
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The accuracy benchmark's arithmetic, checked on chips whose answer is known, so it cannot
/// silently measure nothing: an ideal chip reads true, and a known offset reads off by exactly
/// what the closed form says. Not timed: the figures themselves are `make bench`'s.
@Suite("accuracy benchmark")
struct AccuracyBenchmarkTests {
    @Test func theErrorIsTheDifferenceOfRollPitchAndTiltTheShortWayRound() {
        let truth = Attitude(gravity: Attitude.gravity(roll: Angle(degrees: 2), pitch: Angle(degrees: -1)))
        let measured = Attitude(gravity: Attitude.gravity(roll: Angle(degrees: 2.03), pitch: Angle(degrees: -1)))
        let error = AttitudeError(measured: measured, truth: truth)
        #expect(abs(error.roll - 0.03) < 1e-9 && error.pitch < 1e-9 && error.worst == error.roll)
        let flipped = AttitudeError(measured: Attitude(gravity: Vector3(x: 0, y: 1e-3, z: -1)),
                                    truth: Attitude(gravity: Vector3(x: 0, y: -1e-3, z: -1)))
        #expect(flipped.roll < 0.2, "179.94° against −179.94° is 0.11°, not 359.9°")
    }

    @Test func anIdealChipReadsTrueAtEveryAttitude() throws {
        // Datasheet noise, no errors: what is left is noise on a 5 s mean, about 0.01° at 1σ.
        let bench = ChipBenchmark(chip: BenchChip(configuration: SimulatedADXL345.Configuration()))
        let errors = try bench.errors(.identity)
        #expect(errors.count == BenchAttitude.all.count)
        for (attitude, error) in errors {
            #expect(error.worst < 0.04, "\(attitude): \(error)")
        }
    }

    @Test func aKnownOffsetReadsOffByTheClosedFormAndAZeroAtLevelRemovesItThere() throws {
        // Offsets of whole LSBs (1/256 g) and no noise: the raw reading at level is exactly
        // (bx, by, 1 + bz), so the error is atan2 of it, to rounding.
        let offset = Vector3(x: 6, y: -4, z: 3) / 256
        let chip = BenchChip(configuration: SimulatedADXL345.Configuration(noiseXY: 0, noiseZ: 0, offset: offset * 1000))
        let bench = ChipBenchmark(chip: chip)
        let level = try #require(try bench.errors(.identity, at: [BenchAttitude(.roll, 0)]).first?.1)
        let raw = Vector3(x: offset.x, y: offset.y, z: 1 + offset.z)
        let degrees = 180 / Double.pi
        #expect(abs(level.roll - abs(atan2(raw.y, raw.z)) * degrees) < 1e-9, "\(level)")
        #expect(abs(level.pitch - abs(atan2(-raw.x, (raw.y * raw.y + raw.z * raw.z).squareRoot())) * degrees) < 1e-9)
        #expect(abs(level.tilt - atan2((raw.x * raw.x + raw.y * raw.y).squareRoot(), raw.z) * degrees) < 1e-9)
        #expect(level.worst > 1, "a 23 mg offset is more than a degree: the benchmark sees it")

        let zeroed = try #require(try bench.errors(.identity, zero: try bench.rawZero(), at: [BenchAttitude(.roll, 0)]).first?.1)
        #expect(zeroed.worst < 1e-9, "\(zeroed)")
    }

    @Test func aTumbleThroughTheCLIProcedureRemovesATypicalChipsErrors() throws {
        let bench = ChipBenchmark(seed: 3)
        let attitudes = [BenchAttitude(.roll, 0), BenchAttitude(.pitch, 45)]
        let raw = try bench.errors(.identity, at: attitudes).map(\.1.worst).max() ?? 0
        let record = try bench.chip.calibrateSixPoint()
        #expect(record.faces?.count == 6 && record.chip.devid == "0xE5")
        let calibrated = try bench.errors(record.calibration, at: attitudes).map(\.1.worst).max() ?? 1
        #expect(raw > 1 && calibrated < 0.1, "raw \(raw)°, calibrated \(calibrated)°")
    }

    @Test func theFilterBenchmarkSeesTheMeanLetVibrationThroughAndTheLowpassNot() throws {
        var options = FilterBenchmark.Options()
        options.sittingSeconds = 60
        options.settlingSteps = 1
        let bench = FilterBenchmark(options: options)
        let mean = try bench.run(rateHz: 100, frequencyHz: 49.3, filter: .mean)
        #expect(mean.sigma > 0.04 && !mean.meetsTargets, "49.3 Hz aliases into 1 s means: \(mean.sigma)°")
        #expect(mean.settling >= options.settlingHorizon, "a reading that swings never settles")
        let lowpass = try bench.run(rateHz: 100, frequencyHz: 49.3, filter: .lowpass)
        #expect(lowpass.meetsTargets, "\(lowpass)")
        #expect(lowpass.settling > 0.1 && lowpass.settling < 1.5, "\(lowpass.settling) s")
        #expect(lowpass.simulatedSeconds > 60 && lowpass.simulatedSeconds < 80)
    }
}
