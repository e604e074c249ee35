#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// The two ways Plumb measures a part's drift: tumbles at several temperatures on the bench, and
/// still readings on the machine while the temperature wanders. Pure arithmetic, no I/O.
public enum DriftFit {
    /// The smallest temperature span two bench calibrations must cover, °C. Below it the slope
    /// is mostly the tumbles' own scatter: 0.05 mg over 5 °C is already 0.01 mg/°C.
    public static let minimumBenchSpanCelsius = 5.0
    /// The smallest span an in-place session must cover, °C (its buckets are far quieter than a
    /// tumble's faces, and it has many of them).
    public static let minimumLearningSpanCelsius = 3.0
    /// The fewest buckets an in-place fit accepts.
    public static let minimumLearningSamples = 10
    /// The floor on a tumble's offset uncertainty, g: no tumble pins its offset better than
    /// 0.05 mg, however small its residual (repositioning, settling).
    public static let benchOffsetFloorG = 0.000_05

    /// One six-point tumble, made at one temperature.
    public struct BenchPoint: Hashable, Sendable {
        /// The mean temperature during the tumble, °C.
        public var celsius: Double
        /// The tumble's `M` (`g = M · (raw − offset)`).
        public var matrix: Matrix3
        /// The tumble's offset, g.
        public var offset: Vector3
        /// The tumble's residual rms, g: taken as its offset's 1σ (floored at ``benchOffsetFloorG``).
        public var residualRMS: Double

        public init(celsius: Double, matrix: Matrix3, offset: Vector3, residualRMS: Double) {
            self.celsius = celsius
            self.matrix = matrix
            self.offset = offset
            self.residualRMS = residualRMS
        }
    }

    /// What a bench fit found: the calibration at `T₀` and the drift about it.
    public struct BenchResult: Hashable, Sendable {
        /// `T₀`, the mean of the tumbles' temperatures, °C.
        public var referenceCelsius: Double
        /// `M₀`, the calibration matrix at `T₀`.
        public var matrix: Matrix3
        /// The offset at `T₀`, g.
        public var offset: Vector3
        /// The drift model about `T₀`, origin `.bench`.
        public var drift: DriftModel

        public init(referenceCelsius: Double, matrix: Matrix3, offset: Vector3, drift: DriftModel) {
            self.referenceCelsius = referenceCelsius
            self.matrix = matrix
            self.offset = offset
            self.drift = drift
        }
    }

    /// One bucket of still readings at one temperature, for ``inPlace(_:)``.
    public struct DriftSample: Hashable, Sendable {
        /// The bucket's mean temperature, °C.
        public var celsius: Double
        /// The bucket's mean raw device-frame reading, g.
        public var gravity: Vector3
        /// How many readings the bucket averaged (its weight in the fit).
        public var weight: Int

        public init(celsius: Double, gravity: Vector3, weight: Int) {
            self.celsius = celsius
            self.gravity = gravity
            self.weight = weight
        }
    }

