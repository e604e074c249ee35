import Geometry

/// A running mean and spread of gravity samples, per axis.
///
/// Uses Welford's update, which stays accurate when the spread is tiny next to the mean (a few
/// milli-g of noise on 1 g), where summing squares would cancel away the answer. Memory and
/// work per sample are constant, however many samples are added.
public struct GravityAverage: Hashable, Sendable {
    /// How many samples have been added since creation or the last ``reset()``.
    public private(set) var count = 0
    private var runningMean = Vector3.zero
    /// Per axis, the sum of squared deviations from the running mean.
    private var squaredDeviations = Vector3.zero

    /// An empty average.
    public init() {}

    /// An average of `samples`, as if each were passed to ``add(_:)``.
    public init(_ samples: some Sequence<Vector3>) {
        for sample in samples {
            add(sample)
        }
    }

    /// Adds one sample, in g.
    ///
    /// A sample with a NaN or infinite component is ignored, because it would poison the mean
    /// until the next reset. Returns whether the sample was used.
    @discardableResult
    public mutating func add(_ sample: Vector3) -> Bool {
        guard sample.isFinite else { return false }
        count += 1
        let delta = sample - runningMean
        runningMean += delta / Double(count)
        let deltaAfter = sample - runningMean
        squaredDeviations += Vector3(x: delta.x * deltaAfter.x, y: delta.y * deltaAfter.y, z: delta.z * deltaAfter.z)
        return true
    }

    /// The mean of the samples, in g; nil before the first sample.
    public var mean: Vector3? {
        count > 0 ? runningMean : nil
    }

    /// The sample standard deviation of each axis, in g (Bessel-corrected: divides by n − 1,
    /// an unbiased variance from a handful of samples). Nil with fewer than two samples, where
    /// there is no spread to estimate.
    public var standardDeviation: Vector3? {
        guard count > 1 else { return nil }
        let divisor = Double(count - 1)
        return Vector3(
            x: (squaredDeviations.x / divisor).squareRoot(),
            y: (squaredDeviations.y / divisor).squareRoot(),
            z: (squaredDeviations.z / divisor).squareRoot()
        )
    }

    /// The standard error of the mean per axis, in g: ``standardDeviation`` / √n, how far the
    /// mean is likely off from noise alone (not from bias or calibration). Nil with fewer than
    /// two samples.
    public var standardErrorOfMean: Vector3? {
        standardDeviation.map { $0 / Double(count).squareRoot() }
    }

    /// Forgets every sample.
    public mutating func reset() {
        self = GravityAverage()
    }
}
