/// Which sensor to read: `sensor.kind` in `plumb.yaml` and `--sensor` on the command line.
///
/// The chips' names come from ``ChipCatalog``, so a new chip's kind is accepted wherever a kind
/// is, with nothing here to change.
public enum SensorKind: Sendable, Hashable {
    /// Whichever one supported chip answers on the bus (``ChipScan``); refused when none or
    /// several do. The default.
    case auto
    /// This chip, at its address.
    case chip(ChipDescription)
    /// The simulated chip (`--sim-chip` picks which); the command line sets its pose.
    case sim

    /// `auto`, `sim`, or a chip's kind or alias.
    public init?(name: String) {
        switch name {
        case "auto": self = .auto
        case "sim": self = .sim
        default:
            guard let chip = ChipCatalog.chip(named: name) else { return nil }
            self = .chip(chip)
        }
    }

    /// The name `sensor.kind` takes for it: `auto`, `adxl345`, `sim`.
    public var name: String {
        switch self {
        case .auto: "auto"
        case .chip(let chip): chip.kind
        case .sim: "sim"
        }
    }

    /// The chip it names; nil for `auto` (not known until a scan) and `sim`.
    public var chip: ChipDescription? {
        if case .chip(let chip) = self { return chip }
        return nil
    }

    /// Every name accepted, each chip's kind followed by its aliases:
    /// `auto, adxl345, adxl343, adxl355, mpu6050, mpu6500, mpu9250, sim`.
    public static var names: [String] { ["auto"] + ChipCatalog.all.flatMap(\.names) + ["sim"] }
}
