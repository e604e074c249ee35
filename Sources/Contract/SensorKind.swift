/// Which sensor to read: `sensor.kind` in `plumb.yaml` and `--sensor` on the command line.
public enum SensorKind: String, Sendable, CaseIterable {
    /// A real ADXL345 on an I²C bus.
    case adxl345
    /// The simulated ADXL345; the command line sets its pose.
    case sim

    /// Other names the one-shot commands (`probe`, `read`, `selftest`, …) accept for a kind: the
    /// ADXL343 is the ADXL345's register-compatible sibling. `sensor.kind` and `plumb run` take
    /// only the raw values.
    public static let aliases: [String: SensorKind] = ["adxl343": .adxl345]

    /// Every name the one-shot commands accept, each kind followed by its aliases:
    /// `adxl345, adxl343, sim`.
    public static let namesAndAliases: [String] = allCases.flatMap { kind in
        [kind.rawValue] + aliases.filter { $0.value == kind }.keys.sorted()
    }

    /// The kind a raw value or an alias names, or nil.
    public init?(nameOrAlias name: String) {
        guard let kind = Self(rawValue: name) ?? Self.aliases[name] else { return nil }
        self = kind
    }
}
