import Geometry

/// Why a piece of text could not be read as a length.
public typealias LengthParseError = TextParseError<LengthParseReason>

/// What was wrong with the text of a length.
public enum LengthParseReason: TextParseReason {
    /// The text was empty or only whitespace.
    case empty
    /// The text does not start with a number (after an optional sign).
    case missingNumber
    /// The number is NaN or infinite, or too large for a `Double`.
    case nonFinite
    /// A fraction whose denominator is zero (`1/0`).
    case zeroDenominator
    /// A fraction whose denominator is negative (`3/-8`).
    case negativeDenominator
    /// A `/` with no whole-number denominator after it (`3/`).
    case incompleteFraction
    /// A part of a fraction or mixed number that is not a whole number (`1.5 3/16`, `3/8.5`).
    case fractionNotWhole
    /// More numbers than a whole number and a fraction (`1 2 3in`).
    case extraNumber
    /// A number followed by something that is not a unit (the unit text is given).
    case unknownUnit(String)

    public static let subject = "a length"

    public var problem: String {
        switch self {
        case .empty: "it is empty"
        case .missingNumber: "it does not start with a number"
        case .nonFinite: "the number is not finite"
        case .zeroDenominator: "a fraction cannot have 0 below the line"
        case .negativeDenominator: "a fraction's denominator cannot be negative; put the sign in front"
        case .incompleteFraction: "the fraction has no whole number below the line"
        case .fractionNotWhole: "a fraction and the whole number before it must be whole numbers"
        case .extraNumber: "it has more numbers than a whole number and a fraction"
        case .unknownUnit(let unit): "\"\(unit)\" is not a unit; the units are \(RulerUnit.symbolList)"
        }
    }

    public static let acceptedForms = "Give a length such as \"30cm\", \"12 in\", \"1.2m\", \"3/8in\", \"1 3/16in\""
        + " or \"1-3/16 in\" (units: \(RulerUnit.symbolList))."
}
