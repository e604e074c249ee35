import Geometry

/// A reading as people and dashboards see it: the schema of `plumb read --json`, which the MQTT
/// state message extends. One type, so the two can never drift apart.
///
/// JSON keys: `roll`, `pitch`, `tilt` (numbers in `unit`; null where no value exists: a slope
/// unit at 90° or more, or no reading), `unit`, `level` (null while unknown), `stable` (whether
/// the reading can be held; see ``Measurement/isStable``; false without a reading), `gravity`
/// {`x`,`y`,`z`} in g, device frame, calibrated. Every key is always present.
public struct ReadingFigures: Encodable, Sendable, Hashable {
    public var roll: Double?
    public var pitch: Double?
    public var tilt: Double?
    public var unit: AngleUnit
    public var level: Bool?
    public var stable: Bool
    /// Gravity in g, device frame, to 5 decimals.
    public var gravity: Vector3

    /// Rounds the angles to the unit's ``AngleUnit/displayDecimals`` and gravity to 5 decimals.
    public init(attitude: Attitude?, unit: AngleUnit, level: Bool?, stable: Bool, gravity: Vector3) {
        let decimals = unit.displayDecimals
        roll = attitude?.roll.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        pitch = attitude?.pitch.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        tilt = attitude?.tilt.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        self.unit = unit
        self.level = level
        self.stable = stable
        self.gravity = gravity.rounded(toDecimals: 5)
    }

    /// The figures of `measurement`, or of no reading (nulls, not stable, zero gravity) for nil;
    /// `level` is passed apart because the level state outlives a reading (a fault keeps it).
    public init(_ measurement: Measurement?, unit: AngleUnit, level: Bool?) {
        self.init(attitude: measurement?.attitude, unit: unit, level: level, stable: measurement?.isStable ?? false,
                  gravity: measurement?.deviceGravity ?? .zero)
    }

    public enum CodingKeys: String, CodingKey { case roll, pitch, tilt, unit, level, stable, gravity }

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
    }
}
