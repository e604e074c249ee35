import Geometry
import Level

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

    public init(levelGravity: Vector3, standardError: Vector3, age: Double, lengthUnit: LengthUnit, isStable: Bool) {
        self.levelGravity = levelGravity
        self.standardError = standardError
        self.age = age
        self.lengthUnit = lengthUnit
        self.isStable = isStable
    }

    /// The reading of `measurement`: its level-frame gravity, standard error and stability.
    public init(_ measurement: Measurement, age: Double, lengthUnit: LengthUnit) {
        self.init(levelGravity: measurement.levelGravity, standardError: measurement.standardError, age: age,
                  lengthUnit: lengthUnit, isStable: measurement.isStable)
    }
}
