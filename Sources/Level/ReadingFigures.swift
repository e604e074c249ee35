import Geometry
import Thermal

/// A reading as people and dashboards see it: the schema of `plumb read --json`, which the MQTT
/// state message extends. One type, so the two can never drift apart.
///
/// JSON keys: `roll`, `pitch`, `tilt` (numbers in `unit`; null where no value exists: a slope
/// unit at 90° or more, or no reading), `unit`, `level` (null while unknown), `stable` (whether
/// the reading can be held; see ``Measurement/isStable``; false without a reading), `gravity`
/// {`x`,`y`,`z`} in g, device frame, calibrated, `temperature` (°C, to 0.1; null without a fresh
/// one) and `uncertainty` (the 95 % bound on the tilt's error, in `unit`, rounded up: never
/// smaller than it is; null without a reading), and the same four in degrees whatever `unit` says:
/// `roll_deg`, `pitch_deg`, `tilt_deg`, `uncertainty_deg` (what Home Assistant's angle entities
/// read, so a unit change never changes their unit or splits their history). Every key is always
/// present.
public struct ReadingFigures: Encodable, Sendable, Hashable {
    public var roll: Double?
    public var pitch: Double?
    public var tilt: Double?
    public var unit: AngleUnit
    public var level: Bool?
    public var stable: Bool
    /// Gravity in g, device frame, to 5 decimals.
    public var gravity: Vector3
    /// The temperature the reading was corrected at, °C to 0.1.
    public var temperature: Double?
    /// The 95 % bound on the tilt's error in `unit`, rounded up to the unit's display decimals.
    public var uncertainty: Double?
    /// Roll, pitch, tilt and the uncertainty in degrees, to the degree's display decimals.
    public var rollDegrees: Double?
    public var pitchDegrees: Double?
    public var tiltDegrees: Double?
    public var uncertaintyDegrees: Double?

    /// Rounds the angles to the unit's ``AngleUnit/displayDecimals``, gravity to 5 decimals, the
    /// temperature to 0.1 °C, and the uncertainty up to the unit's display decimals.
    public init(attitude: Attitude?, unit: AngleUnit, level: Bool?, stable: Bool, gravity: Vector3,
                temperature: Double? = nil, uncertainty: Angle? = nil) {
        let decimals = unit.displayDecimals
        roll = attitude?.roll.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        pitch = attitude?.pitch.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        tilt = attitude?.tilt.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        self.unit = unit
        self.level = level
        self.stable = stable
        self.gravity = gravity.rounded(toDecimals: 5)
        self.temperature = temperature.map { $0.rounded(toDecimals: 1) }
        self.uncertainty = uncertainty.flatMap { $0.value(in: unit) }.map { Self.roundedUp($0, decimals: decimals) }
        let degreeDecimals = AngleUnit.deg.displayDecimals
        rollDegrees = attitude.map { $0.roll.degrees.rounded(toDecimals: degreeDecimals) }
        pitchDegrees = attitude.map { $0.pitch.degrees.rounded(toDecimals: degreeDecimals) }
        tiltDegrees = attitude.map { $0.tilt.degrees.rounded(toDecimals: degreeDecimals) }
        uncertaintyDegrees = uncertainty.map { Self.roundedUp($0.degrees, decimals: degreeDecimals) }
    }

    /// `value` rounded up at `decimals`: an uncertainty shown smaller than it is would claim
    /// more than the reading knows. A hair over a step (binary fractions) stays on it.
    static func roundedUp(_ value: Double, decimals: Int) -> Double {
        guard value.isFinite else { return value }
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        return ((value * scale * (1 - 1e-9)).rounded(.up) / scale)
    }

    /// The figures of `measurement`, or of no reading (nulls, not stable, zero gravity) for nil;
    /// `level` is passed apart because the level state outlives a reading (a fault keeps it).
    public init(_ measurement: Measurement?, unit: AngleUnit, level: Bool?) {
        self.init(attitude: measurement?.attitude, unit: unit, level: level, stable: measurement?.isStable ?? false,
                  gravity: measurement?.deviceGravity ?? .zero, temperature: measurement?.temperatureCelsius,
                  uncertainty: measurement?.uncertainty.bound)
    }

    public enum CodingKeys: String, CodingKey {
        case roll, pitch, tilt, unit, level, stable, gravity, temperature, uncertainty
        case rollDegrees = "roll_deg", pitchDegrees = "pitch_deg", tiltDegrees = "tilt_deg", uncertaintyDegrees = "uncertainty_deg"
    }

    // Explicit so that nil values are written as null rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roll, forKey: .roll)
        try container.encode(pitch, forKey: .pitch)
        try container.encode(tilt, forKey: .tilt)
        try container.encode(unit.rawValue, forKey: .unit)
        try container.encode(level, forKey: .level)
        try container.encode(stable, forKey: .stable)
        try container.encode(gravity, forKey: .gravity)
        try container.encode(temperature, forKey: .temperature)
        try container.encode(uncertainty, forKey: .uncertainty)
        try container.encode(rollDegrees, forKey: .rollDegrees)
        try container.encode(pitchDegrees, forKey: .pitchDegrees)
        try container.encode(tiltDegrees, forKey: .tiltDegrees)
        try container.encode(uncertaintyDegrees, forKey: .uncertaintyDegrees)
    }
}
