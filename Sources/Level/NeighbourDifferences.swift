import Geometry

/// How much consecutive low-passed block means differ, per axis, over the last
/// ``capacity`` blocks: the pipeline's memory of the disturbance the ``LowpassFilter`` lets
/// through (a slow rocking below its cutoff), which a restart of the window does not forget.
///
/// ``Stability`` needs it under `lowpass`: there a block's own spread is no guide to the noise,
/// and a window the step test has just restarted holds too few blocks to show any scatter, so
/// without a memory each block that an in-band disturbance moves would restart the window again,
/// for ever. Taken robustly (the median of the absolute differences), so a step's few large
/// differences barely move it.
public struct NeighbourDifferences: Hashable, Sendable {
    /// Differences remembered: two seconds of 0.1 s blocks.
    public static let capacity = 20
    /// Differences needed before they say anything.
    static let minimumCount = 5

    private var differences = MovingAverage(capacity: NeighbourDifferences.capacity)
    private var previous: Vector3?

    public init() {}

    /// Records `mean`, a calibrated block mean, against the one before it.
    mutating func add(_ mean: Vector3) {
        guard mean.isFinite else { return }
        if let previous { differences.add((mean - previous).absolute) }
        previous = mean
    }

    /// Forgets every block: after a fault, a new filter or a new rate.
    mutating func reset() {
        self = NeighbourDifferences()
    }

    /// The standard error of one block mean the differences imply, per axis, in g: for noise
    /// whose neighbouring block means correlate by `correlation`, a difference has standard
    /// deviation √(2·(1 − ρ₁)) times a block mean's, and its median absolute value is 0.6745 of
    /// that. Nil with fewer than ``minimumCount`` differences.
    func blockError(correlation: Double) -> Vector3? {
        guard differences.count >= Self.minimumCount, let median = BlockWindow.median(differences.values) else {
            return nil
        }
        return median * (BlockWindow.madToSigma / (2 * max(1e-9, 1 - correlation)).squareRoot())
    }
}
