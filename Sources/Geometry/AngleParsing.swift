/// Why a piece of text could not be read as an angle.
public typealias AngleParseError = TextParseError<AngleParseReason>

/// What was wrong with the text of an angle.
public enum AngleParseReason: TextParseReason {
    /// The text was empty or only whitespace.
    case empty
    /// The text does not start with a decimal number.
    case missingNumber
    /// The number is NaN or infinite, or too large to represent.
    case nonFinite
    /// A number was followed by something that is not a known unit (the unit text is given).
    case unknownUnit(String)

    public static let subject = "an angle"

    public var problem: String {
        switch self {
        case .empty: "it is empty"
        case .missingNumber: "it does not start with a number"
        case .nonFinite: "the number is not finite"
        case .unknownUnit(let unit): "\"\(unit)\" is not a unit"
        }
    }

    /// Built from the unit list so the help can never fall behind the parser.
    public static let acceptedForms: String = {
        let units = AngleUnit.allCases.map { "\($0.rawValue) or \($0.symbol)" }.joined(separator: ", ")
        return "Write a number in degrees (0.25), or a number followed by a unit, with or without a space"
            + " (0.1°, 0.2 %, 1.5 mm/m, 0.5 in_per_ft). Units: \(units)."
    }()
}

extension Angle {
    /// Reads an angle typed by a person or written in a configuration file.
    ///
    /// Accepts a decimal number, optionally signed and with an exponent, meaning degrees
    /// (`"0.25"`, `"-1e-2"`), or a number followed by a unit with optional whitespace between:
    /// `"0.1deg"`, `"0.1 °"`, `"0.2%"`, `"0.2 percent"`, `"1.5 mm/m"`, `"1.5mm_per_m"`,
    /// `"0.5 in/ft"`, `"0.5in_per_ft"` (see ``AngleUnit/init(parsing:)``). Surrounding whitespace
    /// is ignored. Slopes become angles through `atan`, exactly as ``init(_:unit:)`` does.
    ///
    /// - Throws: ``AngleParseError`` for empty text, text that does not start with a number
    ///   (including hexadecimal and comma decimals), NaN, infinities and numbers too large for a
    ///   `Double`, and unknown units.
    public static func parse(_ text: String) throws(AngleParseError) -> Angle {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw AngleParseError(text: text, reason: .empty) }
        guard let numberEnd = endOfLeadingNumber(in: trimmed) else {
            let reason: AngleParseError.Reason = namesNonFiniteNumber(trimmed) ? .nonFinite : .missingNumber
            throw AngleParseError(text: text, reason: reason)
        }
        // The scanner only lets through what `Double` reads, so a nil here means out of range.
        guard let value = Double(trimmed[..<numberEnd]), value.isFinite else {
            throw AngleParseError(text: text, reason: .nonFinite)
        }
        let unitText = trimmed[numberEnd...].trimmingWhitespace
        let unit: AngleUnit
        if unitText.isEmpty {
            unit = .deg
        } else if let named = AngleUnit(parsing: unitText) {
            unit = named
        } else {
            throw AngleParseError(text: text, reason: .unknownUnit(String(unitText)))
        }
        guard let angle = Angle(value, unit: unit) else {
            throw AngleParseError(text: text, reason: .nonFinite)
        }
        return angle
    }

    /// The end of a leading `[+-]digits[.digits][e[+-]digits]` number, or nil if there is none.
    ///
    /// Scanning by hand, rather than handing the whole text to `Double`, is what lets a unit
    /// follow the number without a space, and keeps out the forms `Double` also accepts but a
    /// person never means here: `nan`, `inf`, hexadecimal.
    private static func endOfLeadingNumber(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        func skipDigits() -> Int {
            var count = 0
            while index < text.endIndex, text[index].isASCII, text[index].isNumber {
                index = text.index(after: index)
                count += 1
            }
            return count
        }
        if index < text.endIndex, text[index] == "+" || text[index] == "-" {
            index = text.index(after: index)
        }
        var digits = skipDigits()
        if index < text.endIndex, text[index] == "." {
            let afterPoint = text.index(after: index)
            let beforePoint = index
            index = afterPoint
            let fraction = skipDigits()
            // A bare trailing point ("5.") is not part of the number; leave it for the unit check.
            if fraction == 0 { index = beforePoint }
            digits += fraction
        }
        guard digits > 0 else { return nil }
        // An exponent counts only when digits follow it, so "2e" stays number "2" and unit "e".
        let mantissaEnd = index
        if index < text.endIndex, text[index] == "e" || text[index] == "E" {
            index = text.index(after: index)
            if index < text.endIndex, text[index] == "+" || text[index] == "-" {
                index = text.index(after: index)
            }
            if skipDigits() == 0 { index = mantissaEnd }
        }
        return index
    }

    /// Whether the text spells NaN or infinity, so the error can say so instead of "no number".
    private static func namesNonFiniteNumber(_ text: Substring) -> Bool {
        let unsigned = text.first == "+" || text.first == "-" ? text.dropFirst() : text
        let word = unsigned.prefix(while: \.isLetter).lowercased()
        return ["nan", "inf", "infinity"].contains(word)
    }
}
