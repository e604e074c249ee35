import Geometry
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Helpers shared by the geometry and level tests, a library both link. The geometry here is
// written out by hand, independently of the modules, so the tests check them against something
// they did not compute themselves.

public func deg(_ degrees: Double) -> Angle { Angle(degrees: degrees) }

public func expectClose(
    _ actual: Double, _ expected: Double, tolerance: Double = 1e-9, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        abs(actual - expected) <= tolerance,
        "\(what) \(actual) is not within \(tolerance) of \(expected)",
        sourceLocation: sourceLocation
    )
}

/// Compares an angle with an expected value in degrees, modulo a full turn (so −180° = 180°).
public func expectClose(
    _ actual: Angle, degrees expected: Double, tolerance: Double = 1e-9, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    var difference = (actual.degrees - expected).truncatingRemainder(dividingBy: 360)
    if difference > 180 { difference -= 360 }
    if difference < -180 { difference += 360 }
    #expect(
        abs(difference) <= tolerance,
        "\(what) \(actual.degrees)° is not within \(tolerance)° of \(expected)°",
        sourceLocation: sourceLocation
    )
}

public func expectClose(
    _ actual: Vector3, _ expected: Vector3, tolerance: Double = 1e-12, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        (actual - expected).magnitude <= tolerance,
        "\(what) \(actual) is not within \(tolerance) of \(expected)",
        sourceLocation: sourceLocation
    )
}

public func expectClose(
    _ actual: Matrix3, _ expected: Matrix3, tolerance: Double, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        actual.maxDifference(from: expected) <= tolerance,
        "\(what) \(actual.rowArrays) is not within \(tolerance) of \(expected.rowArrays)",
        sourceLocation: sourceLocation
    )
}

/// The angle between two vectors, in degrees, by acos of the normalized dot product.
public func degreesBetween(_ a: Vector3, _ b: Vector3) -> Double {
    let cosine = a.dot(b) / (a.magnitude * b.magnitude)
    return acos(min(1, max(-1, cosine))) * 180 / .pi
}

/// A 3×3 matrix as rows, for building orientations by hand.
public struct ReferenceMatrix {
    public var rows: [[Double]]

    public init(rows: [[Double]]) { self.rows = rows }

    public static func rotationX(_ degrees: Double) -> ReferenceMatrix {
        let c = cos(degrees * .pi / 180), s = sin(degrees * .pi / 180)
        return ReferenceMatrix(rows: [[1, 0, 0], [0, c, -s], [0, s, c]])
    }

    public static func rotationY(_ degrees: Double) -> ReferenceMatrix {
        let c = cos(degrees * .pi / 180), s = sin(degrees * .pi / 180)
        return ReferenceMatrix(rows: [[c, 0, s], [0, 1, 0], [-s, 0, c]])
    }

    public static func * (a: ReferenceMatrix, b: ReferenceMatrix) -> ReferenceMatrix {
        ReferenceMatrix(rows: (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a.rows[i][$1] * b.rows[$1][j] } } })
    }

    public var transposed: ReferenceMatrix { ReferenceMatrix(rows: (0..<3).map { i in (0..<3).map { j in rows[j][i] } }) }

    public func apply(_ v: Vector3) -> Vector3 {
        let c = [v.x, v.y, v.z]
        let r = rows.map { row in (0..<3).reduce(0) { $0 + row[$1] * c[$1] } }
        return Vector3(x: r[0], y: r[1], z: r[2])
    }

    public var determinant: Double {
        let m = rows
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
}

/// The world-from-body orientation of a body rolled by `roll` about its own x axis, then
/// pitched about the world y axis: R = Ry(pitch) · Rx(roll). A positive roll lifts +y, a
/// positive pitch lowers +x (turns +z toward +x), the contract's signs.
public func orientation(rollDegrees: Double, pitchDegrees: Double) -> ReferenceMatrix {
    ReferenceMatrix.rotationY(pitchDegrees) * ReferenceMatrix.rotationX(rollDegrees)
}

/// What an accelerometer on that body senses: up, in body coordinates, Rᵀ·ẑ.
public func sensedUp(rollDegrees: Double, pitchDegrees: Double) -> Vector3 {
    let worldFromBody = orientation(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees)
    return worldFromBody.transposed.apply(Vector3(x: 0, y: 0, z: 1))
}

