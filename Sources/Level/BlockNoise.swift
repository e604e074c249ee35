import Geometry

/// How a chip's white noise shows in blocks of samples, per unit of its rms: what ``Stability``
/// scales its limits by and what the window's standard error is corrected by.
///
/// For raw samples the figures are the textbook ones: a sample carries the noise σ, a block mean
/// of n samples σ/√n, and block means are independent. After the ``LowpassFilter`` the samples
/// carry less (the filter keeps only the band below its cutoff), a block mean less again, and
/// neighbouring block means are correlated: the filter remembers a few tenths of a second, so a
/// noise excursion shows in two or three blocks. Judged by the raw figures, filtered blocks would
/// look far stiller than they are expected to (so stillness would miss movement), and the window's
/// standard error, taken as if its blocks were independent, would be too small.
public struct BlockNoise: Hashable, Sendable {
    /// The rms of one sample, per unit rms of white noise at the input: 1 raw, √Σh² filtered.
    public var sample: Double
    /// The rms of a block mean, per unit rms of white input: 1/√n raw.
    public var block: Double
    /// The rms scatter of the samples about their own block's mean, per unit rms of white input:
    /// √(n·(sample² − block²) / (n − 1)), which is 1 raw. What converts a block's spread into the
    /// noise at the input.
    public var withinBlock: Double
    /// The correlation of block means 1, 2, … blocks apart, for white input; empty when they are
    /// independent (raw), and ending where it has died away.
    public var correlations: [Double]
    /// Whether the samples were low-passed. Neighbours within a block then move together, so a
    /// block's spread shows mostly what moved (a step the filter is following spreads it far
    /// more than noise does) and is no guide to the noise; the scatter of the block means is.
    public var isFiltered: Bool

    public init(sample: Double, block: Double, withinBlock: Double, correlations: [Double] = [], isFiltered: Bool = false) {
        self.sample = sample
        self.block = block
        self.withinBlock = withinBlock
        self.correlations = correlations
        self.isFiltered = isFiltered
    }

    /// Raw samples in blocks of `samples`.
    public static func raw(samples: Int) -> BlockNoise {
        BlockNoise(sample: 1, block: 1 / Double(max(1, samples)).squareRoot(), withinBlock: 1)
    }

    /// Samples through `filter`, in blocks of `samples`, worked out from its impulse response h:
    /// a sample's variance is Σh², a block mean's Σv² with v = h convolved with the block's
    /// average (a box of n taps of 1/n), and block means l blocks apart correlate by
    /// Σ vⱼ·vⱼ₊ₗₙ / Σv². Exact for white input, up to the 10⁻¹² the response is cut off at.
    ///
    /// Costs about (response length)² / n multiplications, once per design: a few hundred
    /// thousand at 800 Hz. Not per sample.
    public static func lowpass(_ filter: LowpassFilter, samples: Int) -> BlockNoise {
        let n = max(1, samples)
        let h = filter.impulseResponse(count: filter.memory)
        let sampleVariance = h.reduce(0) { $0 + $1 * $1 }
        // v[j] = (1/n) Σ_{i<n} h[j − i]: a running sum over the last n taps.
        var v = [Double](repeating: 0, count: h.count + n - 1)
        var running = 0.0
        for j in v.indices {
            if j < h.count { running += h[j] }
            if j >= n { running -= h[j - n] }
            v[j] = running / Double(n)
        }
        func covariance(lag: Int) -> Double {
            guard lag < v.count else { return 0 }
            var sum = 0.0
            for j in 0..<(v.count - lag) { sum += v[j] * v[j + lag] }
            return sum
        }
        let blockVariance = covariance(lag: 0)
        var correlations: [Double] = []
        var lag = 1
        while lag * n < v.count {
            correlations.append(covariance(lag: lag * n) / blockVariance)
            lag += 1
        }
        // Trailing correlations below 10⁻⁶ change no figure: dropped.
        while let last = correlations.last, abs(last) < 1e-6 { correlations.removeLast() }
        let within = n > 1 ? (Double(n) * max(0, sampleVariance - blockVariance) / Double(n - 1)).squareRoot() : 0
        return BlockNoise(sample: sampleVariance.squareRoot(), block: blockVariance.squareRoot(), withinBlock: within,
                          correlations: correlations, isFiltered: true)
    }

    /// τ for a window of `blocks` block means: k·Var(mean of k) / Var(one), 1 for independent
    /// blocks, 1 + 2·Σₗ (1 − l/k)·ρₗ in general.
    func correlationTime(blocks: Int) -> Double {
        let k = Double(blocks)
        var tau = 1.0
        for (index, rho) in correlations.prefix(max(0, blocks - 1)).enumerated() {
            tau += 2 * (1 - Double(index + 1) / k) * rho
        }
        return min(k, max(1e-9, tau))
    }

    /// The standard error of the mean of `blocks` block means whose sample standard deviation is
    /// `scatter`, per axis.
    ///
    /// With correlation time τ (``correlationTime(blocks:)``) the sample variance s² of k block
    /// means estimates σ_b²·(k − τ)/(k − 1), and the mean's variance is σ_b²·τ/k, so the
    /// standard error is s·√(τ·(k − 1) / (k·(k − τ))): s/√k for independent blocks. Nil for fewer
    /// than two blocks, or a window so short against the filter's memory that its scatter says
    /// next to nothing (k − τ < 0.5): the caller falls back on the newest block's own figures.
    func standardError(scatter: Vector3, blocks: Int) -> Vector3? {
        guard blocks >= 2 else { return nil }
        let k = Double(blocks)
        let tau = correlationTime(blocks: blocks)
        guard k - tau >= 0.5 else { return nil }
        return scatter * (tau * (k - 1) / (k * (k - tau))).squareRoot()
    }
}
