import Geometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The anti-aliasing low-pass of the `lowpass` filter (``GravityFilter/lowpass``): a 4th-order
/// Butterworth on the raw sample stream, run before the samples are averaged into blocks, so that
/// vibration faster than a few hertz is gone before anything is decimated and cannot alias into
/// the reading.
///
/// **Design.** Two second-order sections, each in transposed direct form II (the form whose
/// rounding stays small for poles close to z = 1, as these are: at 800 Hz the cutoff is 1/400 of
/// the rate), in double precision. Coefficients by the bilinear transform with the cutoff
/// prewarped (K = tan(π·fc/fs)), computed for the rate the samples actually come at, so the
/// −3 dB point is at ``cutoffHz`` exactly at every rate. The sections' Qs are the Butterworth
/// ones, 1/(2·cos(π/8)) and 1/(2·cos(3π/8)), and the response is maximally flat:
///
///     |H(f)|² = 1 / (1 + (tan(π·f/fs) / tan(π·fc/fs))⁸)
///
/// The bilinear transform puts all four zeros at z = −1, so the response is exactly 0 at the
/// Nyquist frequency (where a 50 Hz tone sits at 100 Hz) and falls faster than the analogue
/// prototype's 80 dB a decade near it.
///
/// **Gain.** Exactly 1 at DC: each section's numerator is scaled to its denominator's sum, so
/// a still sensor reads what it reads without the filter. Because the calibration is affine
/// (M·x + o) and the filter is linear with unit DC gain, filtering raw samples and then
/// calibrating equals calibrating and then filtering: the filter can run on the raw stream and a
/// new calibration never needs it restarted.
///
/// **State.** Four state vectors, x, y and z at once; a value type, so the ``LevelPipeline``
/// that owns it stays pure. ``seed(_:)`` sets it to the steady state of a constant input, which
/// is how it starts: from zero, the first seconds would read a step from 0 g to 1 g.
public struct LowpassFilter: Hashable, Sendable {
    /// The cutoff the pipeline uses, in Hz: the −3 dB point.
    ///
    /// 2 Hz takes 50 Hz vibration down by 110 dB at 800 Hz and by far more at 100 Hz (near the
    /// Nyquist zeros), so 0.2 g of it leaves well under a micro-g, and still lets a step through
    /// in about half a second (the slower pole pair decays at 2π·fc·sin(π/8) = 4.8 s⁻¹). Blocks
    /// come at 10 Hz: at their Nyquist frequency, 5 Hz, it already attenuates by 32 dB, so
    /// decimating the filtered samples into blocks aliases nothing that matters either. Lower
    /// would settle slower for no gain in rejection at machine frequencies; higher settles
    /// sooner but lets slow vibration through (measured with the agent's pipeline: 3 Hz settles
    /// a 1° step 0.2 s sooner but lets 0.2 g at 6.3 Hz move the reading by 0.2° at 1σ, 4 Hz by
    /// 0.6°; 2 Hz keeps it at the noise's 0.017°).
    public static let defaultCutoffHz = 2.0

    /// The −3 dB frequency, in Hz.
    public let cutoffHz: Double
    /// The sample rate it is designed for, in Hz.
    public let rateHz: Double

    private var first: Section
    private var second: Section

    /// A filter for samples at `rateHz`; nil unless 0 < `cutoffHz` < `rateHz` / 2 (both finite),
    /// the only cutoffs a sampled low-pass can have.
    public init?(cutoffHz: Double = LowpassFilter.defaultCutoffHz, rateHz: Double) {
        guard cutoffHz.isFinite, rateHz.isFinite, cutoffHz > 0, cutoffHz < rateHz / 2 else { return nil }
        self.cutoffHz = cutoffHz
        self.rateHz = rateHz
        let k = tan(Double.pi * cutoffHz / rateHz)
        first = Section(k: k, q: 1 / (2 * cos(Double.pi / 8)))
        second = Section(k: k, q: 1 / (2 * cos(3 * Double.pi / 8)))
    }

    /// Sets the state to what a constant input of `value` would have left, so the output starts
    /// at `value` and stays there while the input does.
    public mutating func seed(_ value: Vector3) {
        first.seed(value)
        second.seed(value)
    }

    /// Filters one sample, in g; returns the filtered sample. The caller keeps non-finite
    /// samples out: one would poison the state until the next ``seed(_:)``.
    @inline(__always)
    public mutating func filter(_ sample: Vector3) -> Vector3 {
        second.filter(first.filter(sample))
    }

