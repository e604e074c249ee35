/// A unit in which a person reads or types a length, such as how far to raise a foot.
///
/// The raw values are the names used in configuration files and over MQTT. Every conversion goes
/// through millimetres with the exact legal factors (the inch is 25.4 mm by definition), so
/// nothing drifts between units.
public enum LengthUnit: String, CaseIterable, Sendable, Codable {
    /// Millimetres.
    case mm
    /// Centimetres.
    case cm
    /// Metres.
    case m
    /// Inches: exactly 25.4 mm.
    case `in`
    /// Feet: exactly 304.8 mm (12 in).
    case ft

    /// How many millimetres make one of this unit: 1, 10, 1000, 25.4, 304.8. Each is the `Double`
    /// nearest the exact factor.
    public var millimetres: Double {
        switch self {
        case .mm: 1
        case .cm: 10
        case .m: 1000
        case .in: 25.4
        case .ft: 304.8
        }
    }

    /// The short sign shown after a number: `mm`, `cm`, `m`, `in`, `ft`.
    public var symbol: String { rawValue }

    /// `value` of this unit expressed in `other`: `LengthUnit.in.convert(1, to: .mm)` is 25.4.
    public func convert(_ value: Double, to other: LengthUnit) -> Double {
        // Skipping the round trip when nothing changes keeps values exact.
        other == self ? value : value * millimetres / other.millimetres
    }

    /// The unit named by `text`, a raw value in any letter case with surrounding whitespace
    /// ignored; nil for anything else, including the empty string.
    public init?(parsing text: some StringProtocol) {
        let wanted = String(text).trimmingWhitespace.lowercased()
        guard let unit = LengthUnit(rawValue: wanted) else { return nil }
        self = unit
    }
}
