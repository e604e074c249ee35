import Geometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The ``LevelPipeline``'s first stage: a batch's samples become one block, in one pass over them.
///
/// Under `mean` and `median` the block is the raw samples' mean and spread. Under `lowpass` each
/// sample goes through the ``LowpassFilter`` in the same pass, and the block is the filtered
/// samples' mean and spread.
///
/// Per sample: a Welford update, and under `lowpass` two biquads and a second Welford update, on
/// three doubles each; nothing is allocated. The filter's noise figures are worked out once per
/// design and block size.
struct BlockStage: Hashable, Sendable {
    /// The low-pass, designed for the rate of the batches; nil under the other filters, or before
    /// the first batch (and at a rate too low for the cutoff, where blocks stay raw).
    private var lowpass: LowpassFilter?
    /// Whether the low-pass holds a state to continue from; false at first and after ``restart()``.
    private var seeded = false
    /// The low-pass's figures for blocks of `figureSamples`.
    private var lowpassFigures: Figures?
    private var figureSamples = 0

    /// What a design does to blocks of a size: its noise figures and its settling in blocks.
    private struct Figures: Hashable, Sendable {
        var noise: BlockNoise
        var restarts: Int
    }

    /// One batch's block, with what the pipeline needs beside it.
    struct Output {
        /// The block the window takes: raw, or filtered under `lowpass`.
        var block: SampleBlock
        /// What still noise looks like in it.
        var noise: BlockNoise
        /// Blocks after a step that may start the window afresh too (``LevelPipeline``): under
        /// `mean` the one after it (the step's block may straddle it), under `median` none (a
        /// step is confirmed by the block after the straddler), under `lowpass` at most the
        /// filter's settling within ``settlingBand`` (``LowpassFilter/settlingTime(band:)``),
        /// while it is still following the step.
        var restartsAfterStep: Int
        /// Whether the low-pass started with this batch: its first blocks carry the transient of
        /// the vibration switched on in it, which the pipeline follows as it does a step.
        var seeded = false
    }

    /// The block of `batch` under `filter`; nil when none of its samples is finite.
    ///
    /// A low-pass that is not seeded yet (the first batch, after a ``restart()``, or at a new
    /// rate) starts from the batch itself (``seed(from:)``), one extra pass then: from zero the
    /// first seconds would read a step from 0 g, and from the first sample alone they would
    /// carry that sample's share of the vibration (up to its whole amplitude) for a second.
    mutating func block(of batch: SampleBatch, filter: GravityFilter) -> Output? {
        guard filter == .lowpass else {
            guard let block = SampleBlock(batch) else { return nil }
            return Output(block: block, noise: .raw(samples: block.samples), restartsAfterStep: filter == .median ? 0 : 1)
        }
        if lowpass?.rateHz != batch.rateHz {
            lowpass = LowpassFilter(rateHz: batch.rateHz)
            seeded = false
            lowpassFigures = nil
        }
        guard var design = lowpass else {
            guard let block = SampleBlock(batch) else { return nil }
            return Output(block: block, noise: .raw(samples: block.samples), restartsAfterStep: 1)
        }
        let starting = !seeded
        if starting {
            guard let start = Self.seed(from: batch) else { return nil }
            design.seed(start)
        }
        var filtered = GravityAverage()
        for sample in batch.samples where sample.isFinite {
            filtered.add(design.filter(sample))
        }
        guard let block = SampleBlock(filtered, time: batch.time) else { return nil }
        lowpass = design
        seeded = true
        let figures = figures(of: design, samples: block.samples)
        return Output(block: block, noise: figures.noise, restartsAfterStep: figures.restarts, seeded: starting)
    }

    /// What the low-pass starts from: the batch's Hann-weighted mean, wᵢ = sin²(π·(i + ½)/n).
    /// Nil when no sample is finite.
    ///
    /// Not the plain mean: that is a box of 0.1 s, whose leakage falls only as 1/f, so 0.2 g at
    /// 49.3 Hz (4.93 cycles a batch) leaves up to 4.4 mg in it at 100 Hz (a quarter of a
    /// degree), which the filter would then take its settling time to forget: the very
    /// vibration it is there to remove. The Hann window's leakage falls as 1/f³: 0.22 mg there.
    /// It costs a little noise (its noise bandwidth is 1.5 times the box's, so √1.5 more) and a
    /// sine per sample, on the batches that seed only. The filter still rings as the vibration
    /// is switched on in it, whatever it starts from; the pipeline follows that as it follows a
    /// step (``Output/seeded``).
    static func seed(from batch: SampleBatch) -> Vector3? {
        let n = Double(batch.samples.count)
        var sum = Vector3.zero
        var weights = 0.0
        for (index, sample) in batch.samples.enumerated() where sample.isFinite {
            let root = sin(Double.pi * (Double(index) + 0.5) / n)
            sum += sample * (root * root)
            weights += root * root
        }
        return weights > 0 ? sum / weights : nil
    }

    /// Forgets the low-pass's state: the next batch seeds it.
    mutating func restart() {
        seeded = false
    }

    private mutating func figures(of design: LowpassFilter, samples: Int) -> Figures {
        if let lowpassFigures, figureSamples == samples { return lowpassFigures }
        let settling = design.settlingTime(band: Self.settlingBand) * design.rateHz / Double(max(1, samples))
        let figures = Figures(noise: BlockNoise.lowpass(design, samples: samples), restarts: max(1, Int(settling.rounded(.up))))
        lowpassFigures = figures
        figureSamples = samples
        return figures
    }

    /// The band of the longest the pipeline follows a step before the window averages again: 1 %
    /// of it, 0.83 s at 2 Hz. Only a cap: the pipeline stops following as soon as the filtered
    /// blocks stop moving beyond noise, much sooner for a small step.
    static let settlingBand = 0.01
}
