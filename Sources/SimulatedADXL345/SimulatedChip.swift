#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import I2C
import PlumbSync

/// A register-level simulated chip on an I²C bus, as far as every simulator is alike, written
/// once: each simulator owns a ``SimulatedChipCore`` (its name, address, clock and state behind
/// one lock) and gets from here what it does like the others: the ``I2CBus`` name, transfer mode
/// and transfers, the ``SceneControls`` changes, and the configuration, fault, vibration, write
/// log and counters in force.
///
/// A simulator declares a member again only where it differs from the one here: how its bus
/// errors name registers (the ADXL345 simulator's in hex), or a doc comment that says what its
/// chip does differently. Register runs are not here: each simulator says how it carries them
/// (``SimulatedChipCore/readRegisterRuns(at:_:operation:)`` batches them as Linux does).
///
/// Thread-safe: every member is one atomic transaction under the core's one lock.
public protocol SimulatedChip: I2CBus, SceneControls {
    /// The chip's own state under the lock: its registers, FIFO and sample clock.
    associatedtype State: SimulatedChipState
    /// The chip's name, address, clock and state behind its lock, for the members below; nothing
    /// in it is public.
    var core: SimulatedChipCore<State> { get }
}

extension SimulatedChip {
    /// `simulated <chip>`: the bus name the chip's errors give.
    public var name: String { core.name }
    /// Always `.simulated`.
    public var transferMode: I2CTransferMode { .simulated }
    /// The address the chip acknowledges.
    public var address: I2CAddress { core.address }
    /// The clock the chip runs on.
    public var clock: any SimulationClock { core.clock }
    /// As many runs as one Linux `I2C_RDWR` carries (42 messages, two per run), so that drivers
    /// batch against the simulation exactly as against `/dev/i2c-N`.
    public var maxRunsPerTransaction: Int { core.maxRunsPerTransaction }

    /// Reads `count` consecutive registers from `register` in one transaction, with the chip's
    /// side effects (auto-increment, FIFO pops) as its state gives them.
    ///
    /// - Throws: ``I2CError`` `.invalidRequest` for a count outside 1…8192; `.noAcknowledge`
    ///   (`EREMOTEIO`) for another address or while unplugged or NACKing; `.busError` (`EIO`)
    ///   under a bus fault.
    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try core.readRegisters(at: address, from: register, count: count, operation: "read of register \(register)")
    }

    /// Writes one register in one transaction; every acknowledged write is appended to
    /// ``writeLog``.
    ///
    /// - Throws: ``I2CError`` as for ``readRegisters(at:from:count:)``.
    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try core.writeRegister(at: address, register, value: value, operation: "write of register \(register)")
    }

    /// The configuration in force: the one given at init, with the current scene, temperature,
    /// vibration and fault.
    public var configuration: State.Part {
        core.withState { $0.configuration }
    }

    /// Replaces the scene under the lock, from the clock's current time: samples already due
    /// keep the old scene, so a change is a clean step (``SceneControls``, which gives
    /// `setScene`, `setPose` and `run` on it).
    public func changeScene(_ change: (SimulatedScene, Double) -> SimulatedScene) {
        core.withSynchronizedState { $0.configuration.scene = change($0.configuration.scene, $0.now) }
    }

    /// Changes the die temperature from now on (``SceneControls/setTemperature(_:)`` holds one):
    /// samples already due keep the old one; the temperature registers, where the chip has them,
    /// read it from now.
    public func setTemperatureProfile(_ temperature: SimulatedTemperature) {
        core.withSynchronizedState { $0.configuration.temperature = temperature }
    }

    /// The true die temperature at clock time `time`, °C (the profile in force now): what the
    /// drift follows, and what the temperature registers, where the chip has them, read plus the
    /// sensor's noise.
    public func dieTemperature(at time: Double) -> Double {
        core.withState { $0.configuration.dieTemperature(at: time) }
    }

    /// The fault in force.
    public var fault: SimulatedFault {
        core.withState { $0.configuration.fault }
    }

    /// Changes the fault from now on. A new ``SimulatedFault/unplugged(at:for:)`` power-cycles the
    /// chip once, when its window begins (at once if that time has passed);
    /// ``SimulatedFault/flapping(from:period:down:)`` once per window.
    public func setFault(_ fault: SimulatedFault) {
        core.withSynchronizedState { $0.setFault(fault) }
    }

    /// The machine vibration on top of the scene; nil for none.
    public var vibration: MachineVibration? {
        core.withState { $0.configuration.vibration }
    }

    /// Changes the machine vibration from now on (nil stops it): samples already due keep the old
    /// one. Its phases and noise come from the configuration's seed, so setting the same vibration
    /// again repeats the same tones. A ``MachineSchedule`` keeps its own ``MachineSchedule/start``.
    public func setVibration(_ vibration: MachineVibration?) {
        core.withSynchronizedState { $0.setVibration(vibration) }
    }

    /// Every acknowledged register write, oldest first, so a test can assert a driver's exact
    /// initialisation sequence.
    public var writeLog: [RegisterWrite] {
        core.withState { $0.writeLog }
    }

    /// Empties ``writeLog``.
    public func clearWriteLog() {
        core.withState { $0.writeLog.removeAll() }
    }

    /// The counters, brought up to the clock's current time first.
    public var statistics: State.Statistics {
        core.withSynchronizedState { $0.statistics }
    }
}