    /// The drift from six-point tumbles at two or more temperatures.
    ///
    /// **Model.** Raw = `A(T)·g + o(T)` with `A = M⁻¹` the sensitivity. The offset is fitted per
    /// axis as a line in `T` by least squares: `o(T) = o₀ + k·(T − T₀)`. The sensitivity of axis
    /// `j` scales its row of `A`: `A(T) = diag(1 + γ·ΔT)·A₀`, so `γ_j` is the slope of `A_jj`
    /// over its intercept.
    ///
    /// **Why `T₀` is the mean temperature.** There the slope and the intercept of a least-squares
    /// line are uncorrelated, so the calibration at `T₀` is as good as the tumbles' average and
    /// an error in `k` does not leak into it.
    ///
    /// **Why `M₀` is the inverse of the mean `A`, not the mean of the `M`s.** `A` is what varies
    /// linearly with temperature, so its mean over the tumbles is exactly `A(T₀)`; `M = A⁻¹` is not
    /// linear in `T`, and its mean would be off in second order.
    ///
    /// **σ of k.** Each tumble's offset is uncertain by its residual rms (floored at
    /// ``benchOffsetFloorG``), propagated through the slope formula:
    /// `σ_k² = Σ ΔT_i² σ_i² / (Σ ΔT_i²)²`. With three or more tumbles the scatter about the line
    /// is evidence too, and the larger of that and the least-squares standard error is kept.
    ///
    /// - Throws: ``DriftFitError``: fewer than 2 points, a span under ``minimumBenchSpanCelsius``,
    ///   a non-finite value, a matrix that cannot be inverted, or an implausible drift.
    public static func bench(_ points: [BenchPoint]) throws(DriftFitError) -> BenchResult {
        guard points.count >= 2 else { throw DriftFitError(reason: .tooFewPoints(found: points.count, needed: 2)) }
        guard points.allSatisfy({ $0.celsius.isFinite && $0.matrix.isFinite && $0.offset.isFinite && $0.residualRMS.isFinite })
        else { throw DriftFitError(reason: .notFinite) }
        let temperatures = points.map(\.celsius)
        let low = temperatures.min() ?? 0, high = temperatures.max() ?? 0
        guard high - low >= minimumBenchSpanCelsius else {
            throw DriftFitError(reason: .spanTooSmall(spanCelsius: high - low, neededCelsius: minimumBenchSpanCelsius,
                                                      bench: true))
        }
        var sensitivities: [Matrix3] = []
        for point in points {
            guard let a = point.matrix.inverse else { throw DriftFitError(reason: .singular) }
            sensitivities.append(a)
        }
        let n = Double(points.count)
        let t0 = temperatures.reduce(0, +) / n
        let deltas = temperatures.map { $0 - t0 }
        let sxx = deltas.reduce(0) { $0 + $1 * $1 }

        let offsetLine = line(deltas: deltas, values: points.map(\.offset), sxx: sxx)
        let meanA = sensitivities.reduce(Matrix3.zero, +) * (1 / n)
        let diagonalLine = line(deltas: deltas, values: sensitivities.map(\.diagonal), sxx: sxx)
        let gamma = Vector3(x: diagonalLine.slope.x / diagonalLine.intercept.x, y: diagonalLine.slope.y / diagonalLine.intercept.y,
                            z: diagonalLine.slope.z / diagonalLine.intercept.z)
        guard let m0 = meanA.inverse else { throw DriftFitError(reason: .singular) }

        let propagated = deltas.indices.reduce(0.0) { sum, i in
            let sigma = max(points[i].residualRMS, benchOffsetFloorG)
            return sum + deltas[i] * deltas[i] * sigma * sigma
        }.squareRoot() / sxx
        var sigma = Vector3(x: propagated, y: propagated, z: propagated)
        if points.count >= 3 {
            let standardError = offsetLine.standardError(sxx: sxx, degreesOfFreedom: n - 2)
            sigma = Vector3(x: max(sigma.x, standardError.x), y: max(sigma.y, standardError.y), z: max(sigma.z, standardError.z))
        }
        let model = DriftModel(origin: .bench, referenceCelsius: t0, offsetPerDegree: offsetLine.slope,
                               sensitivityPerDegree: gamma, offsetPerDegreeSigma: sigma, span: low...high,
                               residualRMS: offsetLine.rms, points: points.count)
        try checkPlausible(model)
        guard m0.isFinite, offsetLine.intercept.isFinite else { throw DriftFitError(reason: .notFinite) }
        return BenchResult(referenceCelsius: t0, matrix: m0, offset: offsetLine.intercept, drift: model)
    }

