// Number and column formatting for the CLI's text output, without Foundation's String(format:):
// the agent binary links FoundationEssentials only, which keeps its resident memory down.

/// `value` with exactly `decimals` digits after the point, optionally with a leading `+`:
/// `fixed(3.0414, 3, signed: true)` is `+3.041`.
func fixed(_ value: Double, _ decimals: Int, signed: Bool = false) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let units = (abs(value) * scale).rounded()
    let negative = value < 0 && units != 0
    let whole = (units / scale).rounded(.down)
    let fraction = units - whole * scale
    var text = String(Int(whole))
    if decimals > 0 {
        let digits = String(Int(fraction))
        text += "." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits
    }
    return (negative ? "-" : (signed ? "+" : "")) + text
}

extension String {
    /// Left-aligned in a column of `width` characters (never truncated).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Right-aligned in a column of `width` characters (never truncated).
    func rightAligned(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    /// Without leading and trailing white space.
    var trimmed: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
