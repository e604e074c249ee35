/// A vector in a right-handed frame. Plumb uses it for accelerations in g, in the device frame
/// unless a name says otherwise.
public struct Vector3: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(x: 0, y: 0, z: 0)

    /// Euclidean length.
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// Whether every component is finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The unit vector in the same direction, or nil for a zero or non-finite vector.
    public var normalized: Vector3? {
        let length = magnitude
        guard length > 0, length.isFinite else { return nil }
        return self / length
    }

    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(x: -a.x, y: -a.y, z: -a.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(x: a.x * s, y: a.y * s, z: a.z * s) }
    public static func * (s: Double, a: Vector3) -> Vector3 { a * s }
    public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(x: a.x / s, y: a.y / s, z: a.z / s) }
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }
}