    /// The offset drift from still readings on the machine as mounted, bucket by bucket.
    ///
    /// A weighted least-squares line of each axis's bucket mean against temperature (weights:
    /// the buckets' reading counts), about the weighted mean temperature `T₀`. Origin `.inPlace`,
    /// `γ = 0`: near level the horizontal axes read almost no gravity, so their sensitivity
    /// cannot be seen, and the vertical axis's hardly matters.
    ///
    /// **σ of k, honestly.** The least-squares standard error assumes independent residuals, but
    /// neighbouring minutes are not independent (the machine's own slow wander, a temperature the
    /// sensor lags). It is inflated by `√((1 + ρ)/(1 − ρ))`, with `ρ` the residuals' lag-1
    /// autocorrelation in the given (time) order, clamped to 0…0.95: the variance inflation of a
    /// slope under AR(1) noise when the temperature itself changes slowly.
    ///
    /// - Throws: ``DriftFitError``: fewer than ``minimumLearningSamples``, a span under
    ///   ``minimumLearningSpanCelsius``, a non-finite value, a weight below 1, or an implausible drift.
    public static func inPlace(_ samples: [DriftSample]) throws(DriftFitError) -> DriftModel {
        guard samples.count >= minimumLearningSamples else {
            throw DriftFitError(reason: .tooFewPoints(found: samples.count, needed: minimumLearningSamples))
        }
        guard samples.allSatisfy({ $0.celsius.isFinite && $0.gravity.isFinite && $0.weight >= 1 })
        else { throw DriftFitError(reason: .notFinite) }
        let low = samples.map(\.celsius).min() ?? 0, high = samples.map(\.celsius).max() ?? 0
        guard high - low >= minimumLearningSpanCelsius else {
            throw DriftFitError(reason: .spanTooSmall(spanCelsius: high - low, neededCelsius: minimumLearningSpanCelsius,
                                                      bench: false))
        }
        let weights = samples.map { Double($0.weight) }
        let totalWeight = weights.reduce(0, +)
        let t0 = zip(weights, samples).reduce(0) { $0 + $1.0 * $1.1.celsius } / totalWeight
        let deltas = samples.map { $0.celsius - t0 }
        let sxx = zip(weights, deltas).reduce(0) { $0 + $1.0 * $1.1 * $1.1 }
        let meanGravity = zip(weights, samples).reduce(Vector3.zero) { $0 + $1.0 * $1.1.gravity } / totalWeight
        let sxy = deltas.indices.reduce(Vector3.zero) { $0 + (weights[$1] * deltas[$1]) * (samples[$1].gravity - meanGravity) }
        let slope = sxy / sxx
        let residuals = samples.indices.map { samples[$0].gravity - meanGravity - slope * deltas[$0] }

        let n = Double(samples.count)
        func perAxis(_ axis: KeyPath<Vector3, Double>) -> (sigma: Double, rms: Double) {
            let r = residuals.map { $0[keyPath: axis] }
            let weighted = zip(weights, r).reduce(0) { $0 + $1.0 * $1.1 * $1.1 }
            // Residual variance per unit weight; the mean weight rescales it to a bucket's.
            let variance = weighted / (n - 2)
            let standardError = (variance / sxx).squareRoot()
            let energy = r.reduce(0) { $0 + $1 * $1 }
            var rho = 0.0
            if energy > 0 {
                rho = zip(r, r.dropFirst()).reduce(0) { $0 + $1.0 * $1.1 } / energy
            }
            rho = min(max(rho, 0), 0.95)
            let rms = (weighted / totalWeight).squareRoot()
            return (standardError * ((1 + rho) / (1 - rho)).squareRoot(), rms)
        }
        let x = perAxis(\.x), y = perAxis(\.y), z = perAxis(\.z)
        let model = DriftModel(origin: .inPlace, referenceCelsius: t0, offsetPerDegree: slope, sensitivityPerDegree: .zero,
                               offsetPerDegreeSigma: Vector3(x: x.sigma, y: y.sigma, z: z.sigma), span: low...high,
                               residualRMS: Vector3(x: x.rms, y: y.rms, z: z.rms), points: samples.count)
        try checkPlausible(model)
        return model
    }

    static func checkPlausible(_ model: DriftModel) throws(DriftFitError) {
        let values = [model.offsetPerDegree, model.sensitivityPerDegree, model.offsetPerDegreeSigma, model.residualRMS]
        guard values.allSatisfy(\.isFinite), model.referenceCelsius.isFinite else { throw DriftFitError(reason: .notFinite) }
        for (axis, k) in zip(["x", "y", "z"], [model.offsetPerDegree.x, model.offsetPerDegree.y, model.offsetPerDegree.z])
        where abs(k) > DriftModel.maximumOffsetPerDegree {
            throw DriftFitError(reason: .implausibleOffsetDrift(axis: axis, gPerCelsius: k))
        }
        let gammas = [model.sensitivityPerDegree.x, model.sensitivityPerDegree.y, model.sensitivityPerDegree.z]
        for (axis, gamma) in zip(["x", "y", "z"], gammas) where abs(gamma) > DriftModel.maximumSensitivityPerDegree {
            throw DriftFitError(reason: .implausibleSensitivityDrift(axis: axis, perCelsius: gamma))
        }
    }

    /// A least-squares line per axis about centred temperatures.
    struct Line {
        var intercept: Vector3
        var slope: Vector3
        var residuals: [Vector3]

        /// The rms scatter about the line (0 for two points, which it passes through).
        var rms: Vector3 {
            let n = Double(residuals.count)
            let sum = residuals.reduce(Vector3.zero) { $0 + Vector3(x: $1.x * $1.x, y: $1.y * $1.y, z: $1.z * $1.z) }
            return Vector3(x: (sum.x / n).squareRoot(), y: (sum.y / n).squareRoot(), z: (sum.z / n).squareRoot())
        }

        func standardError(sxx: Double, degreesOfFreedom: Double) -> Vector3 {
            let sum = residuals.reduce(Vector3.zero) { $0 + Vector3(x: $1.x * $1.x, y: $1.y * $1.y, z: $1.z * $1.z) }
            return Vector3(x: (sum.x / degreesOfFreedom / sxx).squareRoot(), y: (sum.y / degreesOfFreedom / sxx).squareRoot(),
                           z: (sum.z / degreesOfFreedom / sxx).squareRoot())
        }
    }

