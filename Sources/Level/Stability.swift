import Geometry

/// What the ``LevelPipeline``'s window amounts to for holding a reading.
public enum Stillness: Hashable, Sendable {
    /// Not yet shown to be still: the window is filling (just started, restarted by a step, or
    /// after a fault), and nothing in it has moved or shaken.
    case settling
    /// Still: the reading can be held.
    case stable
    /// Moving: the window shook or moved beyond the limits that applied, or the last block was a
    /// step away from it.
    case moving
}

/// When a reading counts as stable: the hold of a professional inclinometer, which only takes a
/// reading once the sensor has stopped moving and shaking, and lets go once it moves again.
///
/// The one judgement of stillness in Plumb: the ``LevelPipeline`` makes it on its window, so the
/// agent's `stable`, `zero`, the reversal and `plumb calibrate` all hold on the same terms.
///
/// **Tests**, each the window's noise against a multiple of what the chip shows at rest:
///
/// - the spread of all its samples (``BlockWindow/noise``: vibration, handling) within
///   ``noiseFactor`` × the expected noise of a sample, and
/// - the scatter of its block means (``BlockWindow/meanScatter``: a tilt that moves) within
///   ``noiseFactor`` × the expected noise of a block mean (expected / √n for raw blocks of n).
///
/// A still sensor passes both with a wide margin; a tilt moving steadily through a whole window
/// fails the second from about half a degree a second (100 Hz, blocks of 10 samples, a 1 s
/// window). Judging the whole window, rather than one block against the one before, pools all
/// its samples: the figures are steadier, and they describe exactly the blocks the reading is
/// averaged from.
///
/// **Under each filter** the window's figures are of what the reading is made of, and "what the
/// chip shows at rest" is scaled to match (``BlockNoise``): under `mean` and `median` the raw
/// samples, so vibration fails the first test, as it should when it moves the reading; under
/// `lowpass` the filtered samples, which carry only the noise below the cutoff (about a fifth
/// of it at 100 Hz), so a machine running at 0.2 g still reads stable while its tilt is still,
/// and a tilt that moves is caught sooner, since the filtered block means are steadier. Their
/// neighbours correlate, which makes the window's scatter a little smaller than the limit
/// assumes: lenient, never stricter. Under `median` the figures are robust, so one knocked block
/// does not end a hold.
///
/// **Hysteresis.** It becomes ``Stillness/stable`` only on a full window that passes. Once
/// stable, the limits are ``releaseFactor`` times looser, so a reading at the boundary cannot
/// make `stable` chatter; and the window's mean is watched against the mean it had when it
/// became stable (the anchor), so a creep too slow to show within one window still ends the hold
/// once it has gone as far as two block means may differ under the looser limit.
///
/// A step (``isStep(to:noise:from:recent:)``) restarts the window, so a moved sensor is
/// ``Stillness/moving`` for that block and ``Stillness/settling`` until the window has filled
/// again.
public struct Stability: Hashable, Sendable {
    /// The rms noise of single samples at rest, per axis, in g: the chip's, at the rate in use
    /// (``OperatingPoint``).
    public var expectedNoise: Vector3
    /// How many times the expected noise still counts as still when a hold begins.
    public var noiseFactor: Double
    /// Once stable, the limits are this many times looser (at least 1).
    public var releaseFactor: Double

    public init(expectedNoise: Vector3, noiseFactor: Double = 3, releaseFactor: Double = 1.5) {
        self.expectedNoise = expectedNoise
        self.noiseFactor = noiseFactor
        self.releaseFactor = max(1, releaseFactor)
    }

    /// The judgement of `window` and the anchor to keep for the next one.
    ///
    /// Idempotent: judging the same window again with the anchor it returned gives the same
    /// answer, so a re-evaluation under new settings may judge again without moving the hold.
    ///
    /// - Parameters:
    ///   - anchor: the window's mean when the hold began, as the last judgement returned it;
    ///     nil when not stable.
    ///   - afterStep: whether the newest block was a step that restarted the window.
    /// - Returns: the state, and the anchor: the window's mean when it became stable now, the
    ///   given one while the hold lasts, nil otherwise.
    public func judge(_ window: BlockWindow, anchor: Vector3?, afterStep: Bool) -> (state: Stillness, anchor: Vector3?) {
        guard !afterStep else { return (.moving, nil) }
        guard let noise = window.noise, let scatter = window.meanScatter, let gains = window.blockNoise,
              let mean = window.center else { return (.settling, nil) }
        let looseness = (anchor == nil ? 1 : releaseFactor) * noiseFactor
        let noiseLimit = expectedNoise * (looseness * gains.sample)
        let meanLimit = expectedNoise * (looseness * gains.block)
        var still = Self.within(noise, noiseLimit) && Self.within(scatter, meanLimit)
        if let anchor {
            // Both the anchor and the mean now are means of at least a block: still noise moves
            // their difference by at most √2 × a block mean's.
            still = still && Self.within((mean - anchor).absolute, meanLimit * 2.0.squareRoot())
        }
        guard still else { return (.moving, nil) }
        // A part-filled window (just started, restarted or recovered) has not yet shown it is still.
        guard window.isFull else { return (.settling, nil) }
        return (.stable, anchor ?? mean)
    }

