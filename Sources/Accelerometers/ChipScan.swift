import I2C

/// The chips Plumb can drive, by their descriptions: what `plumb probe --scan` looks for, what
/// `sensor.kind` and `--sensor` name, and the one place a driver is built for a description. A
/// new chip is added here.
public enum ChipCatalog {
    public static let all: [ChipDescription] = [ADXL345.description, ADXL355.description, MPU6050.description]

    /// The chip `sensor.kind` or `--sensor` names (its kind or an alias); nil for another name.
    public static func chip(named name: String) -> ChipDescription? {
        all.first { $0.names.contains(name) }
    }

    /// Every model a probe reports (``ChipIdentity/model``, what `P/health`'s `chip` says): each
    /// chip's, and for the MPU-6050 each variant its WHO_AM_I tells apart, for the references.
    public static let models: [String] = all.flatMap { chip in
        chip.kind == MPU6050.description.kind ? MPU6050Variant.allCases.map(\.rawValue) : [chip.model]
    }

    /// The chip the simulator plays unless told otherwise: the first, the ADXL345 Plumb began on.
    public static let simulated = all[0]

    /// The driver for `chip` at `address` on `bus`.
    public static func driver(for chip: ChipDescription, bus: any I2CBus, address: I2CAddress? = nil,
                              clock: any PacingClock = MonotonicPacingClock()) -> any Accelerometer {
        let address = address ?? chip.addresses[0]
        switch chip.kind {
        case ADXL355.description.kind: return ADXL355(bus: bus, address: address, clock: clock)
        case MPU6050.description.kind: return MPU6050(bus: bus, address: address, clock: clock)
        default: return ADXL345(bus: bus, address: address, clock: clock)
        }
    }

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

    /// Every supported chip on `bus`, and what the scan saw at each address where none
    /// answered: the evidence a person needs to tell a wiring fault from an unsupported chip.
    public static func survey(_ bus: any I2CBus, catalog: [ChipDescription] = ChipCatalog.all)
        -> (findings: [ChipFinding], misses: [ChipMiss]) {
        var findings: [ChipFinding] = []
        var misses: [ChipMiss] = []
        for chip in catalog {
            for address in chip.addresses {
                switch examine(chip, at: address, on: bus) {
                case .success(let finding): findings.append(finding)
                case .failure(let miss): misses.append(miss)
                }
            }
        }
        let found = Set(findings.map(\.address))
        return (findings.sorted { ($0.address.rawValue, $0.chip.model) < ($1.address.rawValue, $1.chip.model) },
                misses.filter { !found.contains($0.address) })
    }

    /// `chip` at `address`, when every identification register reads one of its values.
    static func identify(_ chip: ChipDescription, at address: I2CAddress, on bus: any I2CBus) -> ChipFinding? {
        try? examine(chip, at: address, on: bus).get()
    }

    private static func examine(_ chip: ChipDescription, at address: I2CAddress,
                                 on bus: any I2CBus) -> Result<ChipFinding, ChipMiss> {
        var read: [UInt8] = []
        var isClone = false
        for register in chip.identification {
            let value: UInt8
            do {
                guard let byte = try bus.readRegisters(at: address, from: register.register, count: 1).first else {
                    return .failure(ChipMiss(address: address, chip: chip, seen: .nothing))
                }
                value = byte
            } catch {
                return .failure(ChipMiss(address: address, chip: chip, seen: .busError(error)))
            }
            if register.clones.contains(value) {
                isClone = true
            } else if !register.expected.contains(value) {
                return .failure(ChipMiss(address: address, chip: chip, seen: .otherID(register: register.name, value: value)))
            }
            read.append(value)
        }
        guard let first = chip.identification.first else {
            return .failure(ChipMiss(address: address, chip: chip, seen: .nothing))
        }
        // The first ID register twice in one transaction: an adapter that takes one read message
        // per transfer refuses it, and the bus falls back (``I2CBus/mode`` then says rdwr).
        let run = RegisterRun(register: first.register, count: 1)
        _ = try? bus.readRegisterRuns(at: address, [run, run])
        return .success(ChipFinding(chip: chip, address: address, identification: read, isClone: isClone, mode: bus.mode))
    }
}

/// What answered, or failed to, where a supported chip could have been.
public struct ChipMiss: Error, Sendable, Equatable {
    public enum Seen: Sendable, Equatable {
        /// The transfer failed: no acknowledge, a bus error, an address a kernel driver holds.
        case busError(I2CError)
        /// Something answered, with an identification that is not this chip's.
        case otherID(register: String, value: UInt8)
        /// The read returned no byte.
        case nothing
    }

