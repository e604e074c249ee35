#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Accelerometers
import Geometry
import I2C
import PlumbSync
import SimulatedADXL345

/// A register-level model of an ADXL355 on an I²C bus, for running the real driver without
/// hardware.
///
/// The driver talks to it register by register as to a chip on `/dev/i2c-1`, and it answers as
/// the datasheet says the chip does: read-only IDs, reset values (standby, ±2.048 g, 4000 Hz),
/// RESET's 0x52 code, the sample clock at FILTER's rate started and stopped by POWER_CTL, the
/// 96-entry FIFO with its x-axis marker and empty indicator, STATUS's FIFO_OVR (cleared on read),
/// 20-bit left-justified data, TEMP2/TEMP1 reading the die temperature (``SimulatedTemperature``,
/// which also drives the offset and sensitivity drift) with the sensor's noise, the ST1/ST2 self-test
/// force, and noise at the part's density over the bandwidth the rate sets. Time comes from an
/// injected ``SimulationClock`` (the ADXL345 simulator's), and so do scenes, poses and attitude
/// scripts (``SimulatedScene``), the machine vibration on top of the scene (``MachineVibration``),
/// the cubic nonlinearity (``CubicNonlinearity``) and the connection faults (``SimulatedFault``):
/// a fault fails transfers with the ``I2CError`` the ADXL345 simulator gives, and an unplug
/// brings the chip back power-cycled, as from power-on.
///
/// Not modelled: the high-pass filter, the offset registers' effect, activity detection,
/// interrupts and DRDY, external sync, the filter's delay and settling, the behaviour of a full
/// FIFO beyond dropping new sets (the datasheet was not checked on whether it keeps the oldest).
///
/// Thread-safe: every call is one atomic transaction under one lock.
public final class SimulatedADXL355: I2CBus, SceneControls {
    /// `simulated ADXL355`.
    public let name = "simulated ADXL355"
    public var transferMode: I2CTransferMode { .simulated }
    public let address: I2CAddress
    public let clock: any SimulationClock

    private let state: Locked<ChipModel>

    /// A chip powered on now, in standby with every register at its reset value.
    public init(configuration: Configuration = Configuration(), clock: any SimulationClock = MonotonicSimulationClock()) {
        address = configuration.address
        self.clock = clock
        state = Locked(ChipModel(configuration: configuration, time: clock.now()))
    }

    /// Counters, for tests and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Sample sets the clock produced.
        public var samplesProduced = 0
        /// Sets lost to a full FIFO.
        public var lost = 0
        /// Axis entries popped from the FIFO.
        public var entriesRead = 0
        /// FIFO_DATA reads that ended inside an entry, losing the rest of it.
        public var entriesCutShort = 0
        /// Bus transactions (each group of runs counts once).
        public var transactions = 0
        public var resets = 0
        /// Power cycles: unplug windows the chip came back from.
        public var powerCycles = 0
        /// Transactions that failed (wrong address, a fault), counted in ``transactions`` too.
        public var failedTransactions = 0
        /// Configuration registers written while measuring.
        public var configurationWritesWhileMeasuring = 0
        /// Writes to read-only or reserved registers.
        public var ignoredWrites = 0