    /// How far, in standard errors of a block mean, a block must lie from the window's mean to
    /// count as a step. Far past noise (a still sensor's block means stray by more than 8σ about
    /// once in 10¹⁵ blocks), yet only about 0.4° for an ADXL345's 0.1 s blocks.
    public static let stepFactor = 8.0

    /// Whether a block with calibrated mean `mean`, whose still noise `noise` describes, has moved
    /// away from `window`: on some axis it lies more than ``stepFactor`` standard errors of a
    /// block mean from the window's centre (its mean, or median under `median`).
    ///
    /// The standard error is the chip's expected one, or, when larger, the one the window itself
    /// shows, so that whatever scatters every block mean does not restart the window at every
    /// block. For raw blocks that is the one their within-block scatter implies: vibration
    /// scatters every sample and so every block mean. The scatter of the raw block means is no
    /// guide: one block that straddles a step inflates it enough to hide the step. Under
    /// `lowpass` it is the other way round (``BlockNoise/isFiltered``): vibration above the
    /// cutoff is gone, a step spreads the filtered samples of every block while the filter
    /// follows it, and how much neighbouring filtered block means differ is what still shows
    /// disturbance the filter lets through (a slow rocking), so that is the guide, taken robustly
    /// over the last blocks, restarts or not (`recent`): the step's first, barely moved blocks
    /// do not hide it.
    public func isStep(to mean: Vector3, noise: BlockNoise, from window: BlockWindow,
                       recent: NeighbourDifferences = NeighbourDifferences()) -> Bool {
        guard let center = window.center, mean.isFinite else { return false }
        let limit = blockError(noise, recent: recent, window: window) * Self.stepFactor
        let distance = (mean - center).absolute
        return distance.x > limit.x || distance.y > limit.y || distance.z > limit.z
    }

    /// The standard error of a block mean to judge a block by: the chip's expected one, or what
    /// the blocks show when that is larger (see ``isStep(to:noise:from:recent:)``).
    private func blockError(_ noise: BlockNoise, recent: NeighbourDifferences, window: BlockWindow) -> Vector3 {
        var standardError = expectedNoise * noise.block
        let implied: Vector3?
        if noise.isFiltered {
            implied = recent.blockError(correlation: noise.correlations.first ?? 0)
        } else {
            implied = noise.withinBlock > 0 ? window.withinBlockNoise.map { $0 * (noise.block / noise.withinBlock) } : nil
        }
        if let implied {
            standardError = Vector3(x: max(standardError.x, implied.x), y: max(standardError.y, implied.y),
                                    z: max(standardError.z, implied.z))
        }
        return standardError
    }

    /// How far, in standard deviations of the difference of two neighbouring block means, a
    /// low-passed block must lie from the one before it to show the filter still following a
    /// step: well past noise (about one block in 400 strays further), well below a step's.
    public static let followFactor = 3.0

    /// Whether a low-passed block with calibrated mean `mean` still moves with the filter's
    /// response to a step: it differs from `window`'s newest block by more than ``followFactor``
    /// standard deviations of the difference of two neighbouring block means (√(2·(1 − ρ₁)) times
    /// a block mean's, ρ₁ their correlation, ``BlockNoise/correlations``). While it does, the
    /// window restarts with each block. Scale-aware: a small step's response sinks into the noise
    /// soon, a large one's overshoot takes longer to. A block mean's standard error is judged as
    /// for a step, disturbance the filter lets through included (`recent`).
    public func isFollowing(to mean: Vector3, noise: BlockNoise, from window: BlockWindow,
                            recent: NeighbourDifferences = NeighbourDifferences()) -> Bool {
        guard let newest = window.center, mean.isFinite else { return false }
        let correlation = noise.correlations.first ?? 0
        let limit = blockError(noise, recent: recent, window: window)
            * ((2 * max(0, 1 - correlation)).squareRoot() * Self.followFactor)
        let distance = (mean - newest).absolute
        return distance.x > limit.x || distance.y > limit.y || distance.z > limit.z
    }

    private static func within(_ value: Vector3, _ limit: Vector3) -> Bool {
        value.x <= limit.x && value.y <= limit.y && value.z <= limit.z
    }
}

/// The rate a chip runs at and the rms noise its single samples show there at rest, per axis, in g:
/// what the pipeline judges stillness and sizes its blocks by. The chip's description gives it
/// (`ChipDescription.operatingPoint(rateHz:)`); the domain never knows which chip it is.
public struct OperatingPoint: Hashable, Sendable {
    /// The output data rate the chip runs at, in Hz.
    public var rateHz: Double
    /// The rms noise of single samples per axis at rest, in g.
    public var expectedNoise: Vector3

    public init(rateHz: Double, expectedNoise: Vector3) {
        self.rateHz = rateHz
        self.expectedNoise = expectedNoise
    }

    /// ``Stability`` against this noise.
    public var stability: Stability { Stability(expectedNoise: expectedNoise) }
}
