import Geometry

// Number formatting for the procedures' progress lines. PlumbCLI has the same helpers for its own
// output (TextFormatting.swift, `fixed` and ParsedArguments.format); these are kept here rather
// than shared so the procedures need nothing from the command line, and they print exactly what
// the command line printed before they moved.

enum ProgressText {
    /// Seconds as a person writes them: `2`, `2.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A gravity vector in g, five decimals, signed: `+0.01234, -0.00100, +1.00000`.
    static func g(_ v: Vector3) -> String {
        [v.x, v.y, v.z].map { fixed($0, 5) }.joined(separator: ", ")
    }

    /// `value` with exactly `decimals` digits after the point and a sign.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let units = (abs(value) * scale).rounded()
        guard units < 9e15 else { return (value > 0 ? "+" : "") + "\(value)" }
        let whole = (units / scale).rounded(.down)
        let digits = String(Int(units - whole * scale))
        let fraction = decimals > 0 ? "." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits : ""
        return (value < 0 && units != 0 ? "-" : "+") + String(Int(whole)) + fraction
    }
}
