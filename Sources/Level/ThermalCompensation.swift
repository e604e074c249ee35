import Geometry
import Thermal

/// What the ``LevelPipeline`` knows of the chip's errors beyond its ``Calibration``: the drift
/// model it corrects temperature with, and what its uncertainty budget counts (how well the
/// calibration is known, the datasheet's drift prior, the size of one count).
///
/// Built from the calibration record in force and the chip's description, by the agent and the
/// command line alike.
public struct ThermalCompensation: Hashable, Sendable {
    /// The temperature model applied before the calibration; nil for none (the reading is then
    /// uncompensated, and the datasheet's prior counts in the uncertainty).
    public var drift: DriftModel?
    /// The temperature the calibration was made at, °C; nil when unknown (uncalibrated, or a
    /// record from before temperatures were recorded).
    public var calibratedAtCelsius: Double?
    /// How well the calibration is known (``CalibrationUncertainty``).
    public var calibration: CalibrationUncertainty
    /// The chip's datasheet drift, the prior where no model was learned.
    public var prior: DriftSpecification
    /// One count of the chip's output at the range in use, in g.
    public var lsbG: Double

    public init(drift: DriftModel? = nil, calibratedAtCelsius: Double? = nil, calibration: CalibrationUncertainty,
                prior: DriftSpecification, lsbG: Double) {
        self.drift = drift
        self.calibratedAtCelsius = calibratedAtCelsius
        self.calibration = calibration
        self.prior = prior
        self.lsbG = lsbG
    }

    /// Calibration's correction of a raw block mean taken at `temperature`: the drift removed (at
    /// the last temperature known, fresh or stale: the best estimate there is), then `calibration`.
    public func correct(_ raw: Vector3, by calibration: Calibration, temperature: TemperatureReading) -> Vector3 {
        guard let drift, let celsius = temperature.lastCelsius else { return calibration.apply(raw) }
        return calibration.apply(drift.removeDrift(from: raw, calibrationOffset: calibration.offset, atCelsius: celsius))
    }

    /// The raw block mean at `temperature` that ``correct(_:by:temperature:)`` turns into
    /// `corrected`: for carrying a reading made under one correction over to another (the zero
    /// reference, when the calibration or the model changes). nil when `calibration` cannot be
    /// inverted (never for a validated one).
    public func raw(correctedTo corrected: Vector3, by calibration: Calibration, temperature: TemperatureReading) -> Vector3? {
        guard let undone = calibration.raw(correctedTo: corrected) else { return nil }
        guard let drift, let celsius = temperature.lastCelsius else { return undone }
        let offset = calibration.offset, gain = drift.gainFactor(atCelsius: celsius)
        let shifted = undone - offset
        return Vector3(x: shifted.x * gain.x, y: shifted.y * gain.y, z: shifted.z * gain.z) + offset
            + drift.offsetShift(atCelsius: celsius)
    }

    /// No model, no prior and nothing known of the calibration: the budget counts the window's
    /// noise and nothing else. For tests and tools that judge noise alone; the agent and the
    /// command line always say what they know.
    public static let noiseOnly = ThermalCompensation(
        calibration: CalibrationUncertainty(offsetSigma: 0, gainSigma: 0),
        prior: DriftSpecification(offsetTypical: .zero, sensitivityTypical: 0, source: "none"), lsbG: 0)

