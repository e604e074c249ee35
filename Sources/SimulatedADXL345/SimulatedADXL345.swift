import I2C

/// A register-level model of an ADXL345 on an I²C bus, for running the real driver without
/// hardware.
///
/// It is not a mock of the driver: the driver talks to it register by register exactly as to a
/// chip on `/dev/i2c-1`, and it answers as the datasheet says the chip does — reset values, a
/// read-only DEVID, auto-incrementing bursts, the ODR clock and its wake-up delay, the 32-level
/// FIFO in bypass, FIFO and stream modes, INT_SOURCE and FIFO_STATUS, the OFSx registers, the
/// self-test force, range, resolution and justification, datasheet noise. Time comes from an
/// injected ``SimulationClock``; samples are produced lazily, at each access, for the instants
/// that have passed.
///
/// Tests can read what the driver did (``writeLog``, ``statistics``), change what the chip senses
/// (``setScene(_:)``), shake it as a machine would (``setVibration(_:)``, ``MachineVibration``)
/// and break its connection (``setFault(_:)``).
///
/// Not modelled: tap, activity, inactivity and free-fall detection (their registers store values
/// and INT_SOURCE never shows them); sleep, auto-sleep and low power (stored, no effect on rate or
/// noise); trigger events (trigger mode runs as stream mode); the interrupt pins; the self-test's
/// bimodality. Temperature drift is modelled (``Configuration/offsetDrift``); the chip has no
/// temperature sensor.
///
/// Thread-safe: every call is one atomic transaction under one lock.
public final class SimulatedADXL345: SimulatedChip {
    /// Its name (`simulated ADXL345`), address, clock and state: ``SimulatedChip`` gives the rest.
    public let core: SimulatedChipCore<ChipState>

    /// A chip powered on now, in standby with every register at its reset value.
    ///
    /// - Parameters:
    ///   - configuration: the part and its surroundings; the default is an ideal, level chip.
    ///   - clock: its time base; ``ManualSimulationClock`` makes tests exact.
    public init(
        configuration: Configuration = Configuration(),
        clock: any SimulationClock = MonotonicSimulationClock()
    ) {
        core = SimulatedChipCore(name: "simulated ADXL345", configuration: configuration, clock: clock,
                                 state: ChipState.init)
    }

    // MARK: I2CBus

    /// Reads `count` consecutive registers from `register` in one transaction.
    ///
    /// Registers auto-increment; reserved ones read 0 (and are counted in
    /// ``SimulatorStatistics/reservedAccesses``); a read touching any of 0x32–0x37 pops one FIFO
    /// entry when it ends.
    ///
    /// - Throws: ``I2CError`` `.invalidRequest` for a count below 1 or above 8192;
    ///   `.noAcknowledge` (`EREMOTEIO`) for another address or while unplugged or NACKing;
    ///   `.busError` (`EIO`) under a bus fault.
    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try core.readRegisters(at: address, from: register, count: count,
                               operation: "read of register \(hexByte(register))")
    }

    /// Reads each run in order, up to ``maxRunsPerTransaction`` runs per transaction, each
    /// transaction counted once in ``SimulatorStatistics/transactions``.
    ///
    /// Within a transaction every run is what it is on the wire, a register-address write and a
    /// read, with the side effects of ``readRegisters(at:from:count:)``: each run touching the data
    /// registers pops one FIFO entry when it ends, so a later run sees the next entry and the
    /// lower FIFO_STATUS. The whole transaction happens at one instant of the clock: no sample
    /// falls due between its runs (on a real bus about 0.2 ms pass per six-byte run at 400 kHz).
    ///
    /// - Throws: ``I2CError`` as for ``readRegisters(at:from:count:)``; a failed transaction has
    ///   no effect, and the transactions before it keep theirs.
    public func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        try core.readRegisterRuns(at: address, runs) { group in
            "read of \(group.count) register runs from \(hexByte(group[group.startIndex].register))"
        }
    }

    /// Writes one register in one transaction.
    ///
    /// Acknowledged writes are appended to ``writeLog`` whatever the register; reserved and
    /// read-only registers ignore the value.
    ///
    /// - Throws: ``I2CError`` as for ``readRegisters(at:from:count:)``.
    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try core.writeRegister(at: address, register, value: value, operation: "write of register \(hexByte(register))")
    }

    // MARK: Test controls
    // The configuration, the scene changes, the die temperature, the fault, the vibration, the
    // write log and the counters come from ``SimulatedChip``.

    /// What the chip senses now.
    public var scene: SimulatedScene {
        core.withState { $0.configuration.scene }
    }

    /// Changes the die temperature from now on: samples already due keep the old one. The ADXL345
    /// has no temperature sensor Plumb reads, but its offset and sensitivity drift with it
    /// (``Configuration/offsetDrift``, ``Configuration/sensitivityDrift``).
    public func setTemperatureProfile(_ temperature: SimulatedTemperature) {
        core.withSynchronizedState { $0.configuration.temperature = temperature }
    }

    /// Zeroes every counter, for example after a benchmark's warm-up.
    public func resetStatistics() {
        core.withSynchronizedState { $0.statistics = SimulatorStatistics() }
    }
}

/// A simulated chip behind a bus that carries one register read per transaction, as an SMBus
/// adapter or the Pi 0–4's (one read message, last) does: ``I2CBus/readRegisterRuns(at:_:)`` is the
/// protocol's default, one transaction per run, so a driver takes its unbatched path. For
/// benchmarks and tests that compare it with batching.
public final class OneReadPerTransactionBus: I2CBus {
    /// The chip behind it.
    public let chip: SimulatedADXL345
    public var name: String { chip.name }
    /// `.smbusBlock`: what such a bus would be on Linux.
    public var transferMode: I2CTransferMode { .smbusBlock }

    public init(_ chip: SimulatedADXL345) {
        self.chip = chip
    }

    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try chip.readRegisters(at: address, from: register, count: count)
    }

    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try chip.writeRegister(at: address, register, value: value)
    }
}
