import Geometry

// The procedures' progress lines: seconds and gravity vectors as the command line prints them
// (the digits from Geometry's `fixed`).

enum ProgressText {
    /// Seconds as a person writes them: `2`, `2.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A gravity vector in g, five decimals, signed: `+0.01234, -0.00100, +1.00000`.
    static func g(_ v: Vector3) -> String {
        [v.x, v.y, v.z].map { fixed($0, 5, signed: true) }.joined(separator: ", ")
    }
}