    /// The uncertainty of a reading: the window's noise (`standardError`, level frame), the
    /// calibration's, the temperature's and the quantisation of `samples` averaged counts.
    ///
    /// The terms are 1σ along a horizontal level axis, in g: the two horizontal components'
    /// mean square, so a budget is the same whichever way the tilt points.
    ///
    /// The temperature term is the offset's (``UncertaintyBudget/temperatureSigma(reading:model:calibratedAtCelsius:prior:)``)
    /// and, in quadrature, the sensitivity drift nothing corrects (``uncorrectedGainSigma(temperature:slope:)``).
    public func budget(standardError: Vector3, levelGravity: Vector3, mount: Mount, temperature: TemperatureReading,
                       samples: Int) -> UncertaintyBudget {
        func horizontal(_ v: Vector3) -> Double { ((v.x * v.x + v.y * v.y) / 2).squareRoot() }
        let slope = (levelGravity.x * levelGravity.x + levelGravity.y * levelGravity.y).squareRoot()
        let gain = calibration.gainSigma * slope
        let calibrationSigma = (calibration.offsetSigma * calibration.offsetSigma + gain * gain).squareRoot()
        let thermal = UncertaintyBudget.temperatureSigma(reading: temperature, model: drift,
                                                         calibratedAtCelsius: drift?.referenceCelsius ?? calibratedAtCelsius,
                                                         prior: prior)
        let offsetDrift = horizontal(mount.levelFrame(thermal).absolute)
        let gainDrift = uncorrectedGainSigma(temperature: temperature, slope: slope)
        return UncertaintyBudget(
            noise: horizontal(standardError), calibration: calibrationSigma,
            temperature: (offsetDrift * offsetDrift + gainDrift * gainDrift).squareRoot(),
            quantisation: UncertaintyBudget.quantisationSigma(lsbG: lsbG, samples: samples))
    }

    /// The sensitivity drift nothing corrects, 1σ g along a horizontal level axis: none with a
    /// model that measured the gains (a bench model's γ), else the datasheet's typical γ (as 1σ,
    /// as the offset's prior) × how far the temperature is from the calibration's × `slope`, the
    /// horizontal gravity, since a gain error matters in proportion to the tilt, over √2: each
    /// axis's gain error scales that axis's share of the horizontal gravity, so the error's mean
    /// square over the two axes is σ_γ²·slope²/2, the budget's convention for every term.
    ///
    /// Why: a model learned in place has γ = 0 (near level the horizontal axes read almost no
    /// gravity, so their gains cannot be seen), yet at 10° of tilt each axis carries 0.17 g, and
    /// the ADXL355's typical 100 ppm/°C over 8 °C is 0.14 mg there: seven times its 1 s noise.
    /// The temperature benchmark found the in-place readings covered 75 % of the time on the
    /// ADXL355 without this term. Unknown temperatures take the band, as the offset's rule 3.
    public func uncorrectedGainSigma(temperature: TemperatureReading, slope: Double) -> Double {
        if let drift, drift.sensitivityPerDegree != .zero { return 0 }
        let band = UncertaintyBudget.unknownBandCelsius
        guard let reference = drift?.referenceCelsius ?? calibratedAtCelsius else {
            return prior.sensitivityTypical * band * slope / 2.0.squareRoot()
        }
        let distance = temperature.celsius.map { abs($0 - reference) }
            ?? band + (temperature.lastCelsius.map { abs($0 - reference) } ?? 0)
        return prior.sensitivityTypical * distance * slope / 2.0.squareRoot()
    }
}

/// How well a calibration is known, as 1σ errors near level: a zero error along each horizontal
/// axis, and a gain error, which matters in proportion to the tilt.
public struct CalibrationUncertainty: Hashable, Sendable {
    /// The zero error, g (1σ).
    public var offsetSigma: Double
    /// The gain error, a fraction (1σ).
    public var gainSigma: Double

    public init(offsetSigma: Double, gainSigma: Double) {
        self.offsetSigma = offsetSigma
        self.gainSigma = gainSigma
    }

    /// After a six-point tumble: its residual (rms of the six means about the fitted model, g)
    /// bounds both, floored at `floorG` (the face means' own noise, which a lucky fit of six
    /// points can undercut).
    public static func sixPoint(residualRMS: Double, floorG: Double) -> Self {
        let sigma = max(residualRMS, floorG)
        return Self(offsetSigma: sigma, gainSigma: sigma)
    }

    /// After a reversal alone: the zero is measured to the readings' noise, the gains are the
    /// datasheet's.
    public static func reversal(noiseG: Double, gainTypical: Double) -> Self {
        Self(offsetSigma: noiseG, gainSigma: gainTypical)
    }

    /// Uncalibrated: the datasheet's typical zero-g offset and sensitivity error.
    public static func uncalibrated(offsetTypicalG: Double, gainTypical: Double) -> Self {
        Self(offsetSigma: offsetTypicalG, gainSigma: gainTypical)
    }
}
