import Accelerometers
import I2C
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
public final class SimulatedMPU6050: SimulatedChip {
    /// Its name (`simulated MPU-6050`, or the variant's), address, clock and state:
    /// ``SimulatedChip`` gives the rest.
    public let core: SimulatedChipCore<MPU6050ChipState>

    /// A part powered on now, every register at its reset value.
    public init(configuration: Configuration = Configuration(), clock: any SimulationClock = MonotonicSimulationClock()) {
        core = SimulatedChipCore(name: "simulated \(configuration.variant)", configuration: configuration, clock: clock,
                                 state: MPU6050ChipState.init)
    }

    // MARK: I2CBus
    // The register writes come from ``SimulatedChip``; register runs are ``I2CBus``'s default, one
    // transaction each, though ``maxRunsPerTransaction`` offers as many as one Linux `I2C_RDWR`
    // carries.

    /// Reads `count` registers from `register`, auto-incrementing except on FIFO_R_W.
    ///
    /// - Throws: ``I2CError`` `.invalidRequest` for a count outside 1…8192; `.noAcknowledge`
    ///   (`EREMOTEIO`) for another address or while unplugged or NACKing; `.busError` (`EIO`)
    ///   under a bus fault.
    public func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try core.readRegisters(at: address, from: register, count: count, operation: "read of register \(register)")
    }

    // MARK: Test controls
    // The configuration, the scene changes, the die temperature, the fault, the vibration, the
    // write log and the counters come from ``SimulatedChip``.

    /// A register's stored value (not a read: nothing pops or clears), for tests.
    public func storedRegister(_ register: UInt8) -> UInt8 {
        core.withSynchronizedState { $0.registers[Int(register & 0x7F)] }
    }

    /// Whether PWR_MGMT_1 SLEEP is set.
    public var isAsleep: Bool { core.withSynchronizedState { !$0.isAwake } }

    /// The sample rate the registers set, Hz.
    public var sampleRateHz: Double { core.withSynchronizedState { $0.rateHz } }

    /// The accelerometer filter's bandwidth the registers set, Hz.
    public var bandwidthHz: Double { core.withSynchronizedState { $0.bandwidthHz } }

    /// Bytes in the FIFO now.
    public var fifoByteCount: Int { core.withSynchronizedState { $0.fifo.count } }

    /// What the simulated part has done.
    public struct Statistics: SimulatedChipStatistics, Hashable {
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
}
