import Geometry
import Level

/// Raw samples cut into blocks of a tenth of a second and judged for stillness by a
/// ``LevelPipeline``, the one every other reading goes through, so "still" in calibration is the
/// agent's `stable` (``Stability``).
///
/// The pipeline reads raw: identity calibration, flat mount, no zero, since calibrating must see
/// the chip's own errors; its device gravity is then the chip's raw gravity. The one judgement
/// of both calibration drivers: ``CalibrationSession`` pulls samples from a chip and hands them
/// here, ``SixPointTumble`` is handed them by the agent. Pure: time comes with the samples.
struct StillnessJudge: Hashable, Sendable {
    /// How long a block lasts, in seconds: a step is seen within a tenth of a second and the
    /// window restarts on it.
    static let blockSeconds = 0.1
    /// Blocks in the pipeline's window: 1 s, so the sensor is judged still a second after it last
    /// moved (the window must fill again after a step).
    static let windowBlocks = 10

    /// The rate the samples are taken at and the chip's noise there.
    let chip: OperatingPoint
    /// The rate the samples are taken at, in Hz.
    var rateHz: Double { chip.rateHz }
    /// Samples per block: a tenth of a second's, at least one.
    let samplesPerBlock: Int
    private var pipeline: LevelPipeline
    /// The samples of the block being filled.
    private var batch: [Vector3] = []

    init(chip: OperatingPoint) {
        self.chip = chip
        samplesPerBlock = max(1, Int((chip.rateHz * Self.blockSeconds).rounded()))
        pipeline = LevelPipeline(settings: Self.settings(chip: chip))
    }

    /// Raw, flat, no level judgement worth asking (calibration asks only for stillness), and the
    /// chip's noise at its rate for ``Stability``.
    static func settings(chip: OperatingPoint) -> PipelineSettings {
        PipelineSettings(calibration: .identity, windowBlocks: windowBlocks, mount: .flat,
                         thresholds: .instant(tolerance: .zero), stability: chip.stability)
    }

    /// Adds one raw sample, in g, to the block being filled; returns the pipeline's measurement
    /// when it completes the block (stamped `time`, seconds), nil otherwise. A non-finite sample
    /// is ignored.
    mutating func add(_ sample: Vector3, at time: Double) -> Measurement? {
        guard sample.isFinite else { return nil }
        if batch.isEmpty { batch.reserveCapacity(samplesPerBlock) }
        batch.append(sample)
        guard batch.count >= samplesPerBlock else { return nil }
        // Handed over, not copied: the next block starts a new array.
        let full = SampleBatch(samples: batch, time: time, rateHz: rateHz)
        batch = []
        return pipeline.add(full)
    }

    /// Forgets the stillness judged so far and the part-filled block: only what comes next counts.
    mutating func reset() {
        batch.removeAll(keepingCapacity: true)
        pipeline.reset()
    }
}
