import Foundation
import Geometry
import GeometryTesting
import Testing
import Thermal

@Suite("UncertaintyBudget: terms, the Rayleigh bound and the temperature rules")
struct UncertaintyBudgetTests {
    @Test("σ is the root-sum-square; the bound is atan(2.448σ); the dominant term is the largest")
    func budget() {
        let budget = UncertaintyBudget(noise: 0.000_03, calibration: 0.000_04, temperature: 0.000_12, quantisation: 0)
        expectClose(budget.sigma, 0.000_13, tolerance: 1e-15)
        expectClose(UncertaintyBudget.rayleigh95, 2.447_746_830_680_816, tolerance: 1e-12)
        expectClose(budget.bound.radians, atan(2.447_746_830_680_816 * 0.000_13), tolerance: 1e-15)
        expectClose(budget.bound.degrees, 0.018_23, tolerance: 0.000_01)
        #expect(budget.dominant == .temperature)
        #expect(UncertaintyBudget(noise: 1, calibration: 1, temperature: 0, quantisation: 0).dominant == .noise)
        #expect(UncertaintyBudget(noise: 0, calibration: 0, temperature: 0, quantisation: 2).dominant == .quantisation)
    }

    @Test("Quantisation is lsb/√(12 n)")
    func quantisation() {
        expectClose(UncertaintyBudget.quantisationSigma(lsbG: 0.0039, samples: 1), 0.0039 / 12.squareRoot(), tolerance: 1e-15)
        expectClose(UncertaintyBudget.quantisationSigma(lsbG: 0.0039, samples: 100), 0.0039 / 1200.squareRoot(), tolerance: 1e-15)
    }

    static let prior = DriftSpecification(offsetTypical: Vector3(x: 0.0004, y: 0.0004, z: 0.0012), sensitivityTypical: 1e-4,
                                          source: "test")
    static let model = DriftModel(origin: .bench, referenceCelsius: 22.5, offsetPerDegree: Vector3(x: 0.0003, y: -0.0002, z: 0),
                                  offsetPerDegreeSigma: Vector3(x: 0.00001, y: 0.00002, z: 0.00003), span: 15...30,
                                  residualRMS: .zero, points: 2)

    @Test("With a model and a fresh temperature: the distance outside the span times σ_k")
    func modelFresh() {
        let inside = UncertaintyBudget.temperatureSigma(reading: .fresh(celsius: 25, age: 1), model: Self.model,
                                                        calibratedAtCelsius: 22.5, prior: Self.prior)
        #expect(inside == .zero)
        let outside = UncertaintyBudget.temperatureSigma(reading: .fresh(celsius: 35, age: 1), model: Self.model,
                                                         calibratedAtCelsius: nil, prior: Self.prior)
        expectClose(outside, Vector3(x: 0.00005, y: 0.0001, z: 0.00015), tolerance: 1e-15)
    }

    @Test("With no model: |T − T_cal| times the datasheet's typical figure")
    func prior() {
        let sigma = UncertaintyBudget.temperatureSigma(reading: .fresh(celsius: 27, age: 1), model: nil,
                                                       calibratedAtCelsius: 22, prior: Self.prior)
        expectClose(sigma, Vector3(x: 0.002, y: 0.002, z: 0.006), tolerance: 1e-15)
    }

    @Test("An unknown or stale temperature counts the ±10 °C band, plus the last known distance")
    func unknown() {
        let band = UncertaintyBudget.unknownBandCelsius
        #expect(band == 10)
        let never = UncertaintyBudget.temperatureSigma(reading: .unknown, model: nil, calibratedAtCelsius: 22, prior: Self.prior)
        expectClose(never, Self.prior.offsetTypical * 10, tolerance: 1e-15)
        let stale = UncertaintyBudget.temperatureSigma(reading: .stale(celsius: 25, age: 900), model: nil,
                                                       calibratedAtCelsius: 22, prior: Self.prior)
        expectClose(stale, Self.prior.offsetTypical * 13, tolerance: 1e-15)
        // With a model the correction cannot follow: the band counts |k| + σ_k, the last distance σ_k.
        let modelled = UncertaintyBudget.temperatureSigma(reading: .stale(celsius: 32, age: 900), model: Self.model,
                                                          calibratedAtCelsius: 22.5, prior: Self.prior)
        expectClose(modelled, Vector3(x: 0.00031 * 10 + 0.00001 * 2, y: 0.00022 * 10 + 0.00002 * 2, z: 0.00003 * 12),
                    tolerance: 1e-15)
    }

    @Test("No calibration temperature and no model: the band, whatever the temperature reads")
    func noCalibrationTemperature() {
        for reading in [TemperatureReading.fresh(celsius: 22, age: 0), .unknown, .stale(celsius: 40, age: 700)] {
            let sigma = UncertaintyBudget.temperatureSigma(reading: reading, model: nil, calibratedAtCelsius: nil, prior: Self.prior)
            expectClose(sigma, Self.prior.offsetTypical * 10, tolerance: 1e-15, "\(reading)")
        }
    }
}
