import Geometry
import VibrationVocabulary

/// Turns a stream of raw three-axis samples into ``VibrationFigures``, one set per analysis
/// window.
///
/// **Windows.** A window is `windowSeconds × rateHz` samples (rounded). By default windows do
/// not overlap: each sample belongs to exactly one, and a figure comes every `windowSeconds`.
/// With a `hopSeconds` shorter than the window, a window of the same length ends every hop
/// instead, overlapping the previous one; a ``RunningDetector`` fed such windows reports a
/// change within a hop of its dwell rather than within a window. Chunks of any size may be
/// added: the windows (and their figures) are the same as if every sample had come in one
/// chunk.
///
/// **What is computed** is described on ``AxisFigures`` and ``VibrationFigures``: gravity
/// (each axis's level and linear trend over the window, fitted by least squares weighted with
/// the Hann window, so that the fit follows a slow tilt but not a tone) removed; RMS, peak and
/// crest factor in time over 0 to ODR/2; the spectrum by FFTW's real FFT (double) in a periodic
/// Hann window with its power correction; velocity as A(f) / 2πf summed by Parseval over the
/// band (10 Hz to min(1000 Hz, ODR / 2.56)), each bin by the share of its width inside the
/// band; the dominant frequency as the strongest bin from 2 Hz up, refined by parabolic
/// interpolation; and the strongest few peaks.
///
/// **Corrupt samples** (a non-finite component, or beyond ±1000 g, which no accelerometer
/// reads) are skipped: the window fills with the next good samples, and the figures count what
/// was skipped in ``VibrationFigures/skippedSamples``. A skipped sample shifts the window's
/// later samples by one period against the true time grid; a stream with many is broken, and
/// its sensor should be reset.
///
/// **Memory.** About 100 bytes per sample of window (the window kept, its residuals, FFTW's
/// buffers, the spectra and their scales): 80 KB for the default 1 s at 800 Hz.
///
/// Not thread-safe, and not `Sendable`: it owns FFTW buffers that ``add(_:endingAt:)`` writes.
/// One task (the agent's sampling actor) owns an analyzer; several analyzers may be made, used
/// and released on different threads at once: FFTW's planner, which is not thread-safe, is made
/// so with `fftw_make_planner_thread_safe()` before any plan.
public final class VibrationAnalyzer {
    /// The shortest window: five cycles of 10 Hz, which puts the band's low edge at bin 5 or
    /// above, clear of what the mean and trend leave near DC.
    public static let minimumWindowSeconds = 0.5
    /// The longest window.
    public static let maximumWindowSeconds = 60.0
    /// The most samples in a window (about 7 MB of analysis), so a long window at a fast rate
    /// cannot exhaust a small board's memory.
    public static let maximumWindowSamples = 65_536
    /// How many ``SpectralPeak``s a figure lists at most, per axis and overall.
    public static let maximumPeaks = 3
    /// A sample component beyond this, in g, is corrupt.
    public static let corruptLimitG = 1000.0

    /// The output data rate of the samples, Hz.
    public let rateHz: Double
    /// The velocity band at that rate.
    public let band: VelocityBand
    /// Samples per window.
    public let windowSamples: Int
    /// Samples from one window's end to the next's: ``windowSamples`` unless overlapping.
    public let hopSamples: Int
    /// Windows completed since the analyzer was made, overlapping ones included (with a hop of a
    /// tenth of the window, every tenth is a disjoint window: count those for `health`'s
    /// `analysis_windows` if it should count published windows).
    public private(set) var windowsCompleted = 0

    private let analysis: WindowAnalysis
    private var ringX: [Double]
    private var ringY: [Double]
    private var ringZ: [Double]
    /// Where the next sample goes in the rings; once they are full, also the oldest sample.
    private var next = 0
    /// Good samples still needed before the next window ends.
    private var untilWindow: Int
    private var skipped = 0

