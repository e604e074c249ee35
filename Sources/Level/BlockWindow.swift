import Geometry

/// How the samples become one gravity estimate: the pipeline's filter stage, the `filter` setting.
///
/// The raw values are the setting's: `mean`, `median`, `lowpass`.
public enum GravityFilter: String, Hashable, Sendable, CaseIterable {
    /// The mean of the window's block means, a moving average of the raw samples: the default,
    /// and the most precise for a still machine. Vibration is averaged over the window's
    /// samples, which cancels it only where the window happens to hold whole cycles of it: at
    /// frequencies near a multiple of the sample rate, or off the window's nulls, what remains
    /// moves the reading.
    case mean
    /// The per-axis median of the window's block means, robust to shocks: a knock moves one
    /// block, not the answer. The window's stillness and standard error are summed up robustly
    /// too (median absolute deviation, median of the block spreads), so one knocked block does
    /// not end a hold either. For machines that are still but get knocked; vibration it treats
    /// like `mean`.
    case median
    /// A 4th-order Butterworth low-pass at ``LowpassFilter/defaultCutoffHz`` on the raw sample
    /// stream, before the samples are averaged into blocks, then the window's mean: vibration
    /// faster than a few hertz is removed before anything is decimated, so it cannot alias into
    /// the reading. For running machinery. A step shows within a few blocks and settles in the
    /// filter's own settling time, under a second: the window restarts on it and follows the
    /// filter until it has settled.
    case lowpass
}

/// The last blocks, calibrated, with what the filter and the stillness judgement need of them.
///
/// Two ``MovingAverage``s over the same blocks: one of the block means (the estimate's input and
/// their scatter), one of the within-block variances (the noise the means hide). How they are
/// summed up depends on the filter: means and standard deviations, or under `median` medians and
/// median absolute deviations. Each block's ``BlockNoise`` says what still noise looks like in
/// it, raw or low-passed.
public struct BlockWindow: Hashable, Sendable {
    /// The filter the window's blocks were measured for.
    public let filter: GravityFilter
    /// Means of the blocks, calibrated, device frame.
    private(set) var means: MovingAverage
    /// Per-axis variance of the samples within each block, calibrated.
    private var variances: MovingAverage
    /// The newest block's spread, size and noise figures: they stand in while the window has one
    /// block, and describe every block (the sampler's blocks are all alike).
    private(set) var last: Newest?

    struct Newest: Hashable, Sendable {
        var spread: Vector3
        var samples: Int
        var noise: BlockNoise
    }

