/// An evaluation zone of ISO 10816/20816: how a machine's broadband velocity compares with what
/// the standard considers acceptable for its ``MachineClass``.
///
/// The raw values are the wire names (`zone` in `P/vibration`, the options of Home Assistant's
/// zone sensor).
public enum SeverityZone: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The vibration of newly commissioned machines.
    case a = "A"
    /// Acceptable for unrestricted long-term operation.
    case b = "B"
    /// Unsatisfactory for long-term continuous operation; run it only until a chance to fix it.
    case c = "C"
    /// Severe enough to cause damage.
    case d = "D"

    /// What the zone means, in the standard's words, shortened.
    public var meaning: String {
        switch self {
        case .a: "newly commissioned"
        case .b: "acceptable for unrestricted long-term operation"
        case .c: "unsatisfactory for long-term operation"
        case .d: "severe enough to cause damage"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .a: 0
        case .b: 1
        case .c: 2
        case .d: 3
        }
    }
}
