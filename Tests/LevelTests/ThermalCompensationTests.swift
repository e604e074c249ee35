import Geometry
import GeometryTesting
import Level
import Testing
import Thermal

#if canImport(Glibc)
import Glibc
#endif

/// The drift model through the pipeline and the uncertainty it reports, against figures worked
/// out here.
@Suite("Thermal compensation in the pipeline")
struct ThermalCompensationTests {
    /// 0.5 mg/°C on x, −0.3 on y, from 20 °C; sensitivity +100 ppm/°C on z.
    static let model = DriftModel(
        origin: .bench, referenceCelsius: 20, offsetPerDegree: Vector3(x: 0.0005, y: -0.0003, z: 0),
        sensitivityPerDegree: Vector3(x: 0, y: 0, z: 0.0001), offsetPerDegreeSigma: Vector3(x: 0.00002, y: 0.00002, z: 0.00002),
        span: 15...30, residualRMS: .zero, points: 2)

    static let prior = DriftSpecification(offsetTypical: Vector3(x: 0.0004, y: 0.0004, z: 0.0012), sensitivityTypical: 0.0001,
                                          source: "test")

    static func compensation(drift: DriftModel? = model, calibratedAt: Double? = 20) -> ThermalCompensation {
        ThermalCompensation(drift: drift, calibratedAtCelsius: calibratedAt,
                            calibration: CalibrationUncertainty(offsetSigma: 0.0003, gainSigma: 0.0003), prior: prior,
                            lsbG: 0.0039)
    }

    static func settings(_ thermal: ThermalCompensation, calibration: Calibration = .identity) -> PipelineSettings {
        PipelineSettings(calibration: calibration, windowBlocks: 10, mount: .flat,
                         thresholds: .instant(tolerance: deg(0.1)), stability: Stability(expectedNoise: Vector3(x: 0.003, y: 0.003, z: 0.004)),
                         thermal: thermal)
    }

    /// What the chip reads at `celsius` for a true `gravity`, by the model's own terms.
    static func raw(_ gravity: Vector3, at celsius: Double, offset: Vector3 = .zero) -> Vector3 {
        let d = celsius - 20
        let gain = Vector3(x: 1, y: 1, z: 1 + 0.0001 * d)
        return Vector3(x: gravity.x * gain.x, y: gravity.y * gain.y, z: gravity.z * gain.z) + offset
            + Vector3(x: 0.0005, y: -0.0003, z: 0) * d
    }

    @Test func correctionAndItsInverseRoundTrip() throws {
        let calibration = try Calibration(matrix: .identity, offset: Vector3(x: 0.02, y: -0.01, z: 0.03))
        let thermal = Self.compensation()
        let raw = Vector3(x: 0.05, y: -0.02, z: 1.01)
        for celsius in [0.0, 20, 35] {
            let corrected = thermal.correct(raw, by: calibration, temperature: .fresh(celsius: celsius, age: 0))
            let back = try #require(thermal.raw(correctedTo: corrected, by: calibration, temperature: .fresh(celsius: celsius, age: 0)))
            expectClose(back, raw, tolerance: 1e-12, "\(celsius) °C")
        }
        // Unknown temperature: nothing to correct at.
        #expect(thermal.correct(raw, by: calibration, temperature: .unknown) == calibration.apply(raw))
    }

    @Test func aWarmerChipReadsTheSameTiltOnceCorrected() throws {
        let truth = Attitude.gravity(roll: deg(2), pitch: deg(-1))
        var corrected = LevelPipeline(settings: Self.settings(Self.compensation()))
        var uncorrected = LevelPipeline(settings: Self.settings(.noiseOnly))
        for index in 0..<10 {
            let batch = SampleBatch.steady(Self.raw(truth, at: 35), count: 10, time: Double(index) * 0.1, rateHz: 100)
            corrected.add(batch, temperature: .fresh(celsius: 35, age: 0))
            uncorrected.add(batch, temperature: .fresh(celsius: 35, age: 0))
        }
        let fixed = try #require(corrected.latest), drifted = try #require(uncorrected.latest)
        #expect(abs(fixed.attitude.roll.degrees - 2) < 1e-6 && abs(fixed.attitude.pitch.degrees + 1) < 1e-6, "\(fixed.attitude)")
        // 15 °C × 0.5 mg/°C is 7.5 mg on x: 0.43° of pitch uncorrected.
        #expect(abs(drifted.attitude.pitch.degrees + 1) > 0.3, "\(drifted.attitude)")
        #expect(fixed.temperatureCelsius == 35)
    }

    @Test func theUncertaintyCountsTheTemperatureOutsideTheSpanAndTheUnknown() throws {
        func bound(_ reading: TemperatureReading, _ thermal: ThermalCompensation = Self.compensation()) throws -> Double {
            var pipeline = LevelPipeline(settings: Self.settings(thermal))
            for index in 0..<10 {
                pipeline.add(.steady(Vector3(x: 0, y: 0, z: 1), spread: Vector3(x: 0.003, y: 0.003, z: 0.004), count: 10,
                                     time: Double(index) * 0.1, rateHz: 100), temperature: reading)
            }
            return try #require(pipeline.latest).uncertainty.bound.degrees
        }
        let inside = try bound(.fresh(celsius: 25, age: 0))
        let outside = try bound(.fresh(celsius: 40, age: 0))
        let unknown = try bound(.unknown)
        #expect(inside < outside && outside < unknown, "\(inside) < \(outside) < \(unknown)")
        // No model: the prior, by the distance from the calibration's 20 °C.
        let prior = try bound(.fresh(celsius: 30, age: 0), Self.compensation(drift: nil))
        let expectedTemperature = 0.0004 * 10
        #expect(prior > 2.448 * expectedTemperature * 180 / .pi * 0.99, "\(prior)°")
        // Inside the span, what is left is the calibration and the noise: about 2.45 × 0.3 mg.
        #expect(inside > 2.448 * 0.0003 * 180 / .pi && inside < 0.06, "\(inside)°")
    }

    @Test func theFiguresShowTheTemperatureAndAnUncertaintyRoundedUp() throws {
        var pipeline = LevelPipeline(settings: Self.settings(Self.compensation()))
        for index in 0..<10 {
            pipeline.add(.steady(Vector3(x: 0, y: 0, z: 1), count: 10, time: Double(index) * 0.1, rateHz: 100),
                         temperature: .fresh(celsius: 23.456, age: 0))
        }
        let measurement = try #require(pipeline.latest)
        let figures = ReadingFigures(measurement, unit: .deg, level: true)
        #expect(figures.temperature == 23.5)
        let exact = measurement.uncertainty.bound.degrees
        let shown = try #require(figures.uncertainty)
        #expect(shown >= exact && shown - exact < 0.001 + 1e-12, "\(exact) shown as \(shown)")
        #expect(ReadingFigures(nil, unit: .deg, level: nil).uncertainty == nil)
    }
}
