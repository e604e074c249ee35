import Accelerometers
import I2C
import PlumbDomain
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050

/// The chips `--sim-chip` can simulate, each a register-level model its real driver runs on.
///
/// Every `--sim-*` flag applies to each, in the chip's own terms where the chips differ:
/// - `--sim-noise-lsb N` is noise in the chip's own LSB, as its datasheet specifies it: on the
///   ADXL345, X/Y LSB rms at ≤100 Hz (256 LSB/g; Z keeps the datasheet's ratio); on the ADXL355
///   and the MPU-6050, whose datasheets give a noise density, LSB/√Hz at the finest range
///   (256 000 and 16 384 LSB/g), so that the rms follows the filter bandwidth the driver sets;
/// - `--sim-offset-mg` is mg on all three, `--sim-gain-error`, `--sim-cross-axis` and
///   `--sim-nonlinearity` fractions of the reading or of the configured full scale;
/// - `--sim-fault stuck` stops the Z proof mass, so the driver's self-test fails on Z;
/// - `--sim-chip-seed` draws a part within that chip's datasheet's typical errors.
enum SimulatedChipKind: String, CaseIterable, Sendable {
    case adxl345, adxl355, mpu6050

    /// The chip's description, its one owner of facts (addresses, ranges, rates, noise).
    var chipDescription: ChipDescription {
        switch self {
        case .adxl345: ADXL345.description
        case .adxl355: ADXL355.description
        case .mpu6050: MPU6050.description
        }
    }
}

extension SimulationOptions {
    /// The description of the chip `--sim-chip` chose, whose driver reads the simulator.
    var chip: ChipDescription { kind.chipDescription }

    /// Builds the chip `--sim-chip` chose at `address` (its default is `chip.addresses[0]`), every
    /// `--sim-*` flag applied, sampling in real time on the monotonic clock: a script, a machine
    /// schedule and an unplug start now.
    func makeChip(address: I2CAddress) -> any I2CBus {
        makeChip(address: address, clock: MonotonicSimulationClock())
    }

    /// ``makeChip(address:)`` on `clock`, for tests that run the simulated time by hand.
    func makeChip(address: I2CAddress, clock: any SimulationClock) -> any I2CBus {
        let now = clock.now()
        switch kind {
        case .adxl345: return makeADXL345(address: address, clock: clock, now: now)
        case .adxl355: return makeADXL355(address: address, clock: clock, now: now)
        case .mpu6050: return makeMPU6050(address: address, clock: clock, now: now)
        }
    }

    /// The connection fault `--sim-fault` asks for, its times from `now`, and whether it is the
    /// stuck proof mass instead (a fault of the part, not of its wiring).
    private func faults(now: Double) -> (connection: SimulatedFault, stuck: Bool) {
        guard let fault, let parsed = try? Self.parseFault(fault) else { return (.none, false) }
        return switch parsed {
        case .stuck: (.none, true)
        case .connection(let fault): (fault, false)
        case .unplug(let after, let duration): (.unplugged(at: now + after, for: duration), false)
        case .flap(let period, let down): (.flapping(from: now, period: period, down: down), false)
        }
    }

    /// Applies the flags every chip takes in the same units to `configuration`, a part that
    /// `--sim-chip-seed` may have drawn, whose errors they replace; returns whether `--sim-fault
    /// stuck` asks for a stuck proof mass, which each chip models in its own terms.
    private func applyShared<Part: SimulatedPartConfiguration>(to configuration: inout Part, address: I2CAddress,
                                                               now: Double) -> Bool {
        configuration.address = address
        configuration.scene = scene(now: now)
        configuration.vibration = machineVibration(now: now)
        if let gainError { configuration.gain = gainError }
        if let nonlinearity { configuration.nonlinearity = nonlinearity }
        switch crossAxis {
        case .matrix(let matrix): configuration.crossAxis = matrix
        case .random(let bound):
            // Drawn from --sim-seed, else --sim-chip-seed, else the part's seed, as the ADXL345
            // has always drawn them.
            configuration.crossAxis = SimulatedADXL345.Configuration.randomCrossAxis(
                bound: bound, seed: seed ?? chipSeed ?? configuration.seed)
        case nil: break
        }
        if let seed { configuration.seed = seed }
        let faults = faults(now: now)
        configuration.fault = faults.connection
        return faults.stuck
    }

    private func makeADXL345(address: I2CAddress, clock: any SimulationClock, now: Double) -> SimulatedADXL345 {
        var configuration = chipSeed.map { SimulatedADXL345.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedADXL345.Configuration()
        let stuck = applyShared(to: &configuration, address: address, now: now)
        if let noiseLSB { configuration.noiseXY = noiseLSB }
        if let offsetMilligravities { configuration.offset = offsetMilligravities }
        if stuck { configuration.selfTestResponse = Vector3(x: 250, y: -250, z: 0) }
        return SimulatedADXL345(configuration: configuration, clock: clock)
    }

    private func makeADXL355(address: I2CAddress, clock: any SimulationClock, now: Double) -> SimulatedADXL355 {
        var configuration = chipSeed.map { SimulatedADXL355.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedADXL355.Configuration()
        let stuck = applyShared(to: &configuration, address: address, now: now)
        if let noiseLSB {
            let density = noiseLSB / ADXL355Range.g2.countsPerG
            configuration.noiseDensity = Vector3(x: density, y: density, z: density)
        }
        // The ADXL355 simulator keeps its offset in g.
        if let offsetMilligravities { configuration.offset = offsetMilligravities / 1000 }
        if stuck { configuration.selfTestResponse.z = 0 }
        return SimulatedADXL355(configuration: configuration, clock: clock)
    }

    private func makeMPU6050(address: I2CAddress, clock: any SimulationClock, now: Double) -> SimulatedMPU6050 {
        var configuration = chipSeed.map { SimulatedMPU6050.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedMPU6050.Configuration()
        let stuck = applyShared(to: &configuration, address: address, now: now)
        if let noiseLSB { configuration.noiseDensity = noiseLSB / MPU6050Range.g2.countsPerG }
        if let offsetMilligravities { configuration.offset = offsetMilligravities }
        // −1: no response at all on Z, whatever its factory trim says it should be.
        if stuck { configuration.selfTestError.z = -1 }
        return SimulatedMPU6050(configuration: configuration, clock: clock)
    }
}
