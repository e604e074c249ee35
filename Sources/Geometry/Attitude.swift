#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which way a frame is tipped, worked out from the gravity it senses.
///
/// The accelerometer reads the reaction to gravity, in g, so a frame lying flat face-up reads
/// (0, 0, +1). Every angle comes from `atan2`, never `atan` or `asin` of a ratio, so each is
/// right over its whole range, including near 90° and upside down, and none depends on the
/// magnitude of the reading (0.98 g and 1.02 g give the same attitude).
public struct Attitude: Hashable, Sendable {
    /// Rotation about the x axis: `atan2(gy, gz)`, in −180°…180°. Positive when +y tips up.
    /// Meaningless near pitch ±90°, where gy and gz both vanish (it then reads 0).
    public let roll: Angle
    /// Rotation about the y axis: `atan2(−gx, √(gy² + gz²))`, in −90°…90°. Positive when +x
    /// tips down.
    public let pitch: Angle
    /// The angle between the frame's z axis and up, whichever way it leans:
    /// `atan2(√(gx² + gy²), gz)`, in 0°…180°. 0° is level, 90° on edge, 180° upside down.
    public let tilt: Angle

    /// The attitude of a frame that senses `gravity` (in g, any magnitude).
    ///
    /// A zero vector has no direction; it yields all-zero angles, so callers that can receive
    /// one (a disconnected sensor) should reject it first. A non-finite component yields NaN
    /// angles.
    public init(gravity g: Vector3) {
        roll = Angle(radians: atan2(g.y, g.z))
        pitch = Angle(radians: atan2(-g.x, (g.y * g.y + g.z * g.z).squareRoot()))
        tilt = Angle(radians: atan2((g.x * g.x + g.y * g.y).squareRoot(), g.z))
    }

    /// The unit gravity reading of a frame at `roll` φ and `pitch` θ:
    /// `(−sin θ, cos θ · sin φ, cos θ · cos φ)`.
    ///
    /// The inverse of ``init(gravity:)``: for |pitch| < 90° and roll in −180°…180° the
    /// attitude of the result has the same roll and pitch. At pitch ±90° roll has no effect.
    public static func gravity(roll: Angle, pitch: Angle) -> Vector3 {
        let cosPitch = cos(pitch.radians)
        return Vector3(
            x: -sin(pitch.radians),
            y: cosPitch * sin(roll.radians),
            z: cosPitch * cos(roll.radians)
        )
    }

    /// Whether the tilt is within `tolerance` (inclusive). A negative tolerance is never met.
    public func isLevel(tolerance: Angle) -> Bool {
        tilt <= tolerance
    }
}
