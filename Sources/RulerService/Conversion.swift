import Geometry
import Ruler

/// One conversion between ruler units, pixels included, with what it multiplies and divides by.
struct Conversion {
    let value: Double
    let from: RulerUnit
    let to: RulerUnit
    /// Needed when exactly one side is px.
    let density: PixelDensity?

    /// The value in ``to``.
    var result: Double {
        switch (from, to, density) {
        case (.length(let source), .length(let target), _):
            Length(value, source).converted(to: target).value
        case (.px, .length(let target), let density?):
            density.length(ofPixels: value, in: target).value
        case (.length(let source), .px, let density?):
            density.pixels(in: Length(value, source))
        default:
            value
        }
    }

    /// The side that is a physical length, for the ±1 km check; nil for px to px.
    var physicalSide: Length? {
        if case .length(let source) = from { return Length(value, source) }
        if case .length(let target) = to { return Length(result, target) }
        return nil
    }

    /// Whether the exact result, worked out in decimals from the value and the exact factors
    /// (25.4 mm to the inch, the density as written), has at most `decimals` places, so that the
    /// rounded figure reported is the exact answer: true for 1 in to mm (25.4), false for 1 mm
    /// to in (0.0393700787…). False, too, when the arithmetic would overflow and exactness cannot
    /// be shown.
    func isExact(decimals: Int) -> Bool {
        let (multipliers, divisors) = factors
        return ExactDecimal.hasAtMost(decimals, decimalsIn: value, times: multipliers, over: divisors)
    }

    private var factors: (multipliers: [Double], divisors: [Double]) {
        switch (from, to, density) {
        case (.length(let source), .length(let target), _):
            ([source.millimetres], [target.millimetres])
        case (.px, .length(let target), let density?):
            ([density.unit.millimetres], [density.pixelsPerUnit, target.millimetres])
        case (.length(let source), .px, let density?):
            ([source.millimetres, density.pixelsPerUnit], [density.unit.millimetres])
        default:
            ([], [])
        }
    }
}

/// Exact decimal arithmetic for the one question ``Conversion/isExact(decimals:)`` asks.
///
/// Each `Double` is read as the shortest decimal that reads back as it (`25.4` is 254 × 10⁻¹),
/// which is what a person wrote. A product of such decimals divided by others has at most `n`
/// decimal places exactly when, in lowest terms, its denominator divides 10ⁿ: only powers of 2
/// and 5, and few enough of each. So only the powers of 2 and 5 are counted, and the rest of
/// each divisor is cancelled against the rest of the multipliers; no product is ever formed
/// that could overflow, except of the divisors' rests.
enum ExactDecimal {
    static func hasAtMost(_ decimals: Int, decimalsIn value: Double, times multipliers: [Double],
                          over divisors: [Double]) -> Bool {
        guard value != 0 else { return true }
        var twos = decimals, fives = decimals
        var rests: [Int] = []
        for number in [value] + multipliers {
            guard let decimal = decimalParts(number) else { return false }
            let split = splitTwosAndFives(decimal.mantissa)
            twos += split.twos + decimal.exponent
            fives += split.fives + decimal.exponent
            rests.append(split.rest)
        }
        var divisorRest = 1
        for number in divisors {
            guard let decimal = decimalParts(number), decimal.mantissa != 0 else { return false }
            let split = splitTwosAndFives(decimal.mantissa)
            twos -= split.twos + decimal.exponent
            fives -= split.fives + decimal.exponent
            let (product, overflow) = divisorRest.multipliedReportingOverflow(by: split.rest)
            guard !overflow else { return false }
            divisorRest = product
        }
        for rest in rests { divisorRest /= greatestCommonDivisor(divisorRest, rest) }
        return divisorRest == 1 && twos >= 0 && fives >= 0
    }

    /// `number` as mantissa × 10^exponent with a non-negative whole mantissa, from its shortest
    /// decimal form (`"1.1875"`, `"1e-07"`, `"1.5e+20"`); nil when not finite.
    static func decimalParts(_ number: Double) -> (mantissa: Int, exponent: Int)? {
        guard number.isFinite else { return nil }
        let text = "\(number.magnitude)"
        let parts = text.split(separator: "e", maxSplits: 1)
        guard let significand = parts.first else { return nil }
        var exponent = 0
        if parts.count == 2 {
            guard let written = Int(parts[1]) else { return nil }
            exponent = written
        }
        let halves = significand.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = halves.count == 2 ? halves[1] : ""
        guard let whole = halves.first, let mantissa = Int(whole + fraction) else { return nil }
        return (mantissa, exponent - fraction.count)
    }

    private static func splitTwosAndFives(_ number: Int) -> (twos: Int, fives: Int, rest: Int) {
        guard number != 0 else { return (0, 0, 0) }
        var rest = number, twos = 0, fives = 0
        while rest % 2 == 0 { rest /= 2; twos += 1 }
        while rest % 5 == 0 { rest /= 5; fives += 1 }
        return (twos, fives, rest)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
