import Foundation
import Geometry
import GeometryTesting
import Testing
import Thermal

/// A standard normal draw (Box–Muller) from a seeded generator.
func gaussian(_ rng: inout SplitMix64) -> Double {
    let u = max(rng.nextUnit(), 1e-300), v = rng.nextUnit()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
}

@Suite("DriftFit.bench: tumbles at several temperatures give the calibration at T₀ and the drift")
struct BenchFitTests {
    static let k = Vector3(x: 0.0004, y: -0.00035, z: 0.0011)
    static let gamma = Vector3(x: 1.2e-4, y: -0.8e-4, z: 2e-4)
    static let offset0 = Vector3(x: 0.021, y: -0.013, z: 0.034)
    static let sensitivity0 = Matrix3([[1.02, 0.004, -0.003], [-0.002, 0.985, 0.005], [0.003, -0.001, 1.01]])!

    /// The tumble a part with the true drift gives at `t`, whose T₀ is `t0`.
    static func point(at t: Double, t0: Double, offsetError: Vector3 = .zero, residual: Double = 0.0003) -> DriftFit.BenchPoint {
        let delta = t - t0
        let scale = Matrix3(diagonal: Vector3(x: 1 + gamma.x * delta, y: 1 + gamma.y * delta, z: 1 + gamma.z * delta))
        let a = scale * sensitivity0
        return DriftFit.BenchPoint(celsius: t, matrix: a.inverse!, offset: offset0 + k * delta + offsetError, residualRMS: residual)
    }

    @Test("Two tumbles 15 °C apart recover k, γ, M₀ and the offset at T₀ exactly, with the propagated σ")
    func twoPoints() throws {
        let result = try DriftFit.bench([Self.point(at: 15, t0: 22.5), Self.point(at: 30, t0: 22.5)])
        #expect(result.referenceCelsius == 22.5 && result.drift.referenceCelsius == 22.5)
        expectClose(result.drift.offsetPerDegree, Self.k, tolerance: 1e-15)
        expectClose(result.drift.sensitivityPerDegree, Self.gamma, tolerance: 1e-12)
        expectClose(result.offset, Self.offset0, tolerance: 1e-15)
        #expect(result.matrix.maxDifference(from: Self.sensitivity0.inverse!) < 1e-12)
        // σ_k = σ/√(ΣΔT²) = 0.3 mg/√112.5 for two points ±7.5 °C from T₀.
        let expected = 0.0003 / 112.5.squareRoot()
        expectClose(result.drift.offsetPerDegreeSigma, Vector3(x: expected, y: expected, z: expected), tolerance: 1e-15)
        expectClose(result.drift.residualRMS, .zero, tolerance: 1e-15)
        #expect(result.drift.points == 2 && result.drift.span == 15...30)
        #expect(result.drift.origin == .bench)
    }

    @Test("A tumble's σ is floored at 0.05 mg")
    func floor() throws {
        let result = try DriftFit.bench([Self.point(at: 15, t0: 22.5, residual: 0), Self.point(at: 30, t0: 22.5, residual: 0)])
        expectClose(result.drift.offsetPerDegreeSigma.x, 0.000_05 / 112.5.squareRoot(), tolerance: 1e-15)
    }

    @Test("Three tumbles: least squares through scattered offsets, σ the larger of propagated and residual-based")
    func threePoints() throws {
        let scatter = Vector3(x: 0.0004, y: -0.0008, z: 0)
        let points = [Self.point(at: 10, t0: 20), Self.point(at: 20, t0: 20, offsetError: scatter), Self.point(at: 30, t0: 20)]
        let result = try DriftFit.bench(points)
        #expect(result.referenceCelsius == 20)
        // The middle point does not move the slope, only the intercept (by a third of its error).
        expectClose(result.drift.offsetPerDegree, Self.k, tolerance: 1e-15)
        expectClose(result.offset, Self.offset0 + scatter / 3, tolerance: 1e-15)
        expectClose(result.drift.sensitivityPerDegree, Self.gamma, tolerance: 1e-9)
        // Residuals −e/3, 2e/3, −e/3: rms e·√(2/9)·… and OLS se √(Σr²/(n−2)/Sxx).
        let sumSquares = scatter.x * scatter.x * (1.0 / 9 + 4.0 / 9 + 1.0 / 9)
        expectClose(result.drift.residualRMS.x, (sumSquares / 3).squareRoot(), tolerance: 1e-15)
        let ols = (sumSquares / 1 / 200).squareRoot()
        let propagated = (2 * 100 * 0.0003 * 0.0003).squareRoot() / 200
        #expect(ols > propagated)
        expectClose(result.drift.offsetPerDegreeSigma.x, ols, tolerance: 1e-15)
        expectClose(result.drift.offsetPerDegreeSigma.z, propagated, tolerance: 1e-15)  // no scatter on z
    }

