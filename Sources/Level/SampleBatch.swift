import Geometry

/// About a tenth of a second of raw samples as the sampler drained them: the input of every
/// measurement (``LevelPipeline/add(_:)``), and of the vibration analysis.
///
/// Raw means device frame, in g, uncorrected: before any ``Calibration``, mount or zero reference.
///
/// **Copied once.** The sampler drains the chip into a buffer of its own and copies each batch's
/// samples out of it into ``samples``, a new array: the one copy a sample makes between the
/// driver's decode and the analysis. From there on the array is shared, copy-on-write: the batch
/// passes through the sampling stream to the agent and on to the pipeline and the vibration
/// analysis by reference, and only a write to ``samples`` would copy them (nothing writes to it;
/// re-stamping ``time`` leaves the array alone).
public struct SampleBatch: Hashable, Sendable {
    /// The samples, oldest first, in g, device frame, raw.
    public var samples: [Vector3]
    /// When the newest sample arrived, in monotonic seconds: the clock level dwell and a
    /// reading's age are measured on.
    public var time: Double
    /// The output data rate the samples were taken at, in Hz: what a filter on them is designed
    /// for.
    public var rateHz: Double
    /// Where samples were lost (the chip's buffer overran before a drain): the index of the first
    /// sample after the loss, which is not contiguous with the sample before it (at 0: with the
    /// previous batch's last). nil when none were lost. A level average does not mind; a spectrum
    /// does: a window across a loss joins two stretches of a wave out of phase, so the vibration
    /// analysis starts its window again there.
    public var gapIndex: Int?
    /// The chip's die temperature in °C as last read (about once a second, between drains);
    /// nil for a chip without a sensor. What the `chip` temperature source reads.
    public var dieCelsius: Double?

    public init(samples: [Vector3], time: Double, rateHz: Double, gapIndex: Int? = nil, dieCelsius: Double? = nil) {
        self.samples = samples
        self.time = time
        self.rateHz = rateHz
        self.gapIndex = gapIndex
        self.dieCelsius = dieCelsius
    }

    /// About how long a batch (and so a pipeline block) is, in seconds: short enough for a
    /// responsive moving average, long enough that a wake-up drains a useful batch.
    public static let seconds = 0.1

    /// Samples in one batch at `rateHz`: ``seconds`` of them, rounded, and at least one, so low
    /// rates make longer batches. The agent's sampling service and the accuracy benchmark both
    /// take batches of this size, and ``LevelPipeline`` windows are counted in them.
    public static func samplesPerBlock(rateHz: Double) -> Int {
        max(1, Int((rateHz * seconds).rounded()))
    }

    /// `count` samples whose mean is exactly `mean` and whose per-axis sample standard deviation
    /// is exactly `spread`: alternately above and below the mean by the same amount (and one at
    /// the mean when `count` is odd). For tests and tools that think in blocks, such as a block
    /// of a given noise; it has no vibration and no frequency content to speak of.
    public static func steady(_ mean: Vector3, spread: Vector3 = .zero, count: Int, time: Double,
                              rateHz: Double) -> SampleBatch {
        let count = max(1, count)
        let pairs = count / 2
        // n samples at ±d about the mean (one more at it for odd n) have Σ deviation² = 2·pairs·d²,
        // so a sample variance of spread² over n − 1 needs d = spread · √((n − 1) / (2·pairs)).
        let deviation = pairs == 0 ? Vector3.zero : spread.absolute * (Double(count - 1) / Double(2 * pairs)).squareRoot()
        var samples: [Vector3] = []
        samples.reserveCapacity(count)
        for index in 0..<(2 * pairs) {
            samples.append(index % 2 == 0 ? mean + deviation : mean - deviation)
        }
        if count % 2 == 1 { samples.append(mean) }
        return SampleBatch(samples: samples, time: time, rateHz: rateHz)
    }
}
