import Accelerometers
import I2C
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
public final class SimulatedADXL355: SimulatedChip {
    /// Its name (`simulated ADXL355`), address, clock and state: ``SimulatedChip`` gives the rest.
    public let core: SimulatedChipCore<ChipModel>

    /// A chip powered on now, in standby with every register at its reset value.
    public init(configuration: Configuration = Configuration(), clock: any SimulationClock = MonotonicSimulationClock()) {
        core = SimulatedChipCore(name: "simulated ADXL355", configuration: configuration, clock: clock, state: ChipModel.init)
    }

    /// Counters, for tests and benchmarks.
    public struct Statistics: SimulatedChipStatistics, Hashable {
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
    // The register reads and writes come from ``SimulatedChip``.

    /// Reads each run in order, as many per transaction as one Linux `I2C_RDWR` carries, so a
    /// driver batches as against `/dev/i2c-N`; every run in a transaction happens at one instant
    /// of the clock.
    public func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        try core.readRegisterRuns(at: address, runs) { "read of \($0.count) register runs" }
    }

    // MARK: Test controls
    // The configuration, the scene changes, the die temperature, the fault, the vibration, the
    // write log and the counters come from ``SimulatedChip``.

    /// While true, the chip NACKs every transfer (`EREMOTEIO`), as when unplugged; its state is
    /// kept: ``SimulatedFault/noAcknowledge``, and false is ``SimulatedFault/none``. For an
    /// unplug that power-cycles the chip, ``setFault(_:)`` with ``SimulatedFault/unplugged(at:for:)``.
    public func setUnplugged(_ unplugged: Bool) {
        setFault(unplugged ? .noAcknowledge : .none)
    }

    /// Whether the chip is measuring (POWER_CTL's standby bit clear).
    public var isMeasuring: Bool { core.withSynchronizedState { $0.isMeasuring } }

    /// The raw value of `register` as last written or reset, without a read's side effects.
    public func peek(_ register: UInt8) -> UInt8 {
        core.withState { $0.registers[Int(min(register, ADXL355Register.last))] }
    }
}