    static func line(deltas: [Double], values: [Vector3], sxx: Double) -> Line {
        let mean = values.reduce(Vector3.zero, +) / Double(values.count)
        let slope = zip(deltas, values).reduce(Vector3.zero) { $0 + $1.0 * ($1.1 - mean) } / sxx
        let residuals = zip(deltas, values).map { $1 - mean - slope * $0 }
        return Line(intercept: mean, slope: slope, residuals: residuals)
    }
}

/// Why a drift could not be learned. Nothing was applied or saved; the ``description`` says what
/// is wrong and what to do.
public struct DriftFitError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// Fewer points (tumbles or buckets) than the fit needs.
        case tooFewPoints(found: Int, needed: Int)
        /// The temperatures cover less than the fit needs, °C; `bench` for tumbles, else in place.
        case spanTooSmall(spanCelsius: Double, neededCelsius: Double, bench: Bool)
        /// A value is NaN or infinite.
        case notFinite
        /// A calibration matrix cannot be inverted.
        case singular
        /// The fitted |k| on `axis` is beyond ``DriftModel/maximumOffsetPerDegree`` (g/°C).
        case implausibleOffsetDrift(axis: String, gPerCelsius: Double)
        /// The fitted |γ| on `axis` is beyond ``DriftModel/maximumSensitivityPerDegree`` (per °C).
        case implausibleSensitivityDrift(axis: String, perCelsius: Double)
        /// In place: a bucket's mean stepped by `stepG` on `axis` from the one before, beyond what
        /// temperature explains plus `limitG`: the machine moved.
        case moved(axis: String, stepG: Double, limitG: Double)
        /// In place: the session ran past its maximum duration, seconds.
        case tooLong(seconds: Double)
        /// In place: asked to finish before it had enough; says what it waits for.
        case notReady(waitingFor: String)
    }

    public let reason: Reason

    public init(reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .tooFewPoints(let found, let needed):
            return "A drift fit needs at least \(needed) points and has \(found). Calibrate again at another temperature"
                + " (at least \(Self.celsius(DriftFit.minimumBenchSpanCelsius)) warmer or cooler), or let learn_drift run longer."
        case .spanTooSmall(let span, let needed, let bench):
            let what = bench
                ? "The calibrations span only \(Self.celsius(span)); a drift fit needs \(Self.celsius(needed))."
                    + " Calibrate again at least \(Self.celsius(needed)) warmer or cooler than the others."
                : "The temperature has moved only \(Self.celsius(span)) while learning; the drift needs \(Self.celsius(needed))."
                    + " Keep learning through a warmer or cooler spell (a day and a night, or the machine running and idle)."
            return what
        case .notFinite:
            return "A drift fit met a value that is not a finite number: a temperature or calibration is damaged."
                + " Check the temperature source and calibrate again."
        case .singular:
            return "A calibration matrix in the drift fit cannot be inverted: that calibration is damaged. Calibrate again."
        case .implausibleOffsetDrift(let axis, let k):
            return "The fitted \(axis) offset drift is \(plain(k * 1000, 3)) mg/°C, beyond ±\(plain(DriftModel.maximumOffsetPerDegree * 1000, 3))"
                + " mg/°C, more than a working part drifts: something else changed between the readings (the mount,"
                + " a knock, the wrong temperature). Make sure the device is held still and firmly, then calibrate again."
        case .implausibleSensitivityDrift(let axis, let gamma):
            return "The fitted \(axis) sensitivity drift is \(plain(gamma * 1e6, 3)) ppm/°C, beyond"
                + " ±\(plain(DriftModel.maximumSensitivityPerDegree * 1e6, 3)) ppm/°C, more than a working part drifts:"
                + " one of the tumbles is off. Calibrate again at that temperature."
        case .moved(let axis, let step, let limit):
            return "The device moved while learning the drift: its \(axis) reading stepped \(plain(step * 1000, 3)) mg"
                + " between minutes, more than temperature explains (limit \(plain(limit * 1000, 3)) mg). Nothing was"
                + " learned; start again and leave the machine undisturbed."
        case .tooLong(let seconds):
            return "Learning the drift ran \(plain(seconds / 86_400, 3)) days without finishing, past its limit."
                + " Stop it earlier, once ready, or start again when the temperature will change more."
        case .notReady(let waitingFor):
            return "The drift is not learned yet: waiting for \(waitingFor). Let it run longer, or cancel."
        }
    }

    static func celsius(_ value: Double) -> String { "\(value.rounded(toDecimals: 1)) °C" }
}

/// One bucket of still readings at one temperature: ``DriftFit/DriftSample`` by its short name.
public typealias DriftSample = DriftFit.DriftSample
