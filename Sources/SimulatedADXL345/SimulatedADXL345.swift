#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import I2C
import PlumbSync

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
public final class SimulatedADXL345: I2CBus, SceneControls {
    /// `simulated ADXL345`.
    public let name = "simulated ADXL345"
    /// Always `.simulated`.
    public var transferMode: I2CTransferMode { .simulated }
    /// The address the chip acknowledges.
    public let address: I2CAddress
    /// The clock the chip runs on.
    public let clock: any SimulationClock

    private let state: Locked<ChipState>

    /// A chip powered on now, in standby with every register at its reset value.
    ///
    /// - Parameters:
    ///   - configuration: the part and its surroundings; the default is an ideal, level chip.
    ///   - clock: its time base; ``ManualSimulationClock`` makes tests exact.
    public init(
        configuration: Configuration = Configuration(),
        clock: any SimulationClock = MonotonicSimulationClock()
    ) {
        address = configuration.address
        self.clock = clock
        state = Locked(ChipState(configuration: configuration, time: clock.now()))
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
        let operation = "read of register \(hexByte(register))"
        return try transaction(at: address, operation: operation) { (state) throws(I2CError) in
            guard count > 0, count <= 8192 else {
                throw I2CError(code: .invalidRequest, bus: name, address: address, errno: EINVAL,
                               operation: "read of \(count) bytes")
            }
            return state.read(from: register, count: count)
        }
    }

    /// As many runs as one Linux `I2C_RDWR` carries (42 messages, two per run), so that drivers
    /// batch against the simulation exactly as against `/dev/i2c-N`.
    public var maxRunsPerTransaction: Int { LinuxI2CBus.maxRunsPerCombinedTransaction }

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
        var results: [[UInt8]] = []
        results.reserveCapacity(runs.count)
        var next = runs.startIndex
        while next < runs.endIndex {
            let group = runs[next..<min(runs.endIndex, next + maxRunsPerTransaction)]
            let operation = "read of \(group.count) register runs from \(hexByte(group[group.startIndex].register))"
            results += try transaction(at: address, operation: operation) { (state) throws(I2CError) in
                if let bad = group.first(where: { $0.count <= 0 || $0.count > 8192 }) {
                    throw I2CError(code: .invalidRequest, bus: name, address: address, errno: EINVAL,
                                   operation: "read of \(bad.count) bytes")
                }
                return group.map { state.read(from: $0.register, count: $0.count) }
            }
            next += group.count
        }
        return results
    }

    /// Writes one register in one transaction.
    ///
    /// Acknowledged writes are appended to ``writeLog`` whatever the register; reserved and
    /// read-only registers ignore the value.
    ///
    /// - Throws: ``I2CError`` as for ``readRegisters(at:from:count:)``.
    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        let operation = "write of register \(hexByte(register))"
        try transaction(at: address, operation: operation) { (state) throws(I2CError) in
            state.write(register, value: value)
        }
    }

    // MARK: Test controls

    /// The configuration in force: the one given at init, with the current scene, vibration and
    /// fault.
    public var configuration: Configuration {
        state.withLock { $0.configuration }
    }

    /// What the chip senses now.
    public var scene: SimulatedScene {
        state.withLock { $0.configuration.scene }
    }

    /// Replaces the scene under the lock, from the clock's current time: samples already due
    /// keep the old scene, so a change is a clean step (``SceneControls``, which gives
    /// `setScene`, `setPose` and `run` on it).
    public func changeScene(_ change: (SimulatedScene, Double) -> SimulatedScene) {
        withSynchronizedState { $0.configuration.scene = change($0.configuration.scene, $0.now) }
    }

    /// Changes the die temperature from now on: samples already due keep the old one. The ADXL345
    /// has no temperature sensor Plumb reads, but its offset and sensitivity drift with it
    /// (``Configuration/offsetDrift``, ``Configuration/sensitivityDrift``).
    public func setTemperatureProfile(_ temperature: SimulatedTemperature) {
        withSynchronizedState { $0.configuration.temperature = temperature }
    }

    /// The true die temperature at clock time `time`, °C (the profile in force now).
    public func dieTemperature(at time: Double) -> Double {
        state.withLock { $0.configuration.dieTemperature(at: time) }
    }

    /// The machine vibration on top of the scene; nil for none.
    public var vibration: MachineVibration? {
        state.withLock { $0.configuration.vibration }
    }

    /// Changes the machine vibration from now on (nil stops it): samples already due keep the old
    /// one. Its phases and noise come from the configuration's seed, so setting the same vibration
    /// again repeats the same tones. A ``MachineSchedule`` keeps its own ``MachineSchedule/start``.
    public func setVibration(_ vibration: MachineVibration?) {
        withSynchronizedState { $0.setVibration(vibration) }
    }

    /// The fault in force.
    public var fault: Fault {
        state.withLock { $0.configuration.fault }
    }

    /// Changes the fault from now on. A new ``Fault/unplugged(at:for:)`` power-cycles the chip
    /// once, when its window begins (at once if that time has passed); ``Fault/flapping(from:period:down:)``
    /// once per window.
    public func setFault(_ fault: Fault) {
        withSynchronizedState { $0.setFault(fault) }
    }

    /// Every acknowledged register write, oldest first, so a test can assert a driver's exact
    /// initialisation sequence.
    public var writeLog: [RegisterWrite] {
        state.withLock { $0.writeLog }
    }

    /// Empties ``writeLog``.
    public func clearWriteLog() {
        state.withLock { $0.writeLog.removeAll() }
    }

    /// The counters, brought up to the clock's current time first.
    public var statistics: SimulatorStatistics {
        withSynchronizedState { $0.statistics }
    }

    /// Zeroes every counter, for example after a benchmark's warm-up.
    public func resetStatistics() {
        withSynchronizedState { $0.statistics = SimulatorStatistics() }
    }

    // MARK: Internals

    private func withSynchronizedState<Result>(_ body: (inout ChipState) -> Result) -> Result {
        state.withLock { state in
            state.synchronize(to: clock.now())
            return body(&state)
        }
    }

    /// One bus transaction: catch the chip up to now, count it, fail it as the wiring would,
    /// else run `body`.
    private func transaction<Result>(
        at target: I2CAddress, operation: String, _ body: (inout ChipState) throws(I2CError) -> Result
    ) throws(I2CError) -> Result {
        try state.withLock { (state) throws(I2CError) -> Result in
            try state.transaction(at: clock.now(), target: target, address: address, bus: name, operation: operation, body)
        }
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