        public init() {}
    }

    // MARK: I2CBus

    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try transaction(at: address, operation: "read of register \(register)") { (state) throws(I2CError) in
            guard count > 0, count <= 8192 else {
                throw I2CError(code: .invalidRequest, bus: name, address: address, errno: EINVAL, operation: "read of \(count) bytes")
            }
            return state.read(from: register, count: count)
        }
    }

    /// As many runs as one Linux `I2C_RDWR` carries, so a driver batches as against `/dev/i2c-N`;
    /// every run in a transaction happens at one instant of the clock.
    public var maxRunsPerTransaction: Int { LinuxI2CBus.maxRunsPerCombinedTransaction }

    public func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        var results: [[UInt8]] = []
        var next = runs.startIndex
        while next < runs.endIndex {
            let group = runs[next..<min(runs.endIndex, next + maxRunsPerTransaction)]
            results += try transaction(at: address, operation: "read of \(group.count) register runs") { (state) throws(I2CError) in
                if let bad = group.first(where: { $0.count <= 0 || $0.count > 8192 }) {
                    throw I2CError(code: .invalidRequest, bus: name, address: address, errno: EINVAL, operation: "read of \(bad.count) bytes")
                }
                return group.map { state.read(from: $0.register, count: $0.count) }
            }
            next += group.count
        }
        return results
    }

    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try transaction(at: address, operation: "write of register \(register)") { (state) throws(I2CError) in
            state.write(register, value: value)
        }
    }

    // MARK: Test controls

    /// The configuration in force, with the current scene and temperature.
    public var configuration: Configuration { state.withLock { $0.configuration } }

    // setScene, setPose and run come from ``SceneControls``.
    public func changeScene(_ change: (SimulatedScene, Double) -> SimulatedScene) {
        withSynchronizedState { $0.configuration.scene = change($0.configuration.scene, $0.now) }
    }

    /// Changes the die temperature from now on (``SceneControls/setTemperature(_:)`` holds one):
    /// samples already due keep the old one; the temperature registers read it from now.
    public func setTemperatureProfile(_ temperature: SimulatedTemperature) {
        withSynchronizedState { $0.configuration.temperature = temperature }
    }

    /// The true die temperature at clock time `time`, °C (the profile in force now); the
    /// temperature registers read it plus the sensor's noise.
    public func dieTemperature(at time: Double) -> Double {
        state.withLock { $0.configuration.dieTemperature(at: time) }
    }

    /// While true, the chip NACKs every transfer (`EREMOTEIO`), as when unplugged; its state is
    /// kept: ``SimulatedFault/noAcknowledge``, and false is ``SimulatedFault/none``. For an
    /// unplug that power-cycles the chip, ``setFault(_:)`` with ``SimulatedFault/unplugged(at:for:)``.
    public func setUnplugged(_ unplugged: Bool) {
        setFault(unplugged ? .noAcknowledge : .none)
    }

    /// The fault in force.
    public var fault: SimulatedFault { state.withLock { $0.configuration.fault } }

    /// Changes the fault from now on. A new ``SimulatedFault/unplugged(at:for:)`` power-cycles the
    /// chip once, when its window begins (at once if that time has passed);
    /// ``SimulatedFault/flapping(from:period:down:)`` once per window.
    public func setFault(_ fault: SimulatedFault) {
        withSynchronizedState { $0.setFault(fault) }
    }

    /// The machine vibration on top of the scene; nil for none.
    public var vibration: MachineVibration? { state.withLock { $0.configuration.vibration } }

    /// Changes the machine vibration from now on (nil stops it): samples already due keep the old
    /// one. Its phases and noise come from the configuration's seed.
    public func setVibration(_ vibration: MachineVibration?) {
        withSynchronizedState { $0.setVibration(vibration) }
    }

    /// Whether the chip is measuring (POWER_CTL's standby bit clear).
    public var isMeasuring: Bool { withSynchronizedState { $0.isMeasuring } }

    /// The raw value of `register` as last written or reset, without a read's side effects.
    public func peek(_ register: UInt8) -> UInt8 {
        state.withLock { $0.registers[Int(min(register, ADXL355Register.last))] }
    }

    /// Every acknowledged register write, oldest first.
    public var writeLog: [RegisterWrite] { state.withLock { $0.writeLog } }

    public func clearWriteLog() {
        state.withLock { $0.writeLog.removeAll() }
    }

    /// The counters, brought up to the clock's time first.
    public var statistics: Statistics { withSynchronizedState { $0.statistics } }

    // MARK: Internals

    private func withSynchronizedState<Result>(_ body: (inout ChipModel) -> Result) -> Result {
        state.withLock { state in
            state.synchronize(to: clock.now())
            return body(&state)
        }
    }

    private func transaction<Result>(
        at target: I2CAddress, operation: String, _ body: (inout ChipModel) throws(I2CError) -> Result
    ) throws(I2CError) -> Result {
        try state.withLock { (state) throws(I2CError) -> Result in
            try state.transaction(at: clock.now(), target: target, address: address, bus: name, operation: operation, body)
        }
    }
}