    /// An analyzer for samples at `rateHz`, in windows of `windowSeconds`.
    ///
    /// - Parameters:
    ///   - rateHz: The output data rate, Hz; above 25.6 Hz so the velocity band has a top above
    ///     10 Hz (on an ADXL345, 50 Hz or faster).
    ///   - windowSeconds: `vibration_window_s`, from ``minimumWindowSeconds`` to
    ///     ``maximumWindowSeconds``, and at most ``maximumWindowSamples`` samples.
    ///   - hopSeconds: Seconds from one window's end to the next's, from one sample to the
    ///     window; nil (the default) for windows that do not overlap.
    /// - Throws: ``VibrationAnalyzerError``, saying what to choose instead.
    public init(rateHz: Double, windowSeconds: Double, hopSeconds: Double? = nil) throws(VibrationAnalyzerError) {
        guard rateHz.isFinite, rateHz > 0 else { throw VibrationAnalyzerError(.invalidRate(rateHz)) }
        guard let band = VelocityBand(rateHz: rateHz) else { throw VibrationAnalyzerError(.noVelocityBand(rateHz: rateHz)) }
        guard windowSeconds >= Self.minimumWindowSeconds, windowSeconds.isFinite else {
            throw VibrationAnalyzerError(.windowTooShort(seconds: windowSeconds))
        }
        let samplesPerWindow = (windowSeconds * rateHz).rounded()
        guard windowSeconds <= Self.maximumWindowSeconds, samplesPerWindow <= Double(Self.maximumWindowSamples) else {
            throw VibrationAnalyzerError(.windowTooLong(seconds: windowSeconds, rateHz: rateHz))
        }
        let count = Int(samplesPerWindow)
        let binWidth = rateHz / Double(count)
        guard band.high - band.low >= 2 * binWidth else {
            throw VibrationAnalyzerError(.bandTooNarrow(rateHz: rateHz, windowSeconds: windowSeconds))
        }
        let hop = hopSeconds.map { ($0 * rateHz).rounded() } ?? Double(count)
        guard hop >= 1, hop <= Double(count), hop.isFinite else {
            throw VibrationAnalyzerError(.invalidHop(seconds: hopSeconds ?? .nan, windowSeconds: windowSeconds))
        }
        guard let analysis = WindowAnalysis(count: count, rateHz: rateHz, band: band) else {
            throw VibrationAnalyzerError(.transformUnavailable(samples: count))
        }
        self.rateHz = rateHz
        self.band = band
        self.analysis = analysis
        windowSamples = count
        hopSamples = Int(hop)
        ringX = Array(repeating: 0, count: count)
        ringY = Array(repeating: 0, count: count)
        ringZ = Array(repeating: 0, count: count)
        untilWindow = count
    }

    /// Seconds of samples in a window.
    public var windowSeconds: Double { Double(windowSamples) / rateHz }
    /// Seconds from one window's end to the next's.
    public var hopSeconds: Double { Double(hopSamples) / rateHz }
    /// The spectrum's frequency resolution, Hz.
    public var binWidthHz: Double { analysis.binWidth }

    /// Adds consecutive samples and returns the figures of every window they complete, oldest
    /// first (usually none or one).
    ///
    /// - Parameters:
    ///   - samples: Raw samples in g, device frame, oldest first, one ODR period apart, going on
    ///     from the previous call's (call ``reset()`` after a gap).
    ///   - time: The time of the last of them, seconds, on any monotonic clock; the others are
    ///     taken to be one period apart before it. Not finite: the chunk is skipped.
    public func add(_ samples: some Collection<Vector3>, endingAt time: Double) -> [VibrationFigures] {
        // One non-generic loop over contiguous memory: this runs for every sample, and a generic
        // one, unspecialized across modules, costs ten times as much.
        if let completed = samples.withContiguousStorageIfAvailable({ add($0, endingAt: time) }) {
            return completed
        }
        return Array(samples).withUnsafeBufferPointer { add($0, endingAt: time) }
    }

    private func add(_ samples: UnsafeBufferPointer<Vector3>, endingAt time: Double) -> [VibrationFigures] {
        guard time.isFinite else {
            skipped += samples.count
            return []
        }
        var completed: [VibrationFigures] = []
        let last = samples.count - 1
        for index in samples.indices {
            let sample = samples[index]
            guard Self.isGood(sample) else {
                skipped += 1
                continue
            }
            ringX[next] = sample.x
            ringY[next] = sample.y
            ringZ[next] = sample.z
            next = next + 1 == windowSamples ? 0 : next + 1
            untilWindow -= 1
            if untilWindow == 0 {
                completed.append(analyzeWindow(endingAt: time - Double(last - index) / rateHz))
                untilWindow = hopSamples
            }
        }
        return completed
    }

