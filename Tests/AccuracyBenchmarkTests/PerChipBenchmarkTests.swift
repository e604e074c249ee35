import Accelerometers
import AccuracyBenchmark
import Geometry
import Level
import Persistence
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The accuracy benchmark on the ADXL355 and the MPU-6050, each through its own simulator and
/// real driver: a known injected error shows up in the figure, the calibration through the CLI's
/// procedure runs on each chip's driver, and each chip's `stable` uses its own noise. Short
/// windows, so the suite takes a few seconds.
@Suite("accuracy benchmark per chip")
struct PerChipBenchmarkTests {
    static let models: [BenchChipModel] = [.adxl355, .mpu6050]

    /// Short reads: the chips here are noiseless or the figures far from the bounds.
    static var short: AccuracyOptions {
        var options = AccuracyOptions()
        options.attitudeSeconds = 2
        return options
    }

    /// A noiseless part of `model` whose y axis reads `tan(degrees)` g high: flat and level, it
    /// reads exactly `degrees` of roll (atan2(b, 1)).
    static func noiselessChip(_ model: BenchChipModel, rollOffsetDegrees degrees: Double) -> BenchChip {
        let offsetG = tan(degrees * Double.pi / 180)
        switch model {
        case .adxl345:
            return BenchChip(configuration: SimulatedADXL345.Configuration(noiseXY: 0, noiseZ: 0,
                                                                          offset: Vector3(x: 0, y: offsetG * 1000, z: 0)))
        case .adxl355:
            return BenchChip(adxl355: SimulatedADXL355.Configuration(noiseDensity: .zero, offset: Vector3(x: 0, y: offsetG, z: 0)))
        case .mpu6050:
            return BenchChip(mpu6050: SimulatedMPU6050.Configuration(noiseDensity: 0,
                                                                     offset: Vector3(x: 0, y: offsetG * 1000, z: 0)))
        }
    }

    @Test(arguments: models)
    func theChipRunsAtItsDescriptionsAddressRangeAndNearestRate(_ model: BenchChipModel) {
        let chip = BenchChip(model: model, seed: 1)
        #expect(chip.driver.address == model.description.addresses[0])
        #expect(chip.rangeG == model.description.defaultRangeG)
        #expect(chip.rateHz == model.description.nearestRate(to: 100)?.hertz)
        #expect(chip.description.model == (model == .adxl355 ? "ADXL355" : "MPU-6050"))
    }

    @Test(arguments: models)
    func aHalfDegreeOffsetReadsHalfADegreeUncalibratedAndFailsTheTarget(_ model: BenchChipModel) throws {
        let bench = ChipBenchmark(chip: Self.noiselessChip(model, rollOffsetDegrees: 0.5), options: Self.short)
        let level = try #require(try bench.errors(.identity, at: [BenchAttitude(.roll, 0)]).first?.1)
        // The MPU-6050's ±2 g step is 61 µg, 0.0035° at level; the ADXL355's 3.9 µg.
        #expect(abs(level.roll - 0.5) < 0.005, "\(model): \(level)")
        #expect(level.pitch < 0.005, "\(model): \(level)")
        // The figure, put where the six-point figure goes, fails each chip's target.
        var figures = ChipFigures(seed: 0)
        figures.sixPointTo10 = level.worst
        let row = try #require(AccuracyReport(chips: [figures], model: model).rows.first { $0.figure.contains("0–10°") })
        #expect(row.met == false, "\(model): \(row)")
        // An ideal part of the same chip reads true there: the 0.5° is the injected error.
        let ideal = ChipBenchmark(chip: Self.noiselessChip(model, rollOffsetDegrees: 0), options: Self.short)
        let clean = try #require(try ideal.errors(.identity, at: [BenchAttitude(.roll, 0)]).first?.1)
        #expect(clean.worst < 0.005, "\(model): \(clean)")
    }

    @Test(arguments: models)
    func theTumbleThroughTheCLIProcedureRunsOnTheChipsDriverAndRemovesItsErrors(_ model: BenchChipModel) throws {
        let bench = ChipBenchmark(seed: 3, model: model, options: Self.short)
        let attitudes = [BenchAttitude(.roll, 0), BenchAttitude(.pitch, 10)]
        let raw = try bench.errors(.identity, at: attitudes).map(\.1.worst).max() ?? 0
        let record = try bench.chip.calibrateSixPoint()
        let identification = model.description.identification.last
        #expect(record.faces?.count == 6)
        #expect(identification.map { $0.expected.map { "0x" + String($0, radix: 16, uppercase: true) }.contains(record.chip.devid) }
                == true, "\(record.chip.devid)")
        let calibrated = try bench.errors(record.calibration, at: attitudes).map(\.1.worst).max() ?? 1
        let target = try #require(AccuracyReport.Targets.of(model).sixPointTo10)
        #expect(raw > 0.5 && calibrated < target, "\(model): raw \(raw)°, calibrated \(calibrated)°")
    }

    @Test(arguments: models)
    func aStillChipReadsStableAgainstItsOwnNoise(_ model: BenchChipModel) throws {
        let chip = BenchChip(model: model, seed: 5)
        let measurement = try chip.measure(.level, settings: ChipBenchmark.agentPipeline(.identity),
                                           samplesPerBlock: SampleBatch.samplesPerBlock(rateHz: chip.rateHz))
        #expect(measurement.isStable, "\(model): \(measurement.stillness)")
        // Its own noise, not the ADXL345's: the ADXL355's is about a twentieth of it.
        let own = chip.stability().expectedNoise, adxl345 = ADXL345.description.stability(rateHz: chip.rateHz).expectedNoise
        if model == .adxl355 { #expect(own.x < adxl345.x / 10, "\(own)") }
        #expect(own != adxl345)
    }

    @Test func theADXL355sRepeatabilityIsItsNoiseAndTenTimesTheNoiseFailsTheTarget() throws {
        var options = Self.short
        options.repeatabilitySeconds = 40
        func repeatability(_ density: Double) throws -> (measured: Double, closedForm: Double) {
            let chip = BenchChip(adxl355: SimulatedADXL355.Configuration(noiseDensity: Vector3(x: 1, y: 1, z: 1) * density))
            let bench = ChipBenchmark(chip: chip, options: options)
            // One axis's noise over the noise bandwidth, on a mean of a window's samples, as an angle.
            let perSample = density * ADXL355.noiseBandwidthHz(rateHz: chip.rateHz).squareRoot()
            let samples = Double(bench.samplesPerBlock * ChipBenchmark.agentPipeline(.identity).windowBlocks)
            return (try bench.repeatability(.identity), perSample / samples.squareRoot() * 180 / Double.pi)
        }
        let datasheet = try repeatability(ADXL355.noiseDensityG)
        #expect(datasheet.measured > datasheet.closedForm / 2 && datasheet.measured < datasheet.closedForm * 2, "\(datasheet)")
        let target = try #require(AccuracyReport.Targets.of(.adxl355).repeatability)
        #expect(datasheet.measured < target)
        let noisy = try repeatability(ADXL355.noiseDensityG * 10)
        #expect(noisy.measured > datasheet.measured * 5 && noisy.measured > target, "\(noisy) against \(datasheet)")
    }
}
