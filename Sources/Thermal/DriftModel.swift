import Geometry

/// How one part's output moves with temperature, per raw device axis, as measured: the zero-g
/// offset's slope `k` (g/°C) and the sensitivity's `γ` (a fraction per °C), both about a
/// reference temperature `T₀`, with how well the data pinned them down.
///
/// The pipeline removes the drift before the calibration: with `ΔT = T − T₀`,
/// `g = M · ((raw − offset − k·ΔT) ⊘ (1 + γ·ΔT))`, where `M` and `offset` are the calibration
/// made at `T₀` and `⊘` divides axis by axis. ``removeDrift(from:calibrationOffset:atCelsius:)``
/// does the part inside the brackets so an unchanged `Calibration.apply` finishes it.
///
/// Encoded with stable snake_case keys in the units people read:
/// `{"origin":"bench","reference_c":22.5,"offset_mg_per_c":[…],"sensitivity_ppm_per_c":[…],
/// "offset_sigma_mg_per_c":[…],"span_c":[15,30],"residual_mg":[…],"points":2}`.
/// Decoding is strict (see ``init(from:)``): a damaged model is refused, never applied.
public struct DriftModel: Hashable, Sendable {
    /// Where the model was measured.
    public enum Origin: String, Codable, Sendable, Hashable {
        /// Six-point tumbles at two or more temperatures (``DriftFit/bench(_:)``): offsets and gains.
        case bench
        /// Learned on the machine as mounted, still, while the temperature wandered
        /// (``DriftFit/inPlace(_:)``): offsets only.
        case inPlace = "in_place"
    }

    public var origin: Origin
    /// `T₀`, °C: where the shift is zero and the gain factor one.
    public var referenceCelsius: Double
    /// `k`, g/°C per device axis.
    public var offsetPerDegree: Vector3
    /// `γ`, a fraction per °C per device axis (1e-4 is 100 ppm/°C); zero where not learned.
    public var sensitivityPerDegree: Vector3
    /// The 1σ uncertainty of `k`, g/°C per device axis.
    public var offsetPerDegreeSigma: Vector3
    /// The temperatures the data covered, °C. Outside it the model is an extrapolation.
    public var span: ClosedRange<Double>
    /// The data's rms scatter about the fitted lines, g per device axis.
    public var residualRMS: Vector3
    /// How many points (tumbles or buckets) the fit used.
    public var points: Int

    /// The largest |k| plausible for an accelerometer of this class, g/°C (5 mg/°C: ten times
    /// the ADXL345's typical figure).
    public static let maximumOffsetPerDegree = 0.005
    /// The largest |γ| plausible, a fraction per °C (2000 ppm/°C: twenty times the typical).
    public static let maximumSensitivityPerDegree = 0.002

    public init(origin: Origin, referenceCelsius: Double, offsetPerDegree: Vector3, sensitivityPerDegree: Vector3 = .zero,
                offsetPerDegreeSigma: Vector3, span: ClosedRange<Double>, residualRMS: Vector3, points: Int) {
        self.origin = origin
        self.referenceCelsius = referenceCelsius
        self.offsetPerDegree = offsetPerDegree
        self.sensitivityPerDegree = sensitivityPerDegree
        self.offsetPerDegreeSigma = offsetPerDegreeSigma
        self.span = span
        self.residualRMS = residualRMS
        self.points = points
    }

    /// `k·(t − T₀)`: how far the zero-g offset has moved at `t` °C, g per device axis.
    public func offsetShift(atCelsius t: Double) -> Vector3 {
        offsetPerDegree * (t - referenceCelsius)
    }

    /// `1 + γ·(t − T₀)` per device axis: each axis's sensitivity at `t` relative to `T₀`.
    public func gainFactor(atCelsius t: Double) -> Vector3 {
        let delta = t - referenceCelsius
        return Vector3(x: 1 + sensitivityPerDegree.x * delta, y: 1 + sensitivityPerDegree.y * delta,
                       z: 1 + sensitivityPerDegree.z * delta)
    }

    /// The raw reading the part would have given at `T₀`: `((raw − offset − k·ΔT) ⊘ (1 + γ·ΔT)) + offset`.
    ///
    /// Adding `offset` back keeps the calibration unchanged: `calibration.apply(removeDrift(…))`
    /// is `M · ((raw − offset − k·ΔT) ⊘ (1 + γ·ΔT))`, the pipeline's formula.
    ///
    /// - Parameters:
    ///   - raw: The raw device-frame reading, g.
    ///   - offset: The calibration's offset (made at `T₀`), g.
    ///   - t: The part's temperature now, °C.
    public func removeDrift(from raw: Vector3, calibrationOffset offset: Vector3, atCelsius t: Double) -> Vector3 {
        let centred = raw - offset - offsetShift(atCelsius: t)
        let gain = gainFactor(atCelsius: t)
        return Vector3(x: centred.x / gain.x, y: centred.y / gain.y, z: centred.z / gain.z) + offset
    }

    /// How far `celsius` lies outside ``span``, °C; 0 inside it.
    public func distanceOutsideSpan(_ celsius: Double) -> Double {
        if celsius < span.lowerBound { return span.lowerBound - celsius }
        if celsius > span.upperBound { return celsius - span.upperBound }
        return 0
    }