    /// Forgets the samples of the window in progress, so that no window straddles a gap (a
    /// sensor fault, a restart of the chip). The next window starts with the next sample.
    public func reset() {
        next = 0
        untilWindow = windowSamples
        skipped = 0
    }

    private static func isGood(_ sample: Vector3) -> Bool {
        // abs(NaN) <= limit is false, so this refuses NaN as well as infinities and wild values.
        abs(sample.x) <= corruptLimitG && abs(sample.y) <= corruptLimitG && abs(sample.z) <= corruptLimitG
    }

    private func analyzeWindow(endingAt time: Double) -> VibrationFigures {
        // The rings are full; the oldest sample sits at `next`.
        for (axis, ring) in [ringX, ringY, ringZ].enumerated() {
            let target = analysis.samples(of: axis)
            ring.withUnsafeBufferPointer { source in
                let older = windowSamples - next
                for i in 0..<older { target[i] = source[next + i] }
                for i in 0..<next { target[older + i] = source[i] }
            }
        }
        let (overall, axes) = analysis.analyze()
        windowsCompleted += 1
        defer { skipped = 0 }
        return VibrationFigures(
            overall: overall, x: axes[0], y: axes[1], z: axes[2], band: band, rateHz: rateHz, samples: windowSamples,
            skippedSamples: skipped, time: time, binWidthHz: analysis.binWidth)
    }
}

/// Why a ``VibrationAnalyzer`` cannot run with the settings given; the ``description`` says
/// what to choose instead.
public struct VibrationAnalyzerError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The rate is not a positive, finite number of hertz.
        case invalidRate(Double)
        /// The rate is too slow for a velocity band: its top, rate / 2.56, is not above 10 Hz.
        case noVelocityBand(rateHz: Double)
        /// The window is shorter than ``VibrationAnalyzer/minimumWindowSeconds`` (or not a number).
        case windowTooShort(seconds: Double)
        /// The window is longer than ``VibrationAnalyzer/maximumWindowSeconds`` or holds more
        /// than ``VibrationAnalyzer/maximumWindowSamples`` samples at the rate.
        case windowTooLong(seconds: Double, rateHz: Double)
        /// The band at this rate is narrower than two bins of this window.
        case bandTooNarrow(rateHz: Double, windowSeconds: Double)
        /// The hop is shorter than one sample or longer than the window.
        case invalidHop(seconds: Double, windowSeconds: Double)
        /// FFTW could not allocate or plan a transform of this length (out of memory).
        case transformUnavailable(samples: Int)
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .invalidRate(let rate):
            return "\(rate) Hz is not a sample rate for vibration analysis: give a positive output data rate such as 800."
        case .noVelocityBand(let rate):
            return "At \(rate) Hz the velocity band would end below its 10 Hz start (it ends at rate / 2.56): sample faster"
                + " than 25.6 Hz for vibration, at one of the chip's rates (800 Hz over I²C covers 10–312.5 Hz)."
        case .windowTooShort(let seconds):
            return "A vibration window of \(seconds) s is too short to measure down to 10 Hz: choose"
                + " \(VibrationAnalyzer.minimumWindowSeconds) s or more (vibration_window_s, default 1)."
        case .windowTooLong(let seconds, let rate):
            let most = min(VibrationAnalyzer.maximumWindowSeconds, Double(VibrationAnalyzer.maximumWindowSamples) / rate)
            return "A vibration window of \(seconds) s at \(rate) Hz holds too many samples: choose at most"
                + " \((most * 10).rounded(.down) / 10) s at this rate (vibration_window_s, default 1)."
        case .bandTooNarrow(let rate, let seconds):
            return "At \(rate) Hz the velocity band is too narrow for a \(seconds) s window to resolve: sample faster"
                + " or choose a longer window."
        case .invalidHop(let seconds, let window):
            return "A hop of \(seconds) s between windows of \(window) s is impossible: choose between one sample"
                + " period and the window, or none for windows that do not overlap."
        case .transformUnavailable(let samples):
            return "FFTW could not plan a transform of \(samples) samples (out of memory?): choose a shorter"
                + " vibration window or free memory."
        }
    }
}