    public var address: I2CAddress
    /// The chip looked for.
    public var chip: ChipDescription
    public var seen: Seen
}

/// Why `sensor.kind: auto` could not pick a chip: none answered, or several did.
public struct ChipScanError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No supported chip answered at these addresses.
        case noChip(addresses: [I2CAddress], misses: [ChipMiss] = [])
        /// These did; `auto` will not guess which one is meant.
        case severalChips([ChipFinding])
    }

    public var reason: Reason
    /// The bus's name: `/dev/i2c-1`.
    public var bus: String

    public init(reason: Reason, bus: String) {
        self.reason = reason
        self.bus = bus
    }

    public var description: String {
        switch reason {
        case .noChip(let addresses, let misses):
            "no supported accelerometer (\(ChipCatalog.all.map(\.model).joined(separator: ", "))) answers on \(bus) at"
                + " \(addresses.map(\.description).joined(separator: ", "))\(Self.evidence(misses)). Check its wiring and"
                + " power (`i2cdetect -y N` lists every address that answers), or name it: sensor.kind and sensor.address"
                + " (--sensor, --address)."
        case .severalChips(let findings):
            "several supported accelerometers answer on \(bus): "
                + findings.map { "\($0.chip.model) at \($0.address)" }.joined(separator: ", ")
                + ". Name the one to read: sensor.kind and sensor.address (--sensor KIND --address ADDR);"
                + " plumb probe --scan lists them."
        }
    }
}

extension ChipScanError {
    /// `: 0x53 has ID 0x68 (DEVID); no device acknowledged at 0x1D, 0x68, 0x69`, from what the
    /// scan saw, once per address: answers with another ID first (the likeliest unsupported
    /// chip), then another bus error described in full, then the silent addresses.
    static func evidence(_ misses: [ChipMiss]) -> String {
        var told = Set<I2CAddress>()
        var answered: [String] = []
        var failure: I2CError?
        for miss in misses where !told.contains(miss.address) {
            switch miss.seen {
            case .otherID(let register, let value):
                told.insert(miss.address)
                answered.append("\(miss.address) has ID 0x\(String(value, radix: 16, uppercase: true)) (\(register))")
            case .busError(let error) where error.code != .noAcknowledge:
                told.insert(miss.address)
                if failure == nil { failure = error }
            case .busError, .nothing:
                continue
            }
        }
        let silent = Set(misses.map(\.address)).subtracting(told).sorted { $0.rawValue < $1.rawValue }.map(\.description)
        var parts = answered
        if let failure { parts.append(failure.description) }
        if !silent.isEmpty { parts.append("no device acknowledged at " + silent.joined(separator: ", ")) }
        return parts.isEmpty ? "" : ": " + parts.joined(separator: "; ")
    }
}

extension ChipScan {
    /// `sensor.kind: auto`: the one supported chip on `bus` (at `address` when given).
    ///
    /// - Throws: ``ChipScanError`` when none answers, or several do.
    public static func locate(on bus: any I2CBus, address: I2CAddress? = nil,
                              catalog: [ChipDescription] = ChipCatalog.all) throws(ChipScanError) -> ChipFinding {
        // With an address, only the chips that can be there, only there.
        let narrowed = address.map { at in
            catalog.filter { $0.addresses.contains(at) }.map { chip in
                var chip = chip
                chip.addresses = [at]
                return chip
            }
        } ?? catalog
        let (findings, misses) = survey(bus, catalog: narrowed)
        switch findings.count {
        case 1: return findings[0]
        case 0:
            let addresses = address.map { [$0] } ?? Array(Set(catalog.flatMap(\.addresses))).sorted { $0.rawValue < $1.rawValue }
            throw ChipScanError(reason: .noChip(addresses: addresses, misses: misses), bus: bus.name)
        default: throw ChipScanError(reason: .severalChips(findings), bus: bus.name)
        }
    }

    /// The driver for the chip `kind` names on `bus`, at `address` or its default; with `auto`,
    /// for the one chip a scan finds (``locate(on:address:catalog:)``). Nil for `sim`, whose bus
    /// is the simulator's.
    ///
    /// - Throws: ``ChipScanError`` when `auto` finds none or several.
    public static func driver(for kind: SensorKind, on bus: any I2CBus, address: I2CAddress?,
                              clock: any PacingClock = MonotonicPacingClock()) throws(ChipScanError) -> (any Accelerometer)? {
        switch kind {
        case .sim: return nil
        case .chip(let chip): return ChipCatalog.driver(for: chip, bus: bus, address: address, clock: clock)
        case .auto:
            let found = try locate(on: bus, address: address)
            return ChipCatalog.driver(for: found.chip, bus: bus, address: found.address, clock: clock)
        }
    }
}
