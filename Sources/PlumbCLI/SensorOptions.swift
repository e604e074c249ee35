import Accelerometers
import Contract
import Control
import I2C
import PlumbDomain
import Sampling

/// Where samples come from: `--bus PATH` (real hardware, the default `/dev/i2c-1`) or
/// `--sensor sim` with its `--sim-*` scene and error flags.
struct SensorOptions {
    enum Source {
        case hardware(path: String)
        case simulated(SimulationOptions)
    }

    var source: Source
    var address: I2CAddress
    /// `--direct`: read the chip, never the agent.
    var direct: Bool
    /// `--socket`: where the agent answers.
    var socketPath: String
    /// Which of `--bus`, `--address` and `--socket` were given: an agent is asked about the chip
    /// they name only (any chip when none is named), and `--socket` asks it even with `--sensor sim`.
    var busGiven = false
    var addressGiven = false
    var socketGiven = false

    static let defaultBus = "/dev/i2c-1"

    static let specs: [OptionSpec] = [
        .value("--bus", "PATH", "I²C bus device (default \(defaultBus))."),
        .value("--sensor", "KIND", "adxl345 (default, on --bus) or sim (the simulated ADXL345)."),
        .value("--address", "ADDR", "Chip address: 0x53 (SDO low, default) or 0x1D (SDO high)."),
    ] + routeSpecs + SimulationOptions.specs

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let name = try parsed.choice("--sensor", from: SensorKind.namesAndAliases)
        let kind = name.flatMap(SensorKind.init(nameOrAlias:)) ?? .adxl345
        if let text = parsed.string("--address") {
            guard let address = I2CAddress(parsing: text) else {
                throw UsageError("--address takes a 7-bit address such as 0x53 or 0x1D; got '\(text)'.")
            }
            self.address = address
        } else {
            address = ADXL345.defaultAddress
        }
        direct = parsed.has("--direct")
        socketPath = parsed.string("--socket") ?? ControlProtocol.defaultSocketPath
        busGiven = parsed.string("--bus") != nil
        addressGiven = parsed.string("--address") != nil
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

    /// Opens the bus (or builds the simulated chip) and the ADXL345 driver on it, holding the
    /// chip lock (``claimChip()``) until the command exits.
    ///
    /// - Throws: ``CommandFailure``: another Plumb process owns the chip, or the bus failed.
    func open() throws(CommandFailure) -> ADXL345 {
        switch source {
        case .hardware(let path):
            try claimChip()
            do {
                let bus = try LinuxI2CBus(path: path)
                return ADXL345(bus: bus, address: address)
            } catch {
                throw CommandFailure(error.description)
            }
        case .simulated(let simulation):
            let bus = simulation.makeChip(address: ADXL345.defaultAddress)
            return ADXL345(bus: bus, address: address)
        }
    }
}

extension SensorOptions {
    /// One second of raw samples from `chip` (from ``open()``): 100 samples at 100 Hz, ±16 g,
    /// full resolution, as one batch; the chip is put back in standby whatever happens.
    ///
    /// - Throws: ``CommandFailure`` when the chip can't be read.
    func oneSecondBatch(from chip: ADXL345) throws(CommandFailure) -> SampleBatch {
        let sampler = Sampler(chip: chip)
        defer { try? chip.stop() }
        do {
            try sampler.start(SamplingRequest(rateHz: Self.oneSecondRateHz, rangeG: 16))
            return try sampler.nextBatch(samples: Int(Self.oneSecondRateHz))
        } catch {
            throw CommandFailure(error.description)
        }
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
