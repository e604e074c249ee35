import Geometry
/// What a text such as "1 3/16in" says: a value and the unit written after it (nil when none
/// was written).
///
/// Accepted, with whitespace anywhere between the parts and units in any letter case:
/// - a decimal number, optionally signed and with an exponent: `"30cm"`, `"1.2 m"`, `"-2.5e1 mm"`;
/// - a fraction of whole numbers: `"3/8in"`;
/// - a mixed number, the whole part separated by a space or a hyphen: `"1 3/16in"`, `"1-3/16 in"`;
/// - a bare number with no unit: `"30"` (``unit`` is nil; the caller decides what it means).
///
/// A leading `-` negates the whole value (`"-1 3/16in"` is −1.1875 in); callers reject negatives
/// where a length must be positive. Units are those of ``RulerUnit/init(parsing:)``.
public struct LengthText: Sendable, Hashable {
    /// The number written, fractions worked out: `"1 3/16in"` gives 1.1875.
    public var value: Double
    /// The unit written after the number, or nil when none was.
    public var unit: RulerUnit?

    /// A value and its unit, as if parsed.
    public init(value: Double, unit: RulerUnit?) {
        self.value = value
        self.unit = unit
    }

    /// Reads `text`.
    ///
    /// - Throws: ``LengthParseError`` for empty text, text that does not start with a number,
    ///   NaN and infinities (and numbers too large for a `Double`), a zero, negative or missing
    ///   denominator, a fraction or mixed number with a part that is not whole, more numbers
    ///   than a whole number and a fraction, and unknown units.
    public init(parsing text: String) throws(LengthParseError) {
        var scanner = LengthScanner(text: text)
        let parsed = try scanner.scanNumber()
        let unitText = scanner.rest.trimmingWhitespace
        guard parsed.isFinite else { throw LengthParseError(text: text, reason: .nonFinite) }
        value = parsed
        if unitText.isEmpty {
            unit = nil
        } else if let named = RulerUnit(parsing: unitText) {
            unit = named
        } else if let first = unitText.first, first.isASCII, first.isNumber || first == "/" {
            throw LengthParseError(text: text, reason: .extraNumber)
        } else {
            throw LengthParseError(text: text, reason: .unknownUnit(String(unitText)))
        }
    }
}

/// Reads the number at the front of a length text. Scanning by hand, rather than handing the text
/// to `Double`, lets a unit follow without a space, reads fractions, and keeps out what `Double`
/// also accepts but nobody means in a length: `nan`, `inf`, hexadecimal.
private struct LengthScanner {
    let text: String
    private(set) var rest: Substring

    init(text: String) {
        self.text = text
        rest = text[...].trimmingWhitespace
    }

    /// The value of a decimal, a fraction or a mixed number, with its sign; `rest` is left at
    /// whatever follows it (the unit).
    mutating func scanNumber() throws(LengthParseError) -> Double {
        guard !rest.isEmpty else { throw failure(.empty) }
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        guard let first = scanDecimal() else {
            throw failure(namesNonFiniteNumber(rest) ? .nonFinite : .missingNumber)
        }
        let magnitude: Double
        if rest.drop(while: \.isWhitespace).first == "/" {
            magnitude = try scanFraction(numerator: first)
        } else if let fraction = try scanFractionAfterWhole() {
            guard first.isWhole else { throw failure(.fractionNotWhole) }
            magnitude = first.value + fraction
        } else {
            magnitude = first.value
        }
        return negative ? -magnitude : magnitude
    }

    /// A number as written: its value, and whether it was digits alone (no point, no exponent).
    private struct Decimal {
        var value: Double
        var isWhole: Bool
    }

    /// `digits[.digits][e[±]digits]`, or nil (and `rest` untouched) when there are no digits.
    private mutating func scanDecimal() -> Decimal? {
        var index = rest.startIndex
        func skipDigits() -> Int {
            var count = 0
            while index < rest.endIndex, rest[index].isASCII, rest[index].isNumber {
                index = rest.index(after: index)
                count += 1
            }
            return count
        }
        var digits = skipDigits()
        var isWhole = true
        if index < rest.endIndex, rest[index] == "." {
            let point = index
            index = rest.index(after: index)
            let fraction = skipDigits()
            // A bare trailing point ("5.") is not part of the number; the unit check reports it.
            if fraction == 0 { index = point } else { isWhole = false }
            digits += fraction
        }
        guard digits > 0 else { return nil }
        // An exponent counts only when digits follow it, so "2e" stays number "2" and unit "e".
        let mantissaEnd = index
        if index < rest.endIndex, rest[index] == "e" || rest[index] == "E" {
            index = rest.index(after: index)
            if index < rest.endIndex, rest[index] == "+" || rest[index] == "-" {
                index = rest.index(after: index)
            }
            if skipDigits() == 0 { index = mantissaEnd } else { isWhole = false }
        }
        // Only digits, points and exponents got this far, so nil means too large: infinite.
        let value = Double(rest[..<index]) ?? .infinity
        rest = rest[index...]
        return Decimal(value: value, isWhole: isWhole)
    }

    /// `/denominator` after `numerator`; `rest` starts at the `/` or at whitespace before it.
    private mutating func scanFraction(numerator: Decimal) throws(LengthParseError) -> Double {
        rest = rest.drop(while: \.isWhitespace).dropFirst().drop(while: \.isWhitespace)
        if rest.first == "-" { throw failure(.negativeDenominator) }
        guard let denominator = scanDecimal() else { throw failure(.incompleteFraction) }
        guard numerator.isWhole, denominator.isWhole else { throw failure(.fractionNotWhole) }
        guard numerator.value.isFinite, denominator.value.isFinite else { throw failure(.nonFinite) }
        guard denominator.value != 0 else { throw failure(.zeroDenominator) }
        return numerator.value / denominator.value
    }

    /// The fraction of a mixed number (`" 3/16"` or `"-3/16"` after the whole part), or nil, with
    /// `rest` untouched, when what follows is not one.
    private mutating func scanFractionAfterWhole() throws(LengthParseError) -> Double? {
        let start = rest
        var candidate = rest.drop(while: \.isWhitespace)
        let spaced = candidate.startIndex != rest.startIndex
        if candidate.first == "-" {
            candidate = candidate.dropFirst().drop(while: \.isWhitespace)
        } else if !spaced {
            return nil
        }
        rest = candidate
        guard let numerator = scanDecimal() else {
            rest = start
            return nil
        }
        guard rest.drop(while: \.isWhitespace).first == "/" else {
            // "1 2in": a second number where a unit belongs.
            throw failure(.extraNumber)
        }
        return try scanFraction(numerator: numerator)
    }

    /// Whether the text spells NaN or infinity, so the error can say so instead of "no number".
    private func namesNonFiniteNumber(_ text: Substring) -> Bool {
        let word = text.prefix(while: \.isLetter).lowercased()
        return ["nan", "inf", "infinity"].contains(word)
    }

    private func failure(_ reason: LengthParseError.Reason) -> LengthParseError {
        LengthParseError(text: text, reason: reason)
    }
}
