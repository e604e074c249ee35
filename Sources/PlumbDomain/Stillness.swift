/// The noise an ADXL345 shows at rest, from its datasheet, for judging stillness.
///
/// The figures are chip facts and may move to the Accelerometers module later; nothing in
/// ``StillnessDetector`` depends on them, it takes the expected noise as a plain parameter.
public enum ADXL345Noise {
    /// One least significant bit in full-resolution mode, in g: 1/256 g (3.9 mg).
    public static let gPerLSB = 1.0 / 256

    /// Rms noise per axis at output data rates up to 100 Hz, in LSB: x and y 0.75, z 1.1.
    public static let rmsLSBUpTo100Hz = Vector3(x: 0.75, y: 0.75, z: 1.1)

    /// The slowest and fastest output data rates, in Hz: 3200 / 2¹⁵⁻ᶜᵒᵈᵉ for codes 0…15, about
    /// 0.10 Hz to 3200 Hz.
    public static let odrRange: ClosedRange<Double> = (3200.0 / 32768)...3200

    /// The expected rms noise of single samples per axis at `odrHz`, in g.
    ///
    /// Flat up to 100 Hz, then growing by √2 per doubling of the rate (the noise bandwidth
    /// doubles): × √(odr / 100). The rate is clamped to ``odrRange``; NaN counts as the fastest,
    /// noisiest rate, so a bad rate can only make stillness easier to reach, never impossible.
    /// Averaging samples before judging them lowers their noise by √n; pass single samples.
    public static func expectedRMS(odrHz: Double) -> Vector3 {
        let odr = odrHz.isNaN ? odrRange.upperBound : min(max(odrHz, odrRange.lowerBound), odrRange.upperBound)
        let growth = odr > 100 ? (odr / 100).squareRoot() : 1
        return rmsLSBUpTo100Hz * (gPerLSB * growth)
    }

    /// The output data rate of a `BW_RATE` rate code (0…15), in Hz; nil for other codes.
    public static func odrHz(rateCode: Int) -> Double? {
        guard (0...15).contains(rateCode) else { return nil }
        return 3200 / Double(1 << (15 - rateCode))
    }
}

/// What a ``StillnessDetector`` has decided.
public enum Stillness: Hashable, Sendable {
    /// Not yet judged stable: too few blocks so far, or blocks are passing but not yet for long
    /// enough (settling).
    case settling
    /// Still: the reading can be held.
    case stable
    /// Moving: the last block was too noisy or its mean moved.
    case moving
}

/// Decides whether a sensor is still, the way a professional inclinometer's hold does.
///
/// Samples are taken in blocks of ``Configuration/samplesPerBlock``. A block *passes* when
///
/// - every axis's sample standard deviation is within ``Configuration/noiseFactor`` times the
///   noise expected from the chip at rest (vibration, handling and tapping raise it), and
/// - its mean has moved from the previous block's mean by at most ``Configuration/maxDrift`` on
///   every axis (a slow creep or a step leaves the spread alone but moves the mean).
///
/// **Hysteresis.** It becomes ``Stillness/stable`` after ``Configuration/blocksToSettle``
/// consecutive passing blocks. Once stable, it is judged against thresholds
/// ``Configuration/releaseFactor`` times looser, and it also watches the mean against the mean
/// of the block where it settled (the anchor), so a creep too slow to show between two blocks
/// still ends the hold once it has gone far enough. A block failing those makes it
/// ``Stillness/moving`` at once, and it must settle again. A reading at the boundary therefore
/// cannot make it chatter.
///
/// **Fed sample by sample**, because that is how a driver delivers them (from the FIFO, one at a
/// time) and it needs no buffer: only the running block statistics (Welford's, see
/// ``GravityAverage``), the previous block's mean and the anchor are kept, constant memory
/// whatever the block size. It decides at block boundaries, because a standard deviation needs
/// many samples; a per-sample sliding window would need the window's samples in memory.
///
/// Pure and deterministic: no clock, no I/O. A non-finite sample is ignored.
public struct StillnessDetector: Hashable, Sendable {
    public struct Configuration: Hashable, Sendable {
        /// The expected rms noise of single samples at rest, per axis, in g (for an ADXL345,
        /// ``ADXL345Noise/expectedRMS(odrHz:)``).
        public var expectedNoise: Vector3
        /// Samples per block, at least 2.
        public var samplesPerBlock: Int
        /// A block passes when each axis's standard deviation is at most this many times the
        /// expected noise.
        public var noiseFactor: Double
        /// The largest change of a block mean from the previous one, per axis, in g. Extra noise
        /// makes block means wander more too, so noise well above the expected level tends to
        /// fail this test as well as the noise test; both mean the reading cannot be held.
        public var maxDrift: Vector3
        /// Consecutive passing blocks needed to become stable, at least 1.
        public var blocksToSettle: Int
        /// Once stable, the noise and drift thresholds are this many times looser (at least 1).
        public var releaseFactor: Double

