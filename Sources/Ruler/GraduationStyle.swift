import Geometry

/// How a ruler divides each unit into ticks.
public enum GraduationStyle: String, CaseIterable, Sendable {
    /// Tenths, as a metric rule: a long tick at each unit, a three-quarter tick at the half, half
    /// ticks at the tenths. For mm, cm and m.
    case metric
    /// Tenths, as the classic control draws inches: a long tick at each unit, half ticks at the
    /// half and the tenths. For in and ft.
    case decimal
    /// A tape's binary fractions down to 1/16: each level of halving a tick half as tall. For
    /// inches only.
    case fractional

    /// The classic control's style for `unit`: metric for mm, cm, m; decimal for in and ft.
    public static func standard(for unit: LengthUnit) -> GraduationStyle {
        switch unit {
        case .mm, .cm, .m: .metric
        case .in, .ft: .decimal
        }
    }

    /// Whether the style can graduate `unit`: metric mm/cm/m; decimal in and ft; fractional in.
    public func supports(_ unit: LengthUnit) -> Bool {
        switch self {
        case .metric: [.mm, .cm, .m].contains(unit)
        case .decimal: [.in, .ft].contains(unit)
        case .fractional: unit == .in
        }
    }

    /// The style named by `text`, in any letter case with surrounding whitespace ignored.
    public init?(parsing text: some StringProtocol) {
        self.init(rawValue: Substring(text).trimmingWhitespace.lowercased())
    }

    /// Ticks per unit: 10, or 16 for fractional.
    public var subdivisions: Int {
        switch self {
        case .metric, .decimal: 10
        case .fractional: 16
        }
    }

    /// The rank and height of tick `index` within a unit (0 at the unit's own tick, up to
    /// ``subdivisions`` − 1). Rank 0 is the unit; a higher rank is a finer division.
    func mark(at index: Int) -> (rank: Int, height: Double) {
        switch self {
        case .metric:
            if index == 0 { return (0, 1) }
            return index == 5 ? (1, 0.75) : (2, 0.5)
        case .decimal:
            if index == 0 { return (0, 1) }
            return index == 5 ? (1, 0.5) : (2, 0.5)
        case .fractional:
            // Sixteenths: the rank is how many halvings it takes to reach the tick, so 8/16 is a
            // half (rank 1), 4/16 a quarter (2), 2/16 an eighth (3), odd ones sixteenths (4).
            guard index != 0 else { return (0, 1) }
            let rank = 4 - index.trailingZeroBitCount
            return (rank, 1 / Double(1 << rank))
        }
    }

    /// How to say which units the style is for, in an error message.
    var unitsHint: String {
        switch self {
        case .metric: "metric graduations are for mm, cm and m"
        case .decimal: "decimal graduations are for in and ft"
        case .fractional: "fractional graduations are for inches"
        }
    }
}
