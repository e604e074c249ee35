#if canImport(Glibc)
import Glibc
#endif
import Accelerometers
import Calibrating
import Geometry
import Level
import Persistence
import Sampling
import Settings
import SimulatedADXL345
import Thermal

/// How the temperature benchmark treats each part; the defaults are what `make bench` runs.
///
/// Everything is in simulated time, decimated: a reading (``readingSeconds`` of the agent's 1 s
/// readings, through the real driver and sampler) every few simulated minutes, the clock jumping
/// between them with the chip in standby but for the temperature tracker's lead
/// (``trackerLeadSeconds``). Drift follows temperature over minutes, so readings minutes apart see
/// every temperature the ramp and the cycle pass through.
public struct TemperatureOptions: Sendable {
    /// The bench calibration's two tumbles, °C: 15 and 30 °C.
    public var benchCelsius = [15.0, 30.0]
    /// The one tumble of a user who calibrates once on the bench, °C: the uncompensated contrast
    /// (no drift model), and where the second in-place learning starts from.
    public var singleCelsius = 22.0
    /// The ramp, °C, over ``rampSeconds``, a reading every ``rampSpacingSeconds``.
    public var rampFromCelsius = 0.0
    public var rampToCelsius = 40.0
    /// 5 °C an hour: a workshop warming through a day, slow against the tracker's 30 s smoothing.
    public var rampSeconds = 8 * 3600.0
    public var rampSpacingSeconds = 600.0
    /// The day's cycle, 22 ± 8 °C, a reading every ``cycleSpacingSeconds``: the first cycle
    /// learns in place, the second is measured.
    public var cycleMeanCelsius = 22.0
    public var cycleAmplitudeCelsius = 8.0
    public var cyclePeriodSeconds = 86_400.0
    public var cycleSpacingSeconds = 300.0
    /// Seconds read at each point: consecutive, non-overlapping 1 s readings of the agent's
    /// window. Coverage counts each 1 s reading; the error rows take their mean, so they show
    /// the compensation's error rather than one reading's noise (the accuracy section's rows read
    /// 20 s means for the same reason), and a row shows the worst single 1 s reading too.
    public var readingSeconds = 10.0
    /// Seconds before each reading that the temperature tracker is fed the source's values across
    /// the clock's jump: five of its 30 s time constants, after which what it was fed before
    /// weighs e⁻⁵ (0.7 %), so its lag is the agent's, which reads the source continuously.
    public var trackerLeadSeconds = 150.0
    /// Seconds between die readings over that lead, the chip measuring (its FIFO unread): a die
    /// sensor converts only while the chip measures (the MPU-6050's TEMP_OUT holds its last value
    /// asleep), and each read after a gap costs the simulator up to a FIFO's worth of samples, so
    /// the lead reads every 10 s where the sampler reads every second. The tracker's lag on a
    /// slow ramp is its time constant × the slope whatever the cadence; its noise grows from
    /// about σ/8 to σ/2.5 of the die sensor's (0.04 °C on the MPU-6050: 0.02 mg, nothing).
    public var leadReadIntervalSeconds = 10.0
    /// Seconds a new temperature profile runs before its first reading, so no reading sees the
    /// tracker catching up with the step between profiles (never a real workshop's).
    public var settleSeconds = 600.0
    /// The ADXL345's thermometer (it has no sensor): `mqtt:` as a typical room sensor publishes,
    /// every 30 s, the true temperature with 0.1 °C rms noise, quantised to 0.1 °C.
    public var thermometerIntervalSeconds = 30.0
    public var thermometerNoiseCelsius = 0.1
    public var thermometerStepCelsius = 0.1
    /// The attitudes the measured readings cycle through, degrees of roll and pitch: 0–10° of
    /// tilt, both axes, both signs.
    public var tilts: [(roll: Double, pitch: Double)] = [(0, 0), (1, -0.5), (3, 0), (0, -5), (-7, 0), (0, 10), (10, 0),
                                                         (5, -6)]
    /// The machine's attitude while the drift is learned in place: roughly level, never moved.
    public var learningPose = (roll: 1.0, pitch: -0.5)