        /// - Parameters:
        ///   - expectedNoise: Rms noise per axis at rest, in g.
        ///   - samplesPerBlock: Samples per block; values below 2 count as 2.
        ///   - noiseFactor: Allowed standard deviation as a multiple of `expectedNoise`.
        ///   - maxDrift: Allowed change of the mean between blocks, per axis, in g; nil (the
        ///     default) for ``defaultMaxDrift(expectedNoise:samplesPerBlock:)``.
        ///   - blocksToSettle: Passing blocks in a row to become stable; below 1 counts as 1.
        ///   - releaseFactor: How much looser the thresholds are while stable; below 1 counts as 1.
        public init(
            expectedNoise: Vector3, samplesPerBlock: Int, noiseFactor: Double = 3, maxDrift: Vector3? = nil,
            blocksToSettle: Int = 2, releaseFactor: Double = 1.5
        ) {
            self.expectedNoise = expectedNoise
            self.samplesPerBlock = max(2, samplesPerBlock)
            self.noiseFactor = noiseFactor
            self.maxDrift = maxDrift
                ?? Self.defaultMaxDrift(expectedNoise: expectedNoise, samplesPerBlock: self.samplesPerBlock)
            self.blocksToSettle = max(1, blocksToSettle)
            self.releaseFactor = releaseFactor >= 1 ? releaseFactor : 1
        }

        /// Four standard deviations of the difference of two block means of still noise,
        /// `4 σ √(2 / n)` per axis, in g: a still sensor exceeds it in about one block in 10⁴
        /// per axis (and the looser release threshold almost never), while a real drift of that
        /// size, under a tenth of a degree at 100 Hz and half-second blocks, is caught.
        public static func defaultMaxDrift(expectedNoise: Vector3, samplesPerBlock: Int) -> Vector3 {
            expectedNoise * (4 * (2 / Double(max(2, samplesPerBlock))).squareRoot())
        }

        /// For an ADXL345 at `odrHz` (clamped like ``ADXL345Noise/expectedRMS(odrHz:)``), with
        /// blocks of about `blockSeconds` (at least 2 samples), and the other defaults.
        public static func adxl345(odrHz: Double, blockSeconds: Double = 0.5) -> Configuration {
            let range = ADXL345Noise.odrRange
            let rate = odrHz.isNaN ? range.upperBound : min(max(odrHz, range.lowerBound), range.upperBound)
            let samples = (rate * blockSeconds).rounded()
            return Configuration(
                expectedNoise: ADXL345Noise.expectedRMS(odrHz: odrHz),
                samplesPerBlock: samples.isFinite ? Int(min(max(samples, 2), 1_000_000)) : 2
            )
        }
    }

    /// The statistics of one finished block and how they were judged.
    public struct Block: Hashable, Sendable {
        /// The block's mean, in g.
        public var mean: Vector3
        /// The block's per-axis sample standard deviation, in g.
        public var standardDeviation: Vector3
        /// How far the mean moved from the previous block's, per axis, in g (absolute); nil for
        /// the first block.
        public var drift: Vector3?
        /// Whether the spread was within the noise threshold that applied.
        public var quiet: Bool
        /// Whether the mean stayed within the drift threshold(s) that applied.
        public var steady: Bool

        /// Whether the block passed both tests.
        public var passed: Bool { quiet && steady }
    }

    public let configuration: Configuration
    /// The current decision.
    public private(set) var state: Stillness = .settling
    /// The last finished block, nil before the first.
    public private(set) var lastBlock: Block?
    /// The mean of the block where the detector last became stable; nil unless stable.
    public private(set) var anchor: Vector3?
    private var current = GravityAverage()
    private var passesInARow = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether the state is ``Stillness/stable``.
    public var isStable: Bool { state == .stable }

    /// Adds one sample, in g. Returns the finished block when this sample completes one (the
    /// state may have changed then), nil otherwise. A non-finite sample is ignored.
    @discardableResult
    public mutating func add(_ sample: Vector3) -> Block? {
        guard current.add(sample), current.count >= configuration.samplesPerBlock else { return nil }
        // Both unwraps hold: a block has at least two samples.
        let block = judge(mean: current.mean!, standardDeviation: current.standardDeviation!)
        current.reset()
        return block
    }

    /// Adds samples in order; returns the last block finished among them, if any.
    @discardableResult
    public mutating func add(contentsOf samples: some Sequence<Vector3>) -> Block? {
        var last: Block?
        for sample in samples {
            if let block = add(sample) {
                last = block
            }
        }
        return last
    }

    /// Forgets everything: back to settling with no blocks.
    public mutating func reset() {
        self = StillnessDetector(configuration: configuration)
    }

    private mutating func judge(mean: Vector3, standardDeviation: Vector3) -> Block {
        let wasStable = state == .stable
        let looseness = wasStable ? configuration.releaseFactor : 1
        let noiseLimit = configuration.expectedNoise * (configuration.noiseFactor * looseness)
        let driftLimit = configuration.maxDrift * looseness
        let quiet = Self.within(standardDeviation, noiseLimit)
        let drift = lastBlock.map { Self.absolute(mean - $0.mean) }
        var steady = drift.map { Self.within($0, driftLimit) } ?? true
        if wasStable, let anchor {
            steady = steady && Self.within(Self.absolute(mean - anchor), driftLimit)
        }
        let block = Block(mean: mean, standardDeviation: standardDeviation, drift: drift, quiet: quiet, steady: steady)
        // The first block has nothing to compare its mean with, so it can never count as a pass:
        // stability always rests on at least one measured drift.
        if block.passed, drift != nil {
            passesInARow += 1
            if !wasStable {
                state = passesInARow >= configuration.blocksToSettle ? .stable : .settling
                anchor = state == .stable ? mean : nil
            }
        } else {
            passesInARow = 0
            state = block.passed ? .settling : .moving
            anchor = nil
        }
        lastBlock = block
        return block
    }

    private static func within(_ value: Vector3, _ limit: Vector3) -> Bool {
        value.x <= limit.x && value.y <= limit.y && value.z <= limit.z
    }

    private static func absolute(_ v: Vector3) -> Vector3 {
        Vector3(x: abs(v.x), y: abs(v.y), z: abs(v.z))
    }
}
