import I2C

/// The chips Plumb can drive, by their descriptions: what `plumb probe --scan` looks for, and
/// what `sensor.kind` and `--sensor` will name. A new chip's description is added here.
public enum ChipCatalog {
    public static let all: [ChipDescription] = [ADXL345.description]

    /// The chip `sensor.kind` or `--sensor` names (its kind or an alias); nil for another name.
    public static func chip(named name: String) -> ChipDescription? {
        all.first { $0.kind == name || $0.aliases.contains(name) }
    }

    /// The chip the simulator plays.
    public static let simulated = ADXL345.description

    /// Every address one of them can have, ascending.
    public static var addresses: [I2CAddress] {
        Array(Set(all.flatMap(\.addresses))).sorted { $0.rawValue < $1.rawValue }
    }
}

/// A supported chip found on a bus by ``ChipScan``.
public struct ChipFinding: Sendable, Hashable {
    public var chip: ChipDescription
    public var address: I2CAddress
    /// What each identification register read, in the description's order.
    public var identification: [UInt8]
    /// Whether a register read a clone's value rather than a genuine part's.
    public var isClone: Bool
    /// How the bus carries reads to it: batched, one read per transfer, or SMBus.
    public var mode: I2CMode
}

/// `plumb probe --scan`: reads the identification registers at every address a supported chip
/// can have, and lists what answers as one of them.
///
/// Reads only, one or two bytes per register: it never configures or drains a chip, so it may
/// run beside an agent that owns one (the kernel serializes each transfer).
public enum ChipScan {
    /// The chips found on `bus`, by address, then by the catalog's order.
    public static func scan(_ bus: any I2CBus, catalog: [ChipDescription] = ChipCatalog.all) -> [ChipFinding] {
        var findings: [ChipFinding] = []
        for chip in catalog {
            for address in chip.addresses {
                guard let finding = identify(chip, at: address, on: bus) else { continue }
                findings.append(finding)
            }
        }
        return findings.sorted { ($0.address.rawValue, $0.chip.model) < ($1.address.rawValue, $1.chip.model) }
    }

    /// `chip` at `address`, when every identification register reads one of its values.
    static func identify(_ chip: ChipDescription, at address: I2CAddress, on bus: any I2CBus) -> ChipFinding? {
        var read: [UInt8] = []
        var isClone = false
        for register in chip.identification {
            guard let value = try? bus.readRegisters(at: address, from: register.register, count: 1).first else {
                return nil
            }
            if register.clones.contains(value) {
                isClone = true
            } else if !register.expected.contains(value) {
                return nil
            }
            read.append(value)
        }
        guard let first = chip.identification.first else { return nil }
        // The first ID register twice in one transaction: an adapter that takes one read message
        // per transfer refuses it, and the bus falls back (``I2CBus/mode`` then says rdwr).
        let run = RegisterRun(register: first.register, count: 1)
        _ = try? bus.readRegisterRuns(at: address, [run, run])
        return ChipFinding(chip: chip, address: address, identification: read, isClone: isClone, mode: bus.mode)
    }
}