    public init() {}

    /// A shortened run for a test: a two-hour cycle, a one-hour ramp, a few short readings.
    public static var quick: TemperatureOptions {
        var options = TemperatureOptions()
        options.cyclePeriodSeconds = 2 * 3600
        options.cycleSpacingSeconds = 600
        options.rampSeconds = 3600
        options.rampSpacingSeconds = 900
        options.readingSeconds = 2
        options.tilts = [(0, 0), (0, 10), (-7, 0), (5, -6)]
        return options
    }
}

/// The calibrations the temperature benchmark compares, each read through the agent's pipeline
/// with ``ThermalCompensation/init(record:chip:rangeG:operatingPoint:)``, as the agent builds it.
public enum TemperatureCompensation: String, CaseIterable, Sendable, Hashable {
    /// One six-point tumble at 22 °C, no drift model: what temperature does uncorrected.
    case uncompensated
    /// Tumbles at 15 and 30 °C merged (``CalibrationRecord/merging(_:)``): the bench drift model.
    case bench
    /// The bench calibration, then `learn_drift` over the first 24 h cycle.
    case learnedFromBench
    /// The single 22 °C tumble, then `learn_drift` over the first 24 h cycle: calibrate once on
    /// the bench, learn the rest in place.
    case learnedFromSingle

    /// Its name in the tables.
    public var label: String {
        switch self {
        case .uncompensated: "one tumble at 22 °C, no drift model"
        case .bench: "bench: tumbles at 15 and 30 °C"
        case .learnedFromBench: "bench, then learned in place (24 h)"
        case .learnedFromSingle: "22 °C tumble, then learned in place (24 h)"
        }
    }
}

/// Where a reading was made.
public enum TemperatureRun: String, CaseIterable, Sendable, Hashable {
    /// The 0 → 40 °C ramp.
    case ramp
    /// The second 24 h cycle of 22 ± 8 °C (the first is for learning).
    case cycle
}

/// One 1 s reading as the agent would publish it: its true error and its published bound.
public struct CoverageSample: Hashable, Sendable {
    /// The angle between the measured and the true level-frame gravity, degrees.
    public var error: Double
    /// ``UncertaintyBudget/bound``, degrees.
    public var bound: Double
    /// The term that dominated the budget.
    public var dominant: UncertaintyTerm
}

/// Everything the temperature benchmark measures on one part.
public struct TemperaturePartFigures: Sendable {
    /// A compensation on a run.
    public struct Key: Hashable, Sendable {
        public var compensation: TemperatureCompensation
        public var run: TemperatureRun

        public init(_ compensation: TemperatureCompensation, _ run: TemperatureRun) {
            self.compensation = compensation
            self.run = run
        }
    }

    public var seed: UInt64
    /// The worst error of a reading's mean (``TemperatureOptions/readingSeconds``), degrees.
    public var worst: [Key: Double] = [:]
    /// The worst single 1 s reading, degrees: the compensation's error and the reading's noise.
    public var worstOneSecond: [Key: Double] = [:]
    /// Every 1 s reading, per compensation and run.
    public var readings: [Key: [CoverageSample]] = [:]
    /// The tumbles' temperatures as recorded (15, 30, 22 °C as Plumb knew them).
    public var tumbleCelsius: [Double] = []
    /// The bench drift model the two tumbles gave.
    public var benchDrift: DriftModel?
    /// The models learned in place, and why a learning failed.
    public var learned: [TemperatureCompensation: DriftModel] = [:]
    public var learningFailures: [TemperatureCompensation: String] = [:]
    /// Simulated seconds the part ran for.
    public var simulatedSeconds = 0.0

    public init(seed: UInt64) {
        self.seed = seed
    }
}

/// Why the temperature benchmark could not run a part.
public struct TemperatureBenchmarkError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
