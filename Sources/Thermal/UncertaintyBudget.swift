#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// The terms of a tilt's uncertainty.
public enum UncertaintyTerm: String, Hashable, Sendable, CaseIterable {
    /// The sensor's noise averaged over the reading.
    case noise
    /// What the calibration leaves: its fit residual.
    case calibration
    /// Drift with temperature not corrected (no model, an unknown temperature, beyond the span).
    case temperature
    /// The output's resolution.
    case quantisation
}

/// The 95 % bound on a tilt reading's error, from independent terms.
///
/// Each term is a 1σ error in g along each horizontal axis of the level frame (taken alike on
/// both). They add in quadrature to ``sigma``.
///
/// **Why Rayleigh.** The tilt error is the angle between the measured and the true gravity
/// directions, and that has two horizontal components, each normal with σ. The length of such a
/// 2-D error is Rayleigh-distributed, whose 95 % point is `σ·√(−2 ln 0.05)` ≈ 2.448σ, not the
/// 1.96σ of one axis: quoting 1.96σ would be right only 85 % of the time.
public struct UncertaintyBudget: Hashable, Sendable {
    /// 1σ per horizontal axis, g.
    public var noise: Double
    public var calibration: Double
    public var temperature: Double
    public var quantisation: Double

    /// `√(−2 ln 0.05)`: the Rayleigh distribution's 95 % point in units of σ.
    public static let rayleigh95 = (-2 * log(0.05)).squareRoot()
    /// How far an unknown temperature is assumed to lie from the last known one, °C.
    public static let unknownBandCelsius = 10.0

    public init(noise: Double, calibration: Double, temperature: Double, quantisation: Double) {
        self.noise = noise
        self.calibration = calibration
        self.temperature = temperature
        self.quantisation = quantisation
    }

    /// The terms' root-sum-square, g per horizontal axis.
    public var sigma: Double {
        (noise * noise + calibration * calibration + temperature * temperature + quantisation * quantisation).squareRoot()
    }

    /// The tilt error's 95 % bound: the angle whose horizontal component is ``rayleigh95`` × σ
    /// against 1 g, `atan(2.448σ / 1 g)`.
    public var bound: Angle {
        Angle(radians: atan(Self.rayleigh95 * sigma))
    }

    /// The largest term (the first in ``UncertaintyTerm/allCases`` order on a tie): what to improve first.
    public var dominant: UncertaintyTerm {
        let terms: [(UncertaintyTerm, Double)] = [(.noise, noise), (.calibration, calibration),
                                                  (.temperature, temperature), (.quantisation, quantisation)]
        return terms.reduce(terms[0]) { $1.1 > $0.1 ? $1 : $0 }.0
    }

    /// The temperature term's 1σ, g per DEVICE axis (map it through the mount to the level
    /// frame's horizontal axes). The rules, in one place:
    ///
    /// 1. **A model and a fresh temperature `T`:** the drift is corrected; what remains is the
    ///    slope's uncertainty beyond the data, `distanceOutsideSpan(T) × σ_k` (inside the span
    ///    the calibration's own terms cover it; γ's uncertainty near level is negligible).
    /// 2. **No model, a fresh `T` and a calibration temperature `T_cal`:** nothing is corrected;
    ///    `|T − T_cal| × prior.offsetTypical`, the datasheet's typical figure counted as 1σ
    ///    (conservative: typical figures are closer to 1σ than to 2σ).
    /// 3. **Temperature unknown** (no source, or stale): it may lie anywhere within
    ///    ±``unknownBandCelsius`` of the last known one (or of the calibration's when none was ever
    ///    known), so the distance is that band plus the last known distance from rule 1 or 2. With
    ///    a model the band counts `|k| + σ_k`, since a correction cannot follow a temperature it does
    ///    not know; without, the prior.
    /// 4. **No calibration temperature and no model** (uncalibrated, or a record made before
    ///    temperatures were recorded): the band, times the prior, whatever `T` reads.
    ///
    /// - Parameters:
    ///   - reading: The part's temperature now.
    ///   - model: The drift model in force, if any (its `T₀` is the calibration's then).
    ///   - calibratedAtCelsius: The temperature the calibration was made at, if known.
    ///   - prior: The chip's datasheet drift.
    public static func temperatureSigma(reading: TemperatureReading, model: DriftModel?, calibratedAtCelsius: Double?,
                                        prior: DriftSpecification) -> Vector3 {
        let band = unknownBandCelsius
        if let model {
            let lastDistance = reading.lastCelsius.map(model.distanceOutsideSpan) ?? 0
            if let t = reading.celsius { return model.offsetPerDegreeSigma * model.distanceOutsideSpan(t) }
            let k = model.offsetPerDegree, sigma = model.offsetPerDegreeSigma
            let perDegree = Vector3(x: abs(k.x) + sigma.x, y: abs(k.y) + sigma.y, z: abs(k.z) + sigma.z)
            return perDegree * band + sigma * lastDistance
        }
        guard let calibrated = calibratedAtCelsius else { return prior.offsetTypical * band }
        if let t = reading.celsius { return prior.offsetTypical * abs(t - calibrated) }
        let lastDistance = reading.lastCelsius.map { abs($0 - calibrated) } ?? 0
        return prior.offsetTypical * (band + lastDistance)
    }

    /// The quantisation term, g: a uniform error of one LSB has σ `lsb/√12`, and the mean of `n`
    /// readings `lsb/√(12 n)` (the noise dithers it, so readings round independently).
    public static func quantisationSigma(lsbG: Double, samples: Int) -> Double {
        lsbG / (12 * Double(max(samples, 1))).squareRoot()
    }
}
