#if canImport(Glibc)
import Glibc
#endif
import Accelerometers
import Geometry
import I2C
import PlumbSync
import SimulatedADXL345

/// A register-level model of an MPU-6050, MPU-6500 or MPU-9250 (the accelerometer, the
/// temperature sensor, the FIFO) on an I²C bus, for running the real driver without hardware.
///
/// The driver talks to it register by register as to a chip on `/dev/i2c-1`, and it answers as
/// the register maps say: reset values (asleep after power-on on the MPU-6050), DEVICE_RESET,
/// WHO_AM_I (settable, to play a clone), SMPLRT_DIV and DLPF_CFG setting the sample clock
/// (1 kHz / (1 + div) with the DLPF on, 8 kHz / (1 + div) with it off), AFS_SEL, the self-test
/// force with factory codes in SELF_TEST_x, big-endian data registers, TEMP_OUT, and the FIFO:
/// ACCEL_FIFO_EN and USER_CTRL FIFO_EN, FIFO_RESET, FIFO_COUNT, FIFO_R_W popping a byte per read
/// without auto-increment, 1024 or 512 bytes, overwriting the oldest bytes when full (or dropping
/// writes with the MPU-6500's FIFO_MODE), and INT_STATUS FIFO_OFLOW when FIFO_OFLOW_EN is set.
/// Noise is white at the part's density over the accelerometer filter's bandwidth, from a seeded
/// generator addressed by sample number (``SeededNormals``); the scene, its poses and
/// attitude scripts and the clock are the ADXL345 simulator's (``SimulatedScene``,
/// ``SimulationClock``), and so are the machine vibration on top of the scene
/// (``MachineVibration``), the cubic nonlinearity (``CubicNonlinearity``) and the connection
/// faults (``SimulatedFault``): a fault fails transfers with the ``I2CError`` the ADXL345
/// simulator gives, and an unplug brings the part back power-cycled, as from power-on. The die
/// temperature (``SimulatedTemperature``) drives the offset and sensitivity drift and TEMP_OUT,
/// converted with each sample, with the sensor's noise.
///
/// Not modelled: the gyroscope (its registers store values), the DMP, the interrupt pin, the
/// accelerometer's start-up time and low-power cycling, the filter's group delay and the
/// correlation it puts between samples, the die's own warming.
///
/// Thread-safe: every call is one atomic transaction under one lock.
public final class SimulatedMPU6050: I2CBus, SceneControls {
    /// `simulated MPU-6050` (or the variant's name).
    public let name: String
    public var transferMode: I2CTransferMode { .simulated }
    /// As many runs as one Linux `I2C_RDWR` carries, as the ADXL345 simulator offers.
    public var maxRunsPerTransaction: Int { LinuxI2CBus.maxRunsPerCombinedTransaction }
    /// The address the chip acknowledges.
    public let address: I2CAddress
    public let clock: any SimulationClock

    private let state: Locked<MPU6050ChipState>

    /// A part powered on now, every register at its reset value.
    public init(configuration: Configuration = Configuration(), clock: any SimulationClock = MonotonicSimulationClock()) {
        name = "simulated \(configuration.variant)"
        address = configuration.address
        self.clock = clock
        state = Locked(MPU6050ChipState(configuration: configuration, time: clock.now()))
    }

    // MARK: I2CBus

    /// Reads `count` registers from `register`, auto-incrementing except on FIFO_R_W.
    ///
    /// - Throws: ``I2CError`` `.invalidRequest` for a count outside 1…8192; `.noAcknowledge`
    ///   (`EREMOTEIO`) for another address or while unplugged or NACKing; `.busError` (`EIO`)
    ///   under a bus fault.
    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try transaction(at: address, operation: "read of register \(register)") { (state) throws(I2CError) in
            guard count > 0, count <= 8192 else {
                throw I2CError(code: .invalidRequest, bus: name, address: address, errno: EINVAL,
                               operation: "read of \(count) bytes")
            }
            return state.read(from: register, count: count)
        }
    }

    /// Writes one register; every acknowledged write is appended to ``writeLog``.
    public func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try transaction(at: address, operation: "write of register \(register)") { (state) throws(I2CError) in
            state.write(register, value: value)
        }
    }

    // MARK: Test controls

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

    /// The fault in force.
    public var fault: SimulatedFault { state.withLock { $0.configuration.fault } }

    /// Changes the fault from now on. A new ``SimulatedFault/unplugged(at:for:)`` power-cycles the
    /// part once, when its window begins (at once if that time has passed);
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

    /// A register's stored value (not a read: nothing pops or clears), for tests.
    public func storedRegister(_ register: UInt8) -> UInt8 {
        withSynchronizedState { $0.registers[Int(register & 0x7F)] }
    }

    /// Whether PWR_MGMT_1 SLEEP is set.
    public var isAsleep: Bool { withSynchronizedState { !$0.isAwake } }

    /// The sample rate the registers set, Hz.
    public var sampleRateHz: Double { withSynchronizedState { $0.rateHz } }

    /// The accelerometer filter's bandwidth the registers set, Hz.
    public var bandwidthHz: Double { withSynchronizedState { $0.bandwidthHz } }

    /// Bytes in the FIFO now.
    public var fifoByteCount: Int { withSynchronizedState { $0.fifo.count } }

    /// Every acknowledged register write, oldest first.
    public var writeLog: [RegisterWrite] { state.withLock { $0.writeLog } }

    public func clearWriteLog() {
        state.withLock { $0.writeLog.removeAll() }
    }

    /// The counters, brought up to the clock's time first.
    public var statistics: Statistics { withSynchronizedState { $0.statistics } }

    /// What the simulated part has done.
    public struct Statistics: Sendable, Hashable {
        public var transactions = 0
        /// Samples converted while awake, including those never computed after a long gap.
        public var samplesProduced = 0
        /// FIFO bytes overwritten, or dropped, because the FIFO was full.
        public var bytesLost = 0
        /// FIFO bytes read through FIFO_R_W.
        public var fifoBytesRead = 0
        /// Reads of FIFO_R_W with the FIFO empty (they read 0): a driver reading past the count.
        public var emptyFIFOReads = 0
        public var fifoResets = 0
        public var deviceResets = 0
        /// Power cycles: unplug windows the part came back from.
        public var powerCycles = 0
        /// Transactions that failed (wrong address, a fault), counted in ``transactions`` too.
        public var failedTransactions = 0
    }

    // MARK: Internals

    private func withSynchronizedState<Result>(_ body: (inout MPU6050ChipState) -> Result) -> Result {
        state.withLock { state in
            state.synchronize(to: clock.now())
            return body(&state)
        }
    }

    private func transaction<Result>(
        at target: I2CAddress, operation: String, _ body: (inout MPU6050ChipState) throws(I2CError) -> Result
    ) throws(I2CError) -> Result {
        try state.withLock { (state) throws(I2CError) -> Result in
            try state.transaction(at: clock.now(), target: target, address: address, bus: name, operation: operation, body)
        }
    }
}
