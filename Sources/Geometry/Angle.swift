/// A plane angle, stored in radians.
///
/// Plumb keeps one physical quantity and converts only at the edges (parsing a threshold,
/// showing a reading), so a unit choice can never change what a value means. Comparison and
/// equality are on the stored radians, exactly; compare with a tolerance where rounding matters.
/// `Codable` encodes the radians (`{"radians": …}`), the one unit that needs no conversion.
public struct Angle: Hashable, Comparable, Sendable, Codable {
    /// The angle in radians. Any value, including negative and beyond a full turn; nothing wraps.
    public var radians: Double

    /// An angle of `radians` radians.
    public init(radians: Double) {
        self.radians = radians
    }

    /// An angle of `degrees` degrees.
    public init(degrees: Double) {
        // Dividing first keeps the common angles exact: 45 / 180 and 90 / 180 are exact binary
        // fractions, so 45° is exactly `.pi / 4` and 90° exactly `.pi / 2`.
        self.radians = degrees / 180 * .pi
    }

    /// The angle in degrees.
    public var degrees: Double {
        // The same order as the initializer, so `.pi / 2` reads exactly 90.
        radians / .pi * 180
    }

    /// No angle.
    public static let zero = Angle(radians: 0)

    /// The absolute value: the same angle without its sign.
    public var magnitude: Angle { Angle(radians: abs(radians)) }

    /// Whether the angle is a finite number (not NaN, not infinite).
    public var isFinite: Bool { radians.isFinite }

    // All four spelled out: Comparable's defaults derive `<=` as `!(rhs < lhs)`, which is true
    // for NaN, so a NaN tilt would pass a level check. These compare like Double: NaN never does.
    public static func < (lhs: Angle, rhs: Angle) -> Bool { lhs.radians < rhs.radians }
    public static func <= (lhs: Angle, rhs: Angle) -> Bool { lhs.radians <= rhs.radians }
    public static func > (lhs: Angle, rhs: Angle) -> Bool { lhs.radians > rhs.radians }
    public static func >= (lhs: Angle, rhs: Angle) -> Bool { lhs.radians >= rhs.radians }

    public static func + (lhs: Angle, rhs: Angle) -> Angle { Angle(radians: lhs.radians + rhs.radians) }
    public static func - (lhs: Angle, rhs: Angle) -> Angle { Angle(radians: lhs.radians - rhs.radians) }
    public static prefix func - (angle: Angle) -> Angle { Angle(radians: -angle.radians) }
    public static func += (lhs: inout Angle, rhs: Angle) { lhs = lhs + rhs }
    public static func -= (lhs: inout Angle, rhs: Angle) { lhs = lhs - rhs }

    /// The angle scaled by a plain number (for example halving a tolerance).
    public static func * (angle: Angle, factor: Double) -> Angle { Angle(radians: angle.radians * factor) }
    /// The angle scaled by a plain number.
    public static func * (factor: Double, angle: Angle) -> Angle { angle * factor }
    /// The angle divided by a plain number; dividing by zero gives an infinite or NaN angle.
    public static func / (angle: Angle, divisor: Double) -> Angle { Angle(radians: angle.radians / divisor) }
}