    /// The magnitude of the frequency response at `hertz`, from the coefficients: 1 at DC, 1/√2
    /// at ``cutoffHz``, 0 at half the rate.
    public func gain(atHz hertz: Double) -> Double {
        let omega = 2 * Double.pi * hertz / rateHz
        return first.gain(omega) * second.gain(omega)
    }

    /// The Butterworth response the design promises at `hertz`, in closed form:
    /// 1 / √(1 + (tan(π·f/fs) / tan(π·fc/fs))⁸). ``gain(atHz:)`` matches it.
    public func designGain(atHz hertz: Double) -> Double {
        let ratio = tan(Double.pi * hertz / rateHz) / tan(Double.pi * cutoffHz / rateHz)
        return 1 / (1 + pow(ratio, 8)).squareRoot()
    }

    /// Seconds after a step of the input until the output stays within `band` (a fraction of the
    /// step) of it: 0.55 s within 5 % and 0.79 s within 2 % at the default cutoff, at any rate
    /// (the 4th-order Butterworth overshoots by 10.9 %, at 0.44 s). From the step response, run
    /// out to ``memory``.
    public func settlingTime(band: Double) -> Double {
        var filter = self
        filter.seed(.zero)
        var lastOutside = -1
        for index in 0..<memory {
            let output = filter.filter(Vector3(x: 1, y: 0, z: 0)).x
            if abs(output - 1) > band { lastOutside = index }
        }
        return Double(lastOutside + 1) / rateHz
    }

    /// The response to a unit impulse, `count` samples of it, one axis: what the noise figures
    /// (``BlockNoise/lowpass(_:samples:)``) are worked out from.
    func impulseResponse(count: Int) -> [Double] {
        var filter = self
        filter.seed(.zero)
        return (0..<max(0, count)).map { index in
            filter.filter(Vector3(x: index == 0 ? 1 : 0, y: 0, z: 0)).x
        }
    }

    /// Samples after which the impulse response is below 10⁻¹² of its start: the slower pole pair
    /// decays as exp(−2π·fc·sin(π/8)·t), and 28 time constants of it take e⁻²⁸ ≈ 7·10⁻¹³.
    var memory: Int {
        let decay = 2 * Double.pi * cutoffHz * sin(Double.pi / 8)
        return Int((28 / decay * rateHz).rounded(.up))
    }

    /// One biquad in transposed direct form II:
    /// y = b0·x + s1;  s1 ← b1·x − a1·y + s2;  s2 ← b2·x − a2·y.
    struct Section: Hashable, Sendable {
        let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
        var s1 = Vector3.zero
        var s2 = Vector3.zero

        /// The bilinear transform of the analogue section ω²/(s² + ω/Q·s + ω²), prewarped: K is
        /// tan(π·fc/fs).
        init(k: Double, q: Double) {
            let norm = 1 / (1 + k / q + k * k)
            a1 = 2 * (k * k - 1) * norm
            a2 = (1 - k / q + k * k) * norm
            // K²·norm analytically; taken as the denominator's sum over 4 so that the DC gain,
            // (b0 + b1 + b2) / (1 + a1 + a2), is 1 to the last bit rather than to rounding.
            b0 = (1 + a1 + a2) / 4
            b1 = 2 * b0
            b2 = b0
        }

        @inline(__always)
        mutating func filter(_ x: Vector3) -> Vector3 {
            let y = x * b0 + s1
            s1 = x * b1 - y * a1 + s2
            s2 = x * b2 - y * a2
            return y
        }

        /// The steady state of a constant input `value`: the output is `value` (unit DC gain), so
        /// s1 = (1 − b0)·value and s2 = (b2 − a2)·value.
        mutating func seed(_ value: Vector3) {
            s1 = value * (1 - b0)
            s2 = value * (b2 - a2)
        }

        /// |H(e^{jω})|.
        func gain(_ omega: Double) -> Double {
            let (c1, s1) = (cos(omega), sin(omega))
            let (c2, s2) = (cos(2 * omega), sin(2 * omega))
            let numerator = hypot(b0 + b1 * c1 + b2 * c2, b1 * s1 + b2 * s2)
            let denominator = hypot(1 + a1 * c1 + a2 * c2, a1 * s1 + a2 * s2)
            return numerator / denominator
        }
    }
}