    /// A window of `capacity` blocks (at least 1) for `filter`.
    public init(capacity: Int, filter: GravityFilter = .mean) {
        self.filter = filter
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
    mutating func add(mean: Vector3, spread: Vector3, samples: Int, noise: BlockNoise) {
        guard mean.isFinite, spread.isFinite else { return }
        means.add(mean)
        variances.add(spread.squared)
        last = Newest(spread: spread, samples: max(1, samples), noise: noise)
    }

    /// The window's gravity, calibrated, device frame: the mean of its block means, or their
    /// per-axis median under `median`. Nil while empty.
    public var center: Vector3? {
        filter == .median ? Self.median(means.values) : means.mean
    }

    /// How far ``center`` is likely off from noise alone, per axis, in g.
    ///
    /// From the scatter of the block means: s/√k for k independent blocks, corrected for the
    /// correlation of low-passed blocks (``BlockNoise/standardError(scatter:blocks:)``), and
    /// √(π/2) times that for the median, whose efficiency on normal noise is 2/π. With one block
    /// (or too few against the filter's memory), the newest block's own figure stands in: its
    /// spread taken back to the input noise and forward to a block mean.
    public var standardError: Vector3? {
        guard let last else { return nil }
        if let scatter = meanScatter, let error = last.noise.standardError(scatter: scatter, blocks: count) {
            return filter == .median ? error * (Double.pi / 2).squareRoot() : error
        }
        guard last.noise.withinBlock > 0 else { return .zero }
        return last.spread * (last.noise.block / last.noise.withinBlock)
    }

    /// The standard deviation of all the window's samples per axis, in g: the within-block
    /// scatter and the movement of the means between blocks, pooled exactly for blocks of equal
    /// size (the sampler's are). Nil while the window is empty.
    ///
    /// With k blocks of n samples, block variances sᵢ² and the variance of the block means s_b²,
    /// the variance of all kn samples is ((n − 1)·k·mean(sᵢ²) + n·(k − 1)·s_b²) / (kn − 1). For
    /// a still sensor both parts estimate the chip's noise; a tilt moving within the window
    /// raises the second, vibration the first. Under `median` both parts are their robust
    /// counterparts; under `lowpass` they are of the filtered samples, so vibration the filter
    /// removed does not show here (the vibration analysis reports it).
    public var noise: Vector3? {
        guard let within = withinBlockVariance, let last else { return nil }
        let k = Double(means.count)
        let n = Double(last.samples)
        guard k * n > 1 else { return last.spread }
        let between = (meanScatter ?? .zero).squared
        let pooled = (within * ((n - 1) * k) + between * (n * (k - 1))) / (k * n - 1)
        return pooled.squareRoot
    }

    /// The scatter of the block means per axis, in g: their sample standard deviation, or under
    /// `median` 1.4826 × their median absolute deviation (the same figure for normal noise, and
    /// one knocked block barely moves it); zero with one block. A still sensor's is its noise
    /// times ``BlockNoise/block``; a tilt that moves raises it long before it shows in ``noise``,
    /// which the within-block scatter dominates.
    public var meanScatter: Vector3? {
        guard means.count > 0 else { return nil }
        if filter == .median { return robustMeanScatter }
        return (means.standardError ?? .zero) * Double(means.count).squareRoot()
    }

    /// 1.4826 × the median absolute deviation of the block means from their median, per axis, in
    /// g, whatever the filter: their scatter as the bulk of the blocks shows it, which one or two
    /// outlying blocks barely move. Zero with one block; nil while empty.
    public var robustMeanScatter: Vector3? {
        guard let middle = Self.median(means.values) else { return nil }
        guard means.count > 1 else { return .zero }
        return (Self.median(means.values.map { ($0 - middle).absolute }) ?? .zero) * Self.madToSigma
    }

    /// The rms scatter of the samples within the window's blocks, per axis, in g: the noise and
    /// any vibration (as the filter passes it), without the movement of the means between blocks.
    /// Nil while empty.
    public var withinBlockNoise: Vector3? { withinBlockVariance?.squareRoot }

    /// Samples in the newest block; nil while empty.
    public var samplesPerBlock: Int? { last?.samples }

    /// What still noise looks like in the window's blocks; nil while empty.
    public var blockNoise: BlockNoise? { last?.noise }

    /// The mean within-block variance, or under `median` the median one, scaled to estimate the
    /// same: the median of a variance of n samples falls short of its mean by (1 − 2/(9ν))³,
    /// ν = n − 1 (Wilson–Hilferty), 0.93 for blocks of 10.
    private var withinBlockVariance: Vector3? {
        guard filter == .median else { return variances.mean }
        guard let median = Self.median(variances.values), let n = last?.samples, n > 1 else { return variances.mean }
        let nu = Double(n - 1)
        let shortfall = 1 - 2 / (9 * nu)
        return median / (shortfall * shortfall * shortfall)
    }

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

    /// The median absolute deviation of normal noise is 0.6745 σ: this makes it σ.
    static let madToSigma = 1.482_602_218_505_602

    /// The per-axis median of `values`: the middle one, or the mean of the two middle ones for an
    /// even count; nil when empty. Sorts a copy per axis: a block's worth of work, not a sample's.
    static func median(_ values: [Vector3]) -> Vector3? {
        guard !values.isEmpty else { return nil }
        func middle(_ axis: (Vector3) -> Double) -> Double {
            let sorted = values.map(axis).sorted()
            let half = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
        }
        return Vector3(x: middle(\.x), y: middle(\.y), z: middle(\.z))
    }
}