    @Test("Too few tumbles or too small a span is refused, saying what to do")
    func refusals() {
        #expect(throws: DriftFitError(reason: .tooFewPoints(found: 1, needed: 2))) {
            try DriftFit.bench([Self.point(at: 15, t0: 15)])
        }
        do {
            _ = try DriftFit.bench([Self.point(at: 20, t0: 21), Self.point(at: 22.1, t0: 21)])
            Issue.record("fitted a 2.1 °C span")
        } catch {
            #expect(error.reason == .spanTooSmall(spanCelsius: 2.1000000000000014, neededCelsius: 5, bench: true)
                || error.description.contains("2.1 °C"))
            #expect(error.description.contains("span only 2.1 °C") && error.description.contains("at least 5.0 °C warmer or cooler"),
                    "\(error)")
        }
        var bad = Self.point(at: 30, t0: 22.5)
        bad.offset.x = .nan
        #expect(throws: DriftFitError(reason: .notFinite)) { try DriftFit.bench([Self.point(at: 15, t0: 22.5), bad]) }
        var singular = Self.point(at: 30, t0: 22.5)
        singular.matrix = .zero
        #expect(throws: DriftFitError(reason: .singular)) { try DriftFit.bench([Self.point(at: 15, t0: 22.5), singular]) }
        var jumped = Self.point(at: 30, t0: 22.5)
        jumped.offset.y += 0.1  // 100 mg over 15 °C: a knock, not drift
        do {
            _ = try DriftFit.bench([Self.point(at: 15, t0: 22.5), jumped])
            Issue.record("fitted an implausible drift")
        } catch {
            guard case .implausibleOffsetDrift(let axis, _) = error.reason else { Issue.record("\(error)"); return }
            #expect(axis == "y" && error.description.contains("calibrate again"))
        }
    }
}

@Suite("DriftFit.inPlace: a weighted line per axis with an honest σ")
struct InPlaceFitTests {
    static let k = Vector3(x: 0.0004, y: -0.0002, z: 0.001)
    static let g0 = Vector3(x: 0.003, y: -0.002, z: 0.999)

    /// `count` buckets over a slow temperature swing of about 6 °C, with AR(1) noise of `sigma`
    /// per bucket and lag-1 correlation `rho`.
    static func series(_ rng: inout SplitMix64, count: Int = 200, sigma: Double, rho: Double) -> [DriftFit.DriftSample] {
        var noise = Vector3.zero
        let innovation = sigma * (1 - rho * rho).squareRoot()
        return (0..<count).map { i in
            let phase = Double(i) / Double(count)
            let t = 20 + 3 * sin(2 * .pi * phase) + 2 * phase
            let draw = Vector3(x: gaussian(&rng), y: gaussian(&rng), z: gaussian(&rng))
            noise = i == 0 ? draw * sigma : noise * rho + draw * innovation
            return DriftFit.DriftSample(celsius: t, gravity: g0 + k * (t - 20) + noise, weight: 60)
        }
    }

    @Test("A noisy series recovers the slope, origin in_place, γ zero")
    func recovers() throws {
        var rng = SplitMix64(seed: 20)
        let samples = Self.series(&rng, sigma: 0.000_02, rho: 0)
        let model = try DriftFit.inPlace(samples)
        #expect(model.origin == .inPlace && model.sensitivityPerDegree == .zero && model.points == 200)
        expectClose(model.offsetPerDegree, Self.k, tolerance: 1e-5)
        expectClose(model.offsetPerDegreeSigma.x, 0.000_02 / (200 * 4.5).squareRoot(), tolerance: 3e-6)
        expectClose(model.residualRMS.x, 0.000_02, tolerance: 0.000_005)
        #expect(model.span.lowerBound < 19 && model.span.upperBound > 23)
    }

    /// How often the true k lies within 1.96σ, over every axis of `draws` seeded series.
    static func coverage(rho: Double, draws: Int = 300) throws -> Double {
        var rng = SplitMix64(seed: 2026 + UInt64(rho * 100))
        var inside = 0
        for _ in 0..<draws {
            let model = try DriftFit.inPlace(series(&rng, sigma: 0.000_05, rho: rho))
            for (fitted, sigma, truth) in [(model.offsetPerDegree.x, model.offsetPerDegreeSigma.x, k.x),
                                           (model.offsetPerDegree.y, model.offsetPerDegreeSigma.y, k.y),
                                           (model.offsetPerDegree.z, model.offsetPerDegreeSigma.z, k.z)]
            where abs(fitted - truth) <= 1.96 * sigma {
                inside += 1
            }
        }
        return Double(inside) / Double(3 * draws)
    }

    @Test("σ is honest on independent noise: about 95 % of draws hold the true k within 1.96σ")
    func coverageWhite() throws {
        let covered = try Self.coverage(rho: 0)
        #expect((0.92...0.99).contains(covered), "coverage \(covered)")
    }

    @Test("σ stays honest when neighbouring minutes are correlated (AR(1), ρ = 0.7)")
    func coverageCorrelated() throws {
        let covered = try Self.coverage(rho: 0.7)
        #expect((0.88...0.99).contains(covered), "coverage \(covered)")
    }

    @Test("Too few buckets, too small a span, or a non-finite value is refused")
    func refusals() throws {
        var rng = SplitMix64(seed: 1)
        let samples = Self.series(&rng, sigma: 0.000_02, rho: 0)
        #expect(throws: DriftFitError(reason: .tooFewPoints(found: 9, needed: 10))) { try DriftFit.inPlace(Array(samples.prefix(9))) }
        let flat = (0..<20).map { DriftFit.DriftSample(celsius: 20 + Double($0) * 0.1, gravity: Self.g0, weight: 1) }
        do {
            _ = try DriftFit.inPlace(flat)
            Issue.record("fitted a 1.9 °C span")
        } catch {
            #expect(error.description.contains("only 1.9 °C") && error.description.contains("needs 3.0 °C"), "\(error)")
        }
        var broken = samples
        broken[3].celsius = .infinity
        #expect(throws: DriftFitError(reason: .notFinite)) { try DriftFit.inPlace(broken) }
    }
}
