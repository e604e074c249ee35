import Geometry

/// A unit a ruler value can be in: a physical length unit, or screen pixels.
///
/// Pixels are not a length: how many make a centimetre depends on a ``PixelDensity``, so a
/// value in `px` converts to a ``Length`` only through one.
public enum RulerUnit: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A physical length unit.
    case length(LengthUnit)
    /// Screen pixels.
    case px

    /// Every unit, physical ones first, in the order error messages list them.
    public static let allCases: [RulerUnit] = LengthUnit.allCases.map(RulerUnit.length) + [.px]

    /// The unit named by `text`: a symbol (`mm`, `cm`, `m`, `in`, `ft`, `px`), or one of the
    /// spellings a person writes after a number on a tape (`inch`, `inches`, `"`, `foot`, `feet`,
    /// `'`). Letter case and surrounding whitespace are ignored; anything else, including the
    /// empty string, gives nil.
    public init?(parsing text: some StringProtocol) {
        let wanted = Substring(text).trimmingWhitespace.lowercased()
        if let unit = LengthUnit(rawValue: wanted) {
            self = .length(unit)
            return
        }
        switch wanted {
        case "px": self = .px
        case "inch", "inches", "\"": self = .length(.in)
        case "foot", "feet", "'": self = .length(.ft)
        default: return nil
        }
    }

    /// The short sign shown after a number: `mm`, `cm`, `m`, `in`, `ft` or `px`.
    public var symbol: String {
        switch self {
        case .length(let unit): unit.symbol
        case .px: "px"
        }
    }

    /// The physical unit, or nil for pixels.
    public var lengthUnit: LengthUnit? {
        if case .length(let unit) = self { unit } else { nil }
    }

    public var description: String { symbol }

    /// The symbols of every unit, for error messages: `mm, cm, m, in, ft, px`.
    static let symbolList = allCases.map(\.symbol).joined(separator: ", ")
}