    /// The same model about another reference temperature `t₁`: the offset shift is zero there.
    ///
    /// For a model learned at one temperature and applied to a calibration made at another: the
    /// calibration is right at its own temperature, so the drift must vanish there. `k` and its
    /// σ are unchanged; `γ` is divided by the gain factor at `t₁`, exact to first order in `γ·ΔT`.
    public func referenced(toCelsius t1: Double) -> DriftModel {
        var model = self
        let gain = gainFactor(atCelsius: t1)
        model.sensitivityPerDegree = Vector3(x: sensitivityPerDegree.x / gain.x, y: sensitivityPerDegree.y / gain.y,
                                             z: sensitivityPerDegree.z / gain.z)
        model.referenceCelsius = t1
        return model
    }
}

extension DriftModel: Codable {
    private enum CodingKeys: String, CodingKey {
        case origin, points
        case referenceCelsius = "reference_c"
        case offsetPerDegree = "offset_mg_per_c"
        case sensitivityPerDegree = "sensitivity_ppm_per_c"
        case offsetPerDegreeSigma = "offset_sigma_mg_per_c"
        case span = "span_c"
        case residualRMS = "residual_mg"
    }

    /// Decodes and checks every figure: all finite; each vector three numbers; `span_c` two
    /// numbers, low ≤ high; |offset_mg_per_c| ≤ 5; |sensitivity_ppm_per_c| ≤ 2000; σ and residuals
    /// not negative; `points` ≥ 2.
    ///
    /// - Throws: `DecodingError.dataCorrupted` whose message names the figure, says what is wrong
    ///   and what to do, so a damaged model is reported, never applied.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func fail(_ key: CodingKeys, _ problem: String) -> DecodingError {
            DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "The drift model's \(key.stringValue) \(problem). The file is damaged or was edited by"
                    + " hand: learn the drift again (calibrate at two temperatures, or plumb learn_drift), or delete"
                    + " calibration.json and recalibrate."
            )
        }
        func triple(_ key: CodingKeys, scale: Double) throws -> Vector3 {
            let parts = try container.decode([Double].self, forKey: key)
            guard parts.count == 3 else { throw fail(key, "must be three numbers [x, y, z]; found \(parts.count)") }
            guard parts.allSatisfy(\.isFinite) else { throw fail(key, "has a value that is not a finite number") }
            return Vector3(x: parts[0] / scale, y: parts[1] / scale, z: parts[2] / scale)
        }
        func within(_ key: CodingKeys, _ value: Vector3, limit: Double, unit: String, scale: Double) throws {
            for part in [value.x, value.y, value.z] where abs(part) > limit {
                throw fail(key, "is \(part * scale) \(unit), beyond ±\(limit * scale) \(unit), more than any working part drifts")
            }
        }
        func notNegative(_ key: CodingKeys, _ value: Vector3) throws {
            guard value.x >= 0, value.y >= 0, value.z >= 0 else { throw fail(key, "has a negative value") }
        }

        let origin = try container.decode(Origin.self, forKey: .origin)
        let reference = try container.decode(Double.self, forKey: .referenceCelsius)
        guard reference.isFinite else { throw fail(.referenceCelsius, "is not a finite number") }
        let k = try triple(.offsetPerDegree, scale: 1000)
        try within(.offsetPerDegree, k, limit: Self.maximumOffsetPerDegree, unit: "mg/°C", scale: 1000)
        let gamma = try triple(.sensitivityPerDegree, scale: 1e6)
        try within(.sensitivityPerDegree, gamma, limit: Self.maximumSensitivityPerDegree, unit: "ppm/°C", scale: 1e6)
        let sigma = try triple(.offsetPerDegreeSigma, scale: 1000)
        try notNegative(.offsetPerDegreeSigma, sigma)
        let residual = try triple(.residualRMS, scale: 1000)
        try notNegative(.residualRMS, residual)
        let span = try container.decode([Double].self, forKey: .span)
        guard span.count == 2 else { throw fail(.span, "must be two numbers [low, high] in °C; found \(span.count)") }
        guard span.allSatisfy(\.isFinite) else { throw fail(.span, "has a value that is not a finite number") }
        guard span[0] <= span[1] else { throw fail(.span, "runs from \(span[0]) °C down to \(span[1]) °C; low must come first") }
        let points = try container.decode(Int.self, forKey: .points)
        guard points >= 2 else { throw fail(.points, "is \(points); a drift fit needs at least 2") }
        self.init(origin: origin, referenceCelsius: reference, offsetPerDegree: k, sensitivityPerDegree: gamma,
                  offsetPerDegreeSigma: sigma, span: span[0]...span[1], residualRMS: residual, points: points)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func triple(_ v: Vector3, _ scale: Double) -> [Double] { [v.x * scale, v.y * scale, v.z * scale] }
        try container.encode(origin, forKey: .origin)
        try container.encode(referenceCelsius, forKey: .referenceCelsius)
        try container.encode(triple(offsetPerDegree, 1000), forKey: .offsetPerDegree)
        try container.encode(triple(sensitivityPerDegree, 1e6), forKey: .sensitivityPerDegree)
        try container.encode(triple(offsetPerDegreeSigma, 1000), forKey: .offsetPerDegreeSigma)
        try container.encode([span.lowerBound, span.upperBound], forKey: .span)
        try container.encode(triple(residualRMS, 1000), forKey: .residualRMS)
        try container.encode(points, forKey: .points)
    }
}
