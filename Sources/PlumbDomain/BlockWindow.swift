/// How the window of block means becomes one gravity estimate: the pipeline's filter stage.
///
/// Only `mean` exists today. It is a stage of its own so that the later `filter` setting
/// (`median`, the median of the block means, robust to a knock; `lowpass`, a first-order filter
/// with no window edge) is a new case here and nothing else in the pipeline changes.
public enum GravityFilter: String, Hashable, Sendable, CaseIterable {
    /// The mean of the window's block means: a moving average.
    case mean

    /// The estimate and its per-axis standard error from `window`, in g, device frame
    /// (calibrated); nil while the window is empty.
    func estimate(of window: BlockWindow) -> (gravity: Vector3, standardError: Vector3)? {
        switch self {
        case .mean:
            guard let mean = window.means.mean, let last = window.last else { return nil }
            // With fewer than two blocks there is no spread of means to measure: the last
            // block's own standard error stands in (just started, or a one-block window).
            return (mean, window.means.standardError ?? last.spread / Double(max(1, last.samples)).squareRoot())
        }
    }
}

/// The last blocks, calibrated, with what the filter and the stillness judgement need of them.
///
/// Two ``MovingAverage``s over the same blocks: one of the block means (the filter's input and
/// their standard error), one of the within-block variances (the noise the means hide).
public struct BlockWindow: Hashable, Sendable {
    /// Means of the blocks, calibrated, device frame.
    private(set) var means: MovingAverage
    /// Per-axis variance of the samples within each block, calibrated.
    private var variances: MovingAverage
    /// The newest block's spread and size: they stand in while the window has one block.
    private(set) var last: Newest?

    struct Newest: Hashable, Sendable {
        var spread: Vector3
        var samples: Int
    }

    /// A window of `capacity` blocks (at least 1).
    public init(capacity: Int) {
        means = MovingAverage(capacity: capacity)
        variances = MovingAverage(capacity: capacity)
    }

    /// Blocks the window holds at most.
    public var capacity: Int { means.capacity }
    /// Blocks it holds now.
    public var count: Int { means.count }
    /// Whether it holds `capacity` blocks.
    public var isFull: Bool { count == capacity }

    /// Adds a calibrated block; one with a non-finite mean or spread is ignored, so the two
    /// averages always hold the same blocks.
    mutating func add(mean: Vector3, spread: Vector3, samples: Int) {
        guard mean.isFinite, spread.isFinite else { return }
        means.add(mean)
        variances.add(spread.squared)
        last = Newest(spread: spread, samples: max(1, samples))
    }

    /// The standard deviation of all the window's samples per axis, in g: the within-block
    /// scatter and the movement of the means between blocks, pooled exactly for blocks of equal
    /// size (the sampler's are). Nil while the window is empty.
    ///
    /// With k blocks of n samples, block variances sᵢ² and the variance of the block means s_b²,
    /// the variance of all kn samples is ((n − 1)·k·mean(sᵢ²) + n·(k − 1)·s_b²) / (kn − 1). For
    /// a still sensor both parts estimate the chip's noise; a tilt moving within the window
    /// raises the second, vibration the first.
    public var noise: Vector3? {
        guard let within = variances.mean, let last else { return nil }
        let k = Double(means.count)
        let n = Double(last.samples)
        guard k * n > 1 else { return last.spread }
        let between = (meanScatter ?? .zero).squared
        let pooled = (within * ((n - 1) * k) + between * (n * (k - 1))) / (k * n - 1)
        return pooled.squareRoot
    }

    /// The sample standard deviation of the block means per axis, in g; zero with one block.
    /// A still sensor's is its noise over √n for blocks of n samples; a tilt that moves raises it
    /// long before it shows in ``noise``, which the within-block scatter dominates.
    public var meanScatter: Vector3? {
        guard means.count > 0 else { return nil }
        return (means.standardError ?? .zero) * Double(means.count).squareRoot()
    }

    /// The rms scatter of the samples within the window's blocks, per axis, in g: the noise and
    /// any vibration, without the movement of the means between blocks. Nil while empty.
    public var withinBlockNoise: Vector3? { variances.mean?.squareRoot }

    /// Samples in the newest block; nil while empty.
    public var samplesPerBlock: Int? { last?.samples }

    /// Changes the capacity, keeping the newest blocks that fit.
    mutating func resize(capacity: Int) {
        means.resize(capacity: capacity)
        variances.resize(capacity: capacity)
    }

    /// Forgets every block.
    mutating func reset() {
        means.reset()
        variances.reset()
        last = nil
    }
}
