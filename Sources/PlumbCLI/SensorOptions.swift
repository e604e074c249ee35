import Accelerometers
import Contract
import Control
import Geometry
import I2C
import Level
import Sampling

/// Where samples come from: `--bus PATH` (real hardware, the default `/dev/i2c-1`) with
/// `--sensor` naming the chip or `auto` finding it, or `--sensor sim` with its `--sim-*` scene,
/// error and `--sim-chip` flags.
struct SensorOptions {
    enum Source {
        case hardware(path: String)
        case simulated(SimulationOptions)
    }

    var source: Source
    /// `--sensor`: `auto` (the one supported chip that answers), a chip, or `sim`.
    var kind: SensorKind
    /// `--address`; nil for the chip's default (or, with `auto`, wherever the scan finds it).
    var address: I2CAddress?
    /// `--direct`: read the chip, never the agent.
    var direct: Bool
    /// `--socket`: where the agent answers.
    var socketPath: String
    /// Which of `--bus`, `--address` and `--socket` were given: an agent is asked about the chip
    /// they name only (any chip when none is named), and `--socket` asks it even with `--sensor sim`.
    var busGiven = false
    var addressGiven: Bool { address != nil }
    var socketGiven = false

    static let defaultBus = "/dev/i2c-1"

    static let specs: [OptionSpec] = [
        .value("--bus", "PATH", "I²C bus device (default \(defaultBus))."),
        .value("--sensor", "KIND", "auto (default: the one supported chip on --bus), "
            + ChipCatalog.all.map { $0.names.joined(separator: "/") }.joined(separator: ", ")
            + ", or sim (the simulated chip, --sim-chip)."),
        .value("--address", "ADDR", "Chip address (default: the chip's first, or wherever auto finds it): "
            + ChipCatalog.all.map { "\($0.model) \($0.addresses.map(\.description).joined(separator: "/"))" }
                .joined(separator: ", ") + "."),
    ] + routeSpecs + SimulationOptions.specs

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let name = try parsed.choice("--sensor", from: SensorKind.names)
        kind = name.flatMap(SensorKind.init(name:)) ?? .auto
        if let text = parsed.string("--address") {
            guard let address = I2CAddress(parsing: text) else {
                throw UsageError("--address takes a 7-bit address such as 0x53 or 0x68; got '\(text)'.")
            }
            self.address = address
        }
        direct = parsed.has("--direct")
        socketPath = parsed.string("--socket") ?? ControlProtocol.defaultSocketPath
        busGiven = parsed.string("--bus") != nil
        socketGiven = parsed.string("--socket") != nil
        guard !socketPath.isEmpty else { throw UsageError("--socket needs the path of the agent's control socket.") }
        let simulation = try SimulationOptions(parsed)
        if kind == .sim {
            if direct { throw UsageError("--direct applies to a chip on a bus; the simulated chip is always this command's own.") }
            guard parsed.string("--bus") == nil else {
                throw UsageError("--bus and --sensor sim exclude each other: the simulated chip has no bus.")
            }
            source = .simulated(simulation ?? SimulationOptions())
        } else {
            if let flag = simulation?.firstFlagGiven {
                throw UsageError("\(flag) applies to the simulated chip only; add --sensor sim.")
            }
            source = .hardware(path: parsed.string("--bus") ?? Self.defaultBus)
        }
    }

    var isSimulated: Bool {
        if case .simulated = source { return true }
        return false
    }

    /// Opens the bus (or builds the simulated chip) and the driver of the chip on it, holding
    /// the chip lock (``claimChip(at:)``) until the command exits. With `auto` the bus is
    /// scanned first (identification reads only) for the one supported chip.
    ///
    /// - Throws: ``CommandFailure``: no chip or several with `auto`, another Plumb process owns
    ///   the chip, or the bus failed.
    func open() throws(CommandFailure) -> any Accelerometer {
        switch source {
        case .hardware(let path):
            // The lock first where the chip's address is known already (named, given, or the
            // agent's on this bus): a chip someone else owns is refused before its bus is touched.
            let owner = ChipOwner.read(directory: socketDirectory).flatMap { $0.bus == path ? $0 : nil }
            if let known = address ?? kind.chip?.addresses.first ?? owner.flatMap({ I2CAddress(parsing: $0.address) }) {
                try claimChip(at: known)
            }
            let bus: LinuxI2CBus
            do { bus = try LinuxI2CBus(path: path) } catch { throw CommandFailure(error.description) }
            let (chip, at) = try locate(on: bus)
            try claimChip(at: at)
            return ChipCatalog.driver(for: chip, bus: bus, address: at)
        case .simulated(let simulation):
            let chip = simulation.chip
            let bus = simulation.makeChip(address: chip.addresses[0])
            return ChipCatalog.driver(for: chip, bus: bus, address: address ?? chip.addresses[0])
        }
    }

    /// The chip `--sensor` names and where, or with `auto` the one a scan of `bus` finds.
    ///
    /// - Throws: ``CommandFailure`` when `auto` finds no supported chip, or several.
    func locate(on bus: any I2CBus) throws(CommandFailure) -> (ChipDescription, I2CAddress) {
        if let chip = kind.chip { return (chip, address ?? chip.addresses[0]) }
        do {
            let found = try ChipScan.locate(on: bus, address: address)
            return (found.chip, found.address)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

extension SensorOptions {
    /// One second of raw samples from `chip` (from ``open()``): at its offered rate nearest
    /// ``oneSecondRateHz`` and its default range, as one batch; the chip is put back in standby
    /// whatever happens.
    ///
    /// - Throws: ``CommandFailure`` when the chip can't be read.
    func oneSecondBatch(from chip: any Accelerometer) throws(CommandFailure) -> SampleBatch {
        let sampler = Sampler(chip: chip)
        defer { try? chip.stop() }
        do {
            let settings = try sampler.start(SamplingRequest(rateHz: Self.oneSecondRateHz, rangeG: chip.chip.defaultRangeG))
            return try sampler.nextBatch(samples: max(1, Int(settings.rateHz.rounded())))
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// The rate to sample `chip` at: `--rate` when given, which must be one the chip offers
    /// (the error lists its rates), else the chip's offered rate nearest `defaultHz`.
    func rate(_ given: Double?, default defaultHz: Double, for chip: any Accelerometer) throws(UsageError) -> Double {
        let description = chip.chip
        guard let given else { return description.nearestRate(to: defaultHz)?.hertz ?? defaultHz }
        guard let rate = description.rate(exactly: given) else {
            throw UsageError("--rate takes one of the \(description.model)'s rates: \(description.rateList) Hz;"
                + " got \(ParsedArguments.format(given)).")
        }
        return rate.hertz
    }
}

extension SensorOptions {
    /// The rate of ``oneSecondBatch(from:)``, in Hz.
    static let oneSecondRateHz = 100.0
}

extension OptionSpec {
    /// `--mount`, as every command that reads an attitude takes it.
    static let mount = value("--mount", "MOUNT", "flat (default), upright, or an axis remap such as x,-z,y.")
}

extension ParsedArguments {
    /// `--mount`; flat when absent.
    func mount() throws(UsageError) -> Mount {
        guard let text = string(OptionSpec.mount.name) else { return .flat }
        do { return try Mount(parsing: text) } catch { throw UsageError("--mount: \(error)") }
    }

    /// `--unit` as an angle or slope unit; nil when absent.
    func angleUnit() throws(UsageError) -> AngleUnit? {
        guard let text = string("--unit") else { return nil }
        guard let unit = AngleUnit(parsing: text) else {
            throw UsageError("--unit takes deg, percent, mm_per_m or in_per_ft; got '\(text)'.")
        }
        return unit
    }
}
