import Geometry
import Level
import Thermal

/// The current filtered reading, supplied by the agent (nil when there is none: starting, or a
/// sensor fault).
public struct CurrentReading: Sendable, Hashable {
    /// Mean gravity in the level frame (after the mount and the zero), in g; flat face-up is
    /// (0, 0, +1).
    public var levelGravity: Vector3
    /// The standard error of each component of that mean, in g.
    public var standardError: Vector3
    /// Seconds since the reading was taken; reported back as `reading_age_s`.
    public var age: Double
    /// The live `length_unit` setting: the default `result_unit` of rise and shim answers.
    public var lengthUnit: LengthUnit
    /// Whether the reading was stable (``Measurement/isStable``); reported back as `stable`, so a
    /// caller can tell an answer from a still device from one taken while it moved.
    public var isStable: Bool
    /// The reading's uncertainty budget: what the answers' uncertainties count beside the noise.
    public var uncertainty: UncertaintyBudget

    public init(levelGravity: Vector3, standardError: Vector3, age: Double, lengthUnit: LengthUnit, isStable: Bool,
                uncertainty: UncertaintyBudget? = nil) {
        self.levelGravity = levelGravity
        self.standardError = standardError
        self.age = age
        self.lengthUnit = lengthUnit
        self.isStable = isStable
        self.uncertainty = uncertainty ?? UncertaintyBudget(
            noise: ((standardError.x * standardError.x + standardError.y * standardError.y) / 2).squareRoot(),
            calibration: 0, temperature: 0, quantisation: 0)
    }

    /// The reading of `measurement`: its level-frame gravity, standard error, stability and
    /// uncertainty.
    public init(_ measurement: Measurement, age: Double, lengthUnit: LengthUnit) {
        self.init(levelGravity: measurement.levelGravity, standardError: measurement.standardError, age: age,
                  lengthUnit: lengthUnit, isStable: measurement.isStable, uncertainty: measurement.uncertainty)
    }

    /// The 1σ error of each level-frame component with everything the budget counts: the
    /// window's standard error, and on the horizontal axes the calibration's, the temperature's
    /// and the quantisation's in quadrature. What the rise and shim uncertainties propagate.
    public var totalError: Vector3 {
        let budget = uncertainty
        let systematic = budget.calibration * budget.calibration + budget.temperature * budget.temperature
            + budget.quantisation * budget.quantisation
        return Vector3(x: (standardError.x * standardError.x + systematic).squareRoot(),
                       y: (standardError.y * standardError.y + systematic).squareRoot(), z: standardError.z)
    }
}
