import Accelerometers
import Calibrating
import Geometry
import Level
import Persistence
import Sampling
import Settings
import SimulatedADXL345

/// How the accuracy benchmark treats each chip; the defaults are what `make bench` runs.
public struct AccuracyOptions: Sendable {
    /// Seconds each attitude is read for: the pipeline's window for the accuracy rows (and the
    /// reversal's check on a level surface). Far longer than the agent's 1 s so that the rows
    /// show the calibration's error, not the noise of one reading (0.017° at 1σ for 1 s, which
    /// the repeatability row measures on its own): at 20 s the reading adds 0.004°.
    public var attitudeSeconds = 20.0
    /// Seconds of still readings the repeatability row takes its 1 s means from.
    public var repeatabilitySeconds = 300.0
    /// Seconds after the settling step that the reading must stay within the band.
    public var settlingHorizon = 3.0
    /// Steps per chip for the settling row, which reports their median.
    public var settlingSteps = 9
    /// The band the settling row waits for, in degrees.
    public var settlingBand = 0.05
    /// The surface the reversal is done on, in degrees of roll and pitch.
    public var reversalSurface = (roll: 0.3, pitch: -0.2)

    public init() {}
}

/// Everything the benchmark measures on one chip, each figure in degrees (settling in seconds).
public struct ChipFigures: Sendable {
    public var seed: UInt64
    /// The worst error over every attitude, read raw.
    public var uncalibrated = 0.0
    /// The worst error over every attitude, raw but zeroed flat at 0°.
    public var zeroOnly = 0.0
    /// The worst error at 0–10° after the tumble.
    public var sixPointTo10 = 0.0
    /// The worst error over every attitude after the tumble.
    public var sixPointTo45 = 0.0
    /// The zero error after a reversal alone: the worst of roll and pitch on a level surface.
    public var reversalZero = 0.0
    /// 1σ of consecutive 1 s means at the chip's rate, still: the worse of roll and pitch.
    public var repeatability = 0.0
    /// Seconds from a 1° step to the reading staying within the band.
    public var settling = 0.0
    /// The slowest of those steps: the noise's tail as much as the response.
    public var slowestSettling = 0.0
    /// The worst attitude after the tumble, for the report.
    public var worstAttitude: BenchAttitude?
    /// Simulated seconds the chip ran for.
    public var simulatedSeconds = 0.0

    public init(seed: UInt64) {
        self.seed = seed
    }
}

/// The accuracy benchmark on one chip: calibrate it the way `plumb calibrate` does, then read
/// it through the agent's ``LevelPipeline`` at known attitudes.
public struct ChipBenchmark {
    public let chip: BenchChip
    public let options: AccuracyOptions
    let seed: UInt64

    /// The agent's live settings at their defaults: 100 Hz, a 1 s window, flat mount.
    public static let agentSettings = LiveSettings()
    /// Samples per block at the chip's rate, as the agent's sampling service takes them (10 at
    /// 100 Hz).
    public var samplesPerBlock: Int { SampleBatch.samplesPerBlock(rateHz: chip.rateHz) }

    /// A random typical part of `model` (each simulator's `randomTypicalPart(seed:)`).
    public init(seed: UInt64, model: BenchChipModel = .adxl345, options: AccuracyOptions = AccuracyOptions()) {
        self.init(chip: BenchChip(model: model, seed: seed), seed: seed, options: options)
    }

    /// Any chip, such as an ideal one for a test.
    public init(chip: BenchChip, seed: UInt64 = 0, options: AccuracyOptions = AccuracyOptions()) {
        self.chip = chip
        self.seed = seed
        self.options = options
    }

    /// The agent's pipeline settings with `calibration`: its 1 s window, mount and stability.
    public static func agentPipeline(_ calibration: Calibration) -> PipelineSettings {
        agentSettings.pipelineSettings(calibration: calibration,
                                       chip: ADXL345.description.operatingPoint(rateHz: agentSettings.sampleRateHz))
    }

    /// The agent's pipeline with its window stretched to ``AccuracyOptions/attitudeSeconds``.
    func readingPipeline(_ calibration: Calibration) -> PipelineSettings {
        var settings = Self.agentPipeline(calibration)
        let blockSeconds = Double(samplesPerBlock) / chip.rateHz
        settings.windowBlocks = max(1, Int((options.attitudeSeconds / blockSeconds).rounded()))
        return settings
    }

    /// The error at each of `attitudes`, read with `calibration` and `zero`.
    public func errors(_ calibration: Calibration, zero: Vector3? = nil,
                       at attitudes: [BenchAttitude] = BenchAttitude.all) throws -> [(BenchAttitude, AttitudeError)] {
        let settings = readingPipeline(calibration)
        return try attitudes.map { attitude in
            let measurement = try chip.measure(attitude.pose, settings: settings, samplesPerBlock: samplesPerBlock,
                                               zero: zero)
            return (attitude, AttitudeError(measured: measurement.attitude, truth: attitude.truth))
        }
    }

    /// The zero `zero` stores, taken raw with the chip flat at 0°: the window's calibrated
    /// device-frame gravity, as ``LevelPipeline/zeroHere()`` keeps it.
    public func rawZero() throws -> Vector3 {
        try chip.measure(.level, settings: readingPipeline(.identity), samplesPerBlock: samplesPerBlock).deviceGravity
    }

    /// Every figure for this chip.
    public func run() throws -> ChipFigures {
        var figures = ChipFigures(seed: seed)
        let start = chip.clock.now()
        figures.uncalibrated = try errors(.identity).map(\.1.worst).max() ?? 0
        figures.zeroOnly = try errors(.identity, zero: try rawZero()).map(\.1.worst).max() ?? 0

        let tumble = try chip.calibrateSixPoint().calibration
        let calibrated = try errors(tumble)
        let worst = calibrated.max { $0.1.worst < $1.1.worst }
        figures.sixPointTo10 = calibrated.filter { $0.0.degrees <= 10 }.map(\.1.worst).max() ?? 0
        figures.sixPointTo45 = worst?.1.worst ?? 0
        figures.worstAttitude = worst?.0

        let surface = options.reversalSurface
        let reversal = try chip.calibrateReversal(surfaceRoll: Angle(degrees: surface.roll),
                                                  surfacePitch: Angle(degrees: surface.pitch)).calibration
        let level = try errors(reversal, at: [BenchAttitude(.roll, 0)])[0].1
        figures.reversalZero = max(level.roll, level.pitch)

        figures.repeatability = try repeatability(tumble)
        (figures.settling, figures.slowestSettling) = try settling(tumble)
        figures.simulatedSeconds = chip.clock.now() - start
        return figures
    }
}
