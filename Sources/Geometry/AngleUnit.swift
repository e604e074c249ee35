#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A unit in which a person reads or types an angle.
///
/// The raw values are the names used in configuration files and on the command line. Besides
/// degrees, the units are slopes: rise over run, scaled. A slope is `k · tan(angle)` with
/// `k` = 100 for percent, 1000 for millimetres per metre and 12 for inches per foot, so 45° is
/// 100 %, 1000 mm/m and 12 in/ft.
public enum AngleUnit: String, CaseIterable, Sendable, Codable {
    /// Degrees.
    case deg
    /// Percent slope: 100 · tan(angle).
    case percent
    /// Millimetres of rise per metre of run: 1000 · tan(angle).
    case mmPerM = "mm_per_m"
    /// Inches of rise per foot of run: 12 · tan(angle).
    case inPerFt = "in_per_ft"

    /// The short sign shown after a number: `°`, `%`, `mm/m`, `in/ft`.
    public var symbol: String {
        switch self {
        case .deg: "°"
        case .percent: "%"
        case .mmPerM: "mm/m"
        case .inPerFt: "in/ft"
        }
    }

    /// The factor `k` in `slope = k · tan(angle)`, or nil for degrees, which is not a slope.
    var slopeScale: Double? {
        switch self {
        case .deg: nil
        case .percent: 100
        case .mmPerM: 1000
        case .inPerFt: 12
        }
    }

    /// The unit named by `text`: a raw value (`deg`, `percent`, `mm_per_m`, `in_per_ft`) or a
    /// symbol (`°`, `%`, `mm/m`, `in/ft`). Surrounding whitespace and letter case are ignored;
    /// anything else, including the empty string, gives nil.
    public init?(parsing text: some StringProtocol) {
        let wanted = String(text).trimmingWhitespace.lowercased()
        guard let unit = AngleUnit.allCases.first(where: { $0.rawValue == wanted || $0.symbol == wanted })
        else { return nil }
        self = unit
    }
}

extension Angle {
    /// The angle as a number in `unit`.
    ///
    /// Degrees are always returned (NaN for a NaN angle). A slope unit returns nil when
    /// |angle| ≥ 90°, because a vertical or overturned line has no finite slope, and for a
    /// non-finite angle. Slopes keep the sign of the angle.
    public func value(in unit: AngleUnit) -> Double? {
        guard let scale = unit.slopeScale else { return degrees }
        guard abs(radians) < .pi / 2 else { return nil }
        return scale * tan(radians)
    }

    /// The angle that reads `value` in `unit`, or nil when `value` is NaN or infinite.
    ///
    /// Degrees map directly. A slope maps back through `atan(value / k)`, so any finite slope
    /// gives an angle strictly between −90° and 90°, and
    /// `Angle(a.value(in: u)!, unit: u) ≈ a` for every |a| < 90°.
    public init?(_ value: Double, unit: AngleUnit) {
        guard value.isFinite else { return nil }
        if let scale = unit.slopeScale {
            self.init(radians: atan(value / scale))
        } else {
            self.init(degrees: value)
        }
    }
}
