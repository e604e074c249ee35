/// One block of samples as the sampler delivers it (`Reading` in the Sampling module): the raw
/// material of every measurement.
///
/// Raw means uncorrected: device frame, before any ``Calibration``, mount or zero reference.
public struct SampleBlock: Hashable, Sendable {
    /// Mean gravity of the block's samples, in g, device frame, as the chip read it.
    public var gravity: Vector3
    /// Per-axis sample standard deviation of the block's samples, in g, raw: the noise the mean
    /// was taken through.
    public var spread: Vector3
    /// How many samples the block averages (at least 1 is assumed).
    public var samples: Int
    /// When the block was complete (its newest sample drained), in monotonic seconds: the clock
    /// level dwell and a reading's age are measured on.
    public var time: Double

    public init(gravity: Vector3, spread: Vector3 = .zero, samples: Int, time: Double) {
        self.gravity = gravity
        self.spread = spread
        self.samples = samples
        self.time = time
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
