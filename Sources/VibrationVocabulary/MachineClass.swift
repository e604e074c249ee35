/// The machine group whose zone boundaries judge a velocity (`vibration_class`).
///
/// Two families: the classes of ISO 10816-1 Annex B (general guidance, by machine size), and the
/// groups of ISO 10816-3 / ISO 20816-3 (industrial machines above 15 kW, by power and by how
/// rigid the support is). The raw values are the setting's wire values.
public enum MachineClass: String, Sendable, Hashable, CaseIterable {
    /// ISO 10816-1 class I: small machines, such as motors up to 15 kW (a washing machine, a
    /// pump, a fan). The default.
    case classI = "class_i"
    /// ISO 10816-1 class II: medium machines, 15–75 kW, or up to 300 kW on special foundations.
    case classII = "class_ii"
    /// ISO 10816-1 class III: large machines on rigid, heavy foundations.
    case classIII = "class_iii"
    /// ISO 10816-1 class IV: large machines on soft foundations (turbo sets, for example).
    case classIV = "class_iv"
    /// ISO 10816-3 group 2 (15–300 kW, shaft height 160–315 mm), rigid support.
    case group2Rigid = "group2_rigid"
    /// ISO 10816-3 group 2, flexible support.
    case group2Flexible = "group2_flexible"
    /// ISO 10816-3 group 1 (300 kW–50 MW, shaft height ≥ 315 mm), rigid support.
    case group1Rigid = "group1_rigid"
    /// ISO 10816-3 group 1, flexible support.
    case group1Flexible = "group1_flexible"

    /// The default: most machines Plumb is bolted to are small.
    public static let `default` = MachineClass.classI

    /// The list for "one of …" in a message.
    public static let list = allCases.map(\.rawValue).joined(separator: ", ")

    /// The upper limits of zones A, B and C in mm/s RMS (broadband velocity, 10–1000 Hz); above
    /// the last is zone D.
    public var boundaries: ZoneBoundaries {
        switch self {
        case .classI: ZoneBoundaries(ab: 0.71, bc: 1.8, cd: 4.5)
        case .classII: ZoneBoundaries(ab: 1.12, bc: 2.8, cd: 7.1)
        case .classIII: ZoneBoundaries(ab: 1.8, bc: 4.5, cd: 11.2)
        case .classIV: ZoneBoundaries(ab: 2.8, bc: 7.1, cd: 18)
        case .group2Rigid: ZoneBoundaries(ab: 1.4, bc: 2.8, cd: 4.5)
        case .group2Flexible: ZoneBoundaries(ab: 2.3, bc: 4.5, cd: 7.1)
        case .group1Rigid: ZoneBoundaries(ab: 2.3, bc: 4.5, cd: 7.1)
        case .group1Flexible: ZoneBoundaries(ab: 3.5, bc: 7.1, cd: 11)
        }
    }

    /// What a person would call it: `ISO 10816-1 class I (small machines, up to 15 kW)`.
    public var title: String {
        switch self {
        case .classI: "ISO 10816-1 class I (small machines, up to 15 kW)"
        case .classII: "ISO 10816-1 class II (medium machines, 15–75 kW)"
        case .classIII: "ISO 10816-1 class III (large machines, rigid foundation)"
        case .classIV: "ISO 10816-1 class IV (large machines, soft foundation)"
        case .group2Rigid: "ISO 10816-3 group 2, rigid (15–300 kW)"
        case .group2Flexible: "ISO 10816-3 group 2, flexible (15–300 kW)"
        case .group1Rigid: "ISO 10816-3 group 1, rigid (300 kW–50 MW)"
        case .group1Flexible: "ISO 10816-3 group 1, flexible (300 kW–50 MW)"
        }
    }

    /// The zone of a broadband RMS velocity in mm/s. A velocity exactly on a boundary belongs to
    /// the better zone (the standard's limits are upper limits). Not a number is zone D: a
    /// figure that cannot be trusted must not look acceptable.
    public func zone(velocityRMS: Double) -> SeverityZone {
        boundaries.zone(velocityRMS: velocityRMS)
    }
}

/// The three velocity limits, mm/s RMS, that split the four zones.
public struct ZoneBoundaries: Sendable, Hashable {
    /// Upper limit of zone A.
    public var ab: Double
    /// Upper limit of zone B.
    public var bc: Double
    /// Upper limit of zone C.
    public var cd: Double

    public init(ab: Double, bc: Double, cd: Double) {
        self.ab = ab
        self.bc = bc
        self.cd = cd
    }

    /// See ``MachineClass/zone(velocityRMS:)``.
    public func zone(velocityRMS v: Double) -> SeverityZone {
        guard !v.isNaN else { return .d }
        if v <= ab { return .a }
        if v <= bc { return .b }
        if v <= cd { return .c }
        return .d
    }
}
