import Geometry

/// A physical length: a value and the unit it is in.
///
/// Conversions use the exact legal factors as fractions of whole numbers (1 in is 127/5 mm, 1 ft
/// is 1524/5 mm), reduced for each pair of units, so a conversion is one multiplication by a whole
/// number and one division: 1 ft is exactly 12 in, 1 3/16 in exactly 30.1625 mm, and any result
/// a `Double` can hold comes out exact. (Multiplying by the `Double` nearest 25.4, as
/// ``LengthUnit/convert(_:to:)`` does, gives 12.000000000000002 in for 1 ft.)
///
/// Equality is on the value and unit as written: `Length(1, .in)` and `Length(25.4, .mm)` are the
/// same distance but not equal; compare ``millimetres`` for that.
public struct Length: Sendable, Hashable, CustomStringConvertible {
    /// The number of ``unit``s. Any `Double`; the types that take a length say which they accept.
    public var value: Double
    /// The unit ``value`` counts.
    public var unit: LengthUnit

    /// `value` of `unit`: `Length(30, .cm)`.
    public init(_ value: Double, _ unit: LengthUnit) {
        self.value = value
        self.unit = unit
    }

    /// The length in millimetres.
    public var millimetres: Double { converted(to: .mm).value }

    /// The same length in `other`; unchanged (and so exact) when `other` is already its unit.
    public func converted(to other: LengthUnit) -> Length {
        guard other != unit else { return self }
        let from = unit.exactMillimetres, to = other.exactMillimetres
        // value · (from.n / from.d) / (to.n / to.d), as one reduced fraction.
        var numerator = from.numerator * to.denominator
        var denominator = from.denominator * to.numerator
        let common = Self.greatestCommonDivisor(numerator, denominator)
        numerator /= common
        denominator /= common
        return Length(value * Double(numerator) / Double(denominator), other)
    }

    /// The value and unit as a person writes them: `30 cm`, `1.1875 in`.
    public var description: String { "\(value.plainText) \(unit.symbol)" }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

extension LengthUnit {
    /// Millimetres in one of this unit as an exact fraction: 1, 10, 1000, 127/5, 1524/5.
    var exactMillimetres: (numerator: Int, denominator: Int) {
        switch self {
        case .mm: (1, 1)
        case .cm: (10, 1)
        case .m: (1000, 1)
        case .in: (127, 5)
        case .ft: (1524, 5)
        }
    }
}
