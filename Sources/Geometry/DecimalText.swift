// Numbers as text for messages, reports and pictures, without Foundation's String(format:): the
// agent binary links FoundationEssentials only, which keeps its resident memory down, and the
// text never depends on a locale. Every module formats its figures with these two.

/// `value` with exactly `decimals` digits after the point, optionally with a leading `+`:
/// `fixed(3.0414, 3, signed: true)` is `+3.041`.
public func fixed(_ value: Double, _ decimals: Int, signed: Bool = false) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let units = (abs(value) * scale).rounded()
    // Beyond 2⁵³ a Double has no fraction digits left to show, and Int(_:) would trap past 2⁶³:
    // a pixel count from an absurd density reaches here from the command line.
    guard units < 9e15 else { return (value > 0 && signed ? "+" : "") + "\(value)" }
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

/// `value` with at most `decimals` digits after the point and no trailing zeros, as a person
/// writes it: `plain(30.162500, 6)` is `30.1625`, `plain(2400, 3)` is `2400`.
public func plain(_ value: Double, _ decimals: Int, signed: Bool = false) -> String {
    var text = fixed(value, decimals, signed: signed)
    guard text.contains("."), !text.contains("e") else { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    // A value too small for the decimals is not zero: say what it is (`1e-09`).
    if value != 0, value.isFinite, text.allSatisfy({ "+-0".contains($0) }) {
        return (value > 0 && signed ? "+" : "") + "\(value)"
    }
    return text
}