/// What a ``SimulatedChip`` owns: its name, the address it acknowledges, its clock, and its state
/// behind one lock, with the bus transfers on that state. Public only as the type of
/// ``SimulatedChip/core``; its members are the package's.
///
/// The clock is read before the lock is taken, never under it (``SimulationClock/now()`` may call
/// into C); the chip's time is the latest reading it has seen, so it never runs backwards when
/// two transactions' readings reach the lock out of order.
public final class SimulatedChipCore<State: SimulatedChipState>: Sendable {
    /// The most bytes one read may ask for.
    private static var maxReadCount: Int { 8192 }

    package let name: String
    package let address: I2CAddress
    package let clock: any SimulationClock
    private let state: Locked<State>

    /// A chip named `name`, answering at `configuration`'s address, powered on now: its state is
    /// `makeState` of the configuration and the clock's current reading.
    package init(
        name: String, configuration: State.Part, clock: any SimulationClock,
        state makeState: (_ configuration: State.Part, _ time: Double) -> State
    ) {
        self.name = name
        address = configuration.address
        self.clock = clock
        state = Locked(makeState(configuration, clock.now()))
    }

    /// As many runs as one Linux `I2C_RDWR` carries.
    package var maxRunsPerTransaction: Int { LinuxI2CBus.maxRunsPerCombinedTransaction }

    /// Runs `body` on the state as it is, under the lock.
    package func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    /// Runs `body` on the state under the lock, once the chip is brought up to the clock's current
    /// reading.
    package func withSynchronizedState<Result>(_ body: (inout State) -> Result) -> Result {
        let time = clock.now()
        return state.withLock { state in
            state.synchronize(to: time)
            return body(&state)
        }
    }

    /// One read of `count` registers from `register` as one transaction to `target`; its errors
    /// name it `operation`.
    ///
    /// - Throws: ``I2CError`` `.invalidRequest` for a count outside 1…8192, else as
    ///   ``SimulatedChipState/transaction(at:target:address:bus:operation:_:)``.
    package func readRegisters(
        at target: I2CAddress, from register: UInt8, count: Int, operation: String
    ) throws(I2CError) -> [UInt8] {
        try transaction(at: target, operation: operation) { (state) throws(I2CError) in
            try checkReadCount(count, at: target)
            return state.read(from: register, count: count)
        }
    }

    /// Reads each run in order, ``maxRunsPerTransaction`` runs per transaction, each transaction
    /// counted once and happening at one instant of the clock; `operation` names a transaction's
    /// runs in its errors.
    ///
    /// - Throws: ``I2CError`` as for ``readRegisters(at:from:count:operation:)``, for a count
    ///   outside 1…8192 in any run of a transaction; a failed transaction has no effect, and the
    ///   transactions before it keep theirs.
    package func readRegisterRuns(
        at target: I2CAddress, _ runs: [RegisterRun], operation: (ArraySlice<RegisterRun>) -> String
    ) throws(I2CError) -> [[UInt8]] {
        var results: [[UInt8]] = []
        results.reserveCapacity(runs.count)
        var next = runs.startIndex
        while next < runs.endIndex {
            let group = runs[next..<min(runs.endIndex, next + maxRunsPerTransaction)]
            results += try transaction(at: target, operation: operation(group)) { (state) throws(I2CError) in
                for run in group { try checkReadCount(run.count, at: target) }
                return group.map { state.read(from: $0.register, count: $0.count) }
            }
            next += group.count
        }
        return results
    }

    /// One write of `value` to `register` as one transaction to `target`; its errors name it
    /// `operation`.
    ///
    /// - Throws: ``I2CError`` as ``SimulatedChipState/transaction(at:target:address:bus:operation:_:)``.
    package func writeRegister(
        at target: I2CAddress, _ register: UInt8, value: UInt8, operation: String
    ) throws(I2CError) {
        try transaction(at: target, operation: operation) { (state) throws(I2CError) in
            state.write(register, value: value)
        }
    }

    /// One bus transaction: catch the chip up to now, count it, fail it as the wiring would,
    /// else run `body`.
    private func transaction<Result>(
        at target: I2CAddress, operation: String, _ body: (inout State) throws(I2CError) -> Result
    ) throws(I2CError) -> Result {
        let time = clock.now()
        return try state.withLock { (state) throws(I2CError) -> Result in
            try state.transaction(at: time, target: target, address: address, bus: name, operation: operation, body)
        }
    }

    private func checkReadCount(_ count: Int, at target: I2CAddress) throws(I2CError) {
        guard count > 0, count <= Self.maxReadCount else {
            throw I2CError(code: .invalidRequest, bus: name, address: target, errno: EINVAL,
                           operation: "read of \(count) bytes")
        }
    }
}
