#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rotation of 3-D space, stored as an orthonormal 3×3 matrix.
///
/// A matrix rather than a quaternion because q and −q are the same rotation, which would make
/// `==` lie; the matrix of a rotation is unique. Every public way to build one produces an
/// orthonormal matrix (to rounding). Rotations act on vectors actively: ``apply(_:)`` turns
/// the vector, the frame stays put, and a positive angle turns counter-clockwise when looking
/// from the tip of the axis toward the origin (right-hand rule).
public struct Rotation: Hashable, Sendable {
    // Rows of the matrix.
    private let row0: Vector3
    private let row1: Vector3
    private let row2: Vector3

    /// The caller guarantees the rows are orthonormal and right-handed.
    init(uncheckedRows row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// From a quaternion (w, v), normalizing it first; nil if it has no length.
    private init?(quaternionW w: Double, _ v: Vector3) {
        let length = (w * w + v.dot(v)).squareRoot()
        guard length > 0, length.isFinite else { return nil }
        let w = w / length, x = v.x / length, y = v.y / length, z = v.z / length
        self.init(
            uncheckedRows: Vector3(x: 1 - 2 * (y * y + z * z), y: 2 * (x * y - w * z), z: 2 * (x * z + w * y)),
            Vector3(x: 2 * (x * y + w * z), y: 1 - 2 * (x * x + z * z), z: 2 * (y * z - w * x)),
            Vector3(x: 2 * (x * z - w * y), y: 2 * (y * z + w * x), z: 1 - 2 * (x * x + y * y))
        )
    }

    /// No rotation.
    public static let identity = Rotation(
        uncheckedRows: Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1)
    )

    /// A turn by `angle` about `axis` (any length; only its direction counts).
    ///
    /// Nil when the axis is zero or non-finite, or the angle is non-finite.
    public init?(axis: Vector3, angle: Angle) {
        guard let unit = axis.normalized, angle.isFinite else { return nil }
        let half = angle.radians / 2
        self.init(quaternionW: cos(half), unit * sin(half))
    }

    /// The smallest rotation that turns the direction of `from` onto the direction of `to`.
    ///
    /// Only directions count; lengths are ignored and preserved. Equal directions give the
    /// identity (to rounding). Opposite directions have no unique smallest rotation; any half turn about
    /// an axis perpendicular to `from` is smallest, and one is chosen. Nil when either vector is
    /// zero or non-finite (or so large its length overflows).
    public static func aligning(_ from: Vector3, to: Vector3) -> Rotation? {
        guard let a = from.normalized, let b = to.normalized else { return nil }
        // The half-way quaternion (1 + a·b, a × b) is the smallest rotation, and normalizing it
        // keeps the matrix orthonormal. As a and b become opposite it shrinks to nothing and
        // rounding swamps it, so there a half turn first makes them nearly equal, and a small,
        // well-conditioned turn finishes. Making the half turn about a × b keeps the total the
        // smallest turn; with 1e-6 as the switch both branches are good to about 1e-13 rad.
        let w = 1 + a.dot(b)
        if w > 1e-6 {
            return Rotation(quaternionW: w, a.cross(b))
        }
        // Both unwraps hold: the axis is a unit vector, and after the half turn the two
        // directions are within 0.1° of each other, so the recursion takes the branch above.
        let halfTurn = Rotation(quaternionW: 0, perpendicular(to: a, preferring: a.cross(b)))!
        return aligning(halfTurn.apply(a), to: b)! * halfTurn
    }

    /// A unit vector perpendicular to the unit vector `v`: along `preferred` with its `v` part
    /// removed when that leaves enough to have a trustworthy direction, otherwise any.
    private static func perpendicular(to v: Vector3, preferring preferred: Vector3) -> Vector3 {
        let candidate = preferred - v * v.dot(preferred)
        if candidate.magnitude > 1e-9, let unit = candidate.normalized {
            return unit
        }
        // Crossing with the basis axis least aligned with v keeps the result well away from zero.
        let ax = abs(v.x), ay = abs(v.y), az = abs(v.z)
        let basis = ax <= ay && ax <= az ? Vector3(x: 1, y: 0, z: 0)
            : ay <= az ? Vector3(x: 0, y: 1, z: 0) : Vector3(x: 0, y: 0, z: 1)
        return v.cross(basis).normalized!
    }

    /// `v` turned by this rotation. Lengths and angles between vectors are preserved.
    public func apply(_ v: Vector3) -> Vector3 {
        Vector3(x: row0.dot(v), y: row1.dot(v), z: row2.dot(v))
    }

    /// The rotation that undoes this one (the transpose).
    public var inverse: Rotation {
        Rotation(
            uncheckedRows: Vector3(x: row0.x, y: row1.x, z: row2.x),
            Vector3(x: row0.y, y: row1.y, z: row2.y),
            Vector3(x: row0.z, y: row1.z, z: row2.z)
        )
    }

    /// The composition that applies `rhs` first, then `lhs`, like matrix multiplication:
    /// `(a * b).apply(v) == a.apply(b.apply(v))`.
    public static func * (lhs: Rotation, rhs: Rotation) -> Rotation {
        let columns = rhs.inverse
        func row(_ r: Vector3) -> Vector3 {
            Vector3(x: r.dot(columns.row0), y: r.dot(columns.row1), z: r.dot(columns.row2))
        }
        return Rotation(uncheckedRows: row(lhs.row0), row(lhs.row1), row(lhs.row2))
    }

    /// This rotation followed by `next`: the same as `next * self`.
    public func followed(by next: Rotation) -> Rotation {
        next * self
    }

    /// How far the rotation turns, in 0°…180°, whatever its axis.
    public var angle: Angle {
        // atan2 of sine and cosine stays accurate at small angles, where acos of the trace
        // would lose half the digits.
        let cosine = (row0.x + row1.y + row2.z - 1) / 2
        let skew = Vector3(x: row2.y - row1.z, y: row0.z - row2.x, z: row1.x - row0.y)
        return Angle(radians: atan2(skew.magnitude / 2, cosine))
    }
}
