import Geometry

/// The statistics of one batch of samples: their mean, spread and count, the block stage of the
/// ``LevelPipeline``, which it works out from each ``SampleBatch`` in one pass over the samples.
///
/// Of the raw samples under the `mean` and `median` filters, of the low-passed ones under
/// `lowpass` (``GravityFilter``); either way device frame, before the ``Calibration``.
public struct SampleBlock: Hashable, Sendable {
    /// Mean gravity of the block's samples, in g, device frame.
    public var gravity: Vector3
    /// Per-axis sample standard deviation of the block's samples, in g: the noise (and any
    /// vibration) the mean was taken through.
    public var spread: Vector3
    /// How many samples the block averages (at least 1 is assumed).
    public var samples: Int
    /// When the block was complete (its newest sample arrived), in monotonic seconds.
    public var time: Double

    public init(gravity: Vector3, spread: Vector3 = .zero, samples: Int, time: Double) {
        self.gravity = gravity
        self.spread = spread
        self.samples = samples
        self.time = time
    }

    /// The block of the samples `average` holds, complete at `time`; nil while it holds none.
    public init?(_ average: GravityAverage, time: Double) {
        guard let mean = average.mean else { return nil }
        self.init(gravity: mean, spread: average.standardDeviation ?? .zero, samples: average.count, time: time)
    }

    /// The block of `batch`'s raw samples, in one pass; nil when none is finite (non-finite
    /// samples are skipped, as ``GravityAverage`` skips them).
    public init?(_ batch: SampleBatch) {
        self.init(GravityAverage(batch.samples), time: batch.time)
    }
}

extension Calibration {
    /// A per-axis spread carried through the correction: `|M| · spread`, with `|M|` the matrix of
    /// the absolute values of `M`'s elements (the offset moves the samples, not their scatter).
    ///
    /// An upper bound, not the exact figure: the exact spread of `M · raw` needs the raw axes'
    /// covariances, which a block does not keep. For a healthy sensor `M` is within a few percent
    /// of the identity, so the bound is within a few percent of the truth, and it never reports a
    /// reading as more precise than it is.
    public func spread(_ spread: Vector3) -> Vector3 {
        Matrix3(rows: matrix.row0.absolute, matrix.row1.absolute, matrix.row2.absolute) * spread.absolute
    }
}

extension Vector3 {
    /// Each component's absolute value.
    var absolute: Vector3 { Vector3(x: abs(x), y: abs(y), z: abs(z)) }

    /// Each component squared.
    var squared: Vector3 { Vector3(x: x * x, y: y * y, z: z * z) }

    /// Each component's square root.
    var squareRoot: Vector3 { Vector3(x: x.squareRoot(), y: y.squareRoot(), z: z.squareRoot()) }
}
