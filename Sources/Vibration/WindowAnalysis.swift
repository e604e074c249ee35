#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import VibrationVocabulary

/// The figures of one window of three-axis samples, with every buffer and table it needs made
/// once for its length, so a window costs three FFTs and a few passes, and no allocation
/// beyond the figures' peak lists.
///
/// Per axis: the mean and the linear trend are removed (gravity, and a slow tilt within the
/// window); RMS and peak come from what is left, in time; the spectrum is that residual in a
/// periodic Hann window through FFTW. Powers are turned into mean squares by the window's
/// power (energy) correction: one-sided bin power × 2 / (N · Σw²), so Parseval over bins gives
/// a mean square whatever the frequency, for tones and for noise alike. Not thread-safe: one
/// owner (a ``VibrationAnalyzer``).
final class WindowAnalysis {
    /// Samples per window.
    let count: Int
    /// The spacing of the spectrum's bins, Hz.
    let binWidth: Double
    let band: VelocityBand

    /// Standard gravity, m/s² per g: the ADXL345's g and the one ISO's mm/s are converted with.
    static let standardGravity = 9.80665
    /// Below this the spectrum's maximum is not taken as a dominant frequency or peak, Hz.
    static let dominantFloorHz = 2.0
    /// A peak must exceed the spectrum's median power by this factor: noise's bins are
    /// exponentially distributed, so one exceeds 20 × its median (≈ 14 × its mean) with a
    /// chance of e⁻¹⁴ ≈ 10⁻⁶.
    static let peakProminence = 20.0
    /// A weaker peak near a stronger one must exceed the Hann leakage of the stronger at its
    /// distance (a bin nearer, for an off-bin tone) by this factor, so a noise bump on a strong
    /// tone's skirt is not reported as a second tone.
    static let leakageMargin = 10.0
    /// Peaks closer than this many bins are one tone's main lobe.
    static let peakSpacing = 3
    /// Bins either side of a peak that hold its main lobe (the Hann window's is 4 bins wide).
    static let lobeHalfWidth = 2
    /// Below this RMS acceleration, g, a bin is nothing: no accelerometer resolves a microgravity,
    /// and what is left of a window with no vibration at all is rounding.
    static let quietG = 1e-6

    private let fft: RealFFT
    private let bins: Int
    /// The dominant frequency and peaks are searched over these bins.
    private let search: ClosedRange<Int>
    /// The bin power of a tone of ``quietG``: neither a dominant frequency nor a peak is below it.
    private let quietPower: Double
    /// The bins the band touches, and each one's weight (see `bandVelocityScale`).
    private let bandBins: ClosedRange<Int>
    private let hann: UnsafeMutableBufferPointer<Double>
    /// One-sided bin power → mean square acceleration, g².
    private let accelerationScale: UnsafeMutableBufferPointer<Double>
    /// One-sided bin power → mean square velocity, (mm/s)², without the band (0 at DC).
    private let velocityScale: UnsafeMutableBufferPointer<Double>
    /// `velocityScale` times the share of each bin's width inside the band.
    private let bandVelocityScale: UnsafeMutableBufferPointer<Double>
    /// Each axis's detrended samples, `count` apiece, x then y then z.
    let residuals: UnsafeMutableBufferPointer<Double>
    /// Each axis's bin powers, then their sum, `bins` apiece.
    private let powers: UnsafeMutableBufferPointer<Double>
    private let scratch: UnsafeMutableBufferPointer<Double>

    /// Nil when FFTW cannot plan this length. `count` ≥ 8 and a band inside (0, rate/2) are the
    /// caller's to check.
    init?(count: Int, rateHz: Double, band: VelocityBand) {
        guard let fft = RealFFT(count: count) else { return nil }
        self.fft = fft
        self.count = count
        self.band = band
        bins = fft.bins
        binWidth = rateHz / Double(count)
        let lowest = max(2, Int((Self.dominantFloorHz / binWidth).rounded(.up)))
        search = lowest...max(lowest, bins - 2)

        hann = .allocate(capacity: count)
        accelerationScale = .allocate(capacity: bins)
        velocityScale = .allocate(capacity: bins)
        bandVelocityScale = .allocate(capacity: bins)
        residuals = .allocate(capacity: 3 * count)
        powers = .allocate(capacity: 4 * bins)
        scratch = .allocate(capacity: bins)
        residuals.initialize(repeating: 0)
        powers.initialize(repeating: 0)
        scratch.initialize(repeating: 0)

        // Periodic (DFT-even) Hann: its bins are exact for bin-centred tones and its leakage
        // is ±1 bin of a quarter amplitude.
        var energy = 0.0
        for i in 0..<count {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(count))
            hann[i] = w
            energy += w * w
        }
        let toVelocity = Self.standardGravity * 1000 / (2 * Double.pi)
        for k in 0..<bins {
            // DC and (for an even length) Nyquist appear once; every other bin stands for its
            // conjugate too.
            let sides = k == 0 || 2 * k == count ? 1.0 : 2.0
            let scale = sides / (Double(count) * energy)
            accelerationScale[k] = scale
            let f = Double(k) * binWidth
            velocityScale[k] = k == 0 ? 0 : scale * (toVelocity / f) * (toVelocity / f)
            let overlap = min(f + binWidth / 2, band.high) - max(f - binWidth / 2, band.low)
            bandVelocityScale[k] = velocityScale[k] * max(0, min(1, overlap / binWidth))
        }
        quietPower = Self.quietG * Self.quietG / accelerationScale[1]
        let first = max(1, Int((band.low / binWidth - 0.5).rounded(.down)))
        let last = min(bins - 1, Int((band.high / binWidth + 0.5).rounded(.up)))
        bandBins = first...max(first, last)
    }

    deinit {
        for buffer in [hann, accelerationScale, velocityScale, bandVelocityScale, residuals, powers, scratch] {
            buffer.deallocate()
        }
    }

    /// Axis `axis`'s residual buffer (0 x, 1 y, 2 z): fill it with the window's samples, oldest
    /// first, before ``analyze()``.
    func samples(of axis: Int) -> UnsafeMutableBufferPointer<Double> {
        UnsafeMutableBufferPointer(rebasing: residuals[(axis * count)..<((axis + 1) * count)])
    }

    private func power(of index: Int) -> UnsafeMutableBufferPointer<Double> {
        UnsafeMutableBufferPointer(rebasing: powers[(index * bins)..<((index + 1) * bins)])
    }

    /// The figures of the samples loaded by ``samples(of:)``: per axis, then overall. The
    /// buffers are detrended in place.
    func analyze() -> (overall: AxisFigures, axes: [AxisFigures]) {
        var axes: [AxisFigures] = []
        var velocitySquares = 0.0
        var accelerationSquares = 0.0
        let total = power(of: 3)
        total.update(repeating: 0)
        for axis in 0..<3 {
            let residual = samples(of: axis)
            removeTrend(residual)
            var sumSquares = 0.0
            var peak = 0.0
            for value in residual {
                sumSquares += value * value
                peak = max(peak, abs(value))
            }
            let meanSquare = sumSquares / Double(count)
            let spectrum = power(of: axis)
            transform(residual, into: spectrum)
            for k in 0..<bins { total[k] += spectrum[k] }
            let velocitySquare = bandVelocity(spectrum)
            velocitySquares += velocitySquare
            accelerationSquares += meanSquare
            axes.append(figures(velocitySquare: velocitySquare, meanSquare: meanSquare, peak: peak, spectrum: spectrum))
        }
        // The vector's largest magnitude, sample by sample.
        var peakSquare = 0.0
        let x = samples(of: 0), y = samples(of: 1), z = samples(of: 2)
        for i in 0..<count {
            peakSquare = max(peakSquare, x[i] * x[i] + y[i] * y[i] + z[i] * z[i])
        }
        let overall = figures(velocitySquare: velocitySquares, meanSquare: accelerationSquares, peak: peakSquare.squareRoot(),
                              spectrum: total)
        return (overall, axes)
    }

    private func figures(velocitySquare: Double, meanSquare: Double, peak: Double,
                         spectrum: UnsafeMutableBufferPointer<Double>) -> AxisFigures {
        let rms = meanSquare.squareRoot()
        return AxisFigures(
            velocityRMS: velocitySquare.squareRoot(), accelerationRMS: rms, peak: peak,
            crestFactor: rms > 0 ? peak / rms : 0, dominantHz: dominantFrequency(spectrum),
            peaks: peaks(spectrum))
    }

    /// Removes from `values` the line (level and slope) fitted by least squares weighted with
    /// the Hann window.
    ///
    /// Any weighting fits a true line exactly, so gravity and a slow tilt go whatever the
    /// weights. The weights matter for the vibration: an unweighted fit also takes out a line
    /// correlated with a tone, about 1/(f·T) of its amplitude at the window's ends (2 % at
    /// 50 Hz in 1 s, 5 % at 20 Hz), which would read as extra peak; weighted by a window that
    /// fades to 0 at both ends, a tone's share of the fitted line falls as 1/(f·T)³.
    func removeTrend(_ values: UnsafeMutableBufferPointer<Double>) {
        var weight = 0.0, first = 0.0, level = 0.0
        for i in 0..<count {
            weight += hann[i]
            first += hann[i] * Double(i)
            level += hann[i] * values[i]
        }
        let centre = first / weight
        let mean = level / weight
        var moment = 0.0, spread = 0.0
        for i in 0..<count {
            let offset = Double(i) - centre
            moment += hann[i] * offset * (values[i] - mean)
            spread += hann[i] * offset * offset
        }
        let slope = spread > 0 ? moment / spread : 0
        for i in 0..<count { values[i] -= mean + slope * (Double(i) - centre) }
    }

    /// The Hann-windowed residual's bin powers, |X_k|².
    private func transform(_ residual: UnsafeMutableBufferPointer<Double>, into spectrum: UnsafeMutableBufferPointer<Double>) {
        for i in 0..<count { fft.input[i] = residual[i] * hann[i] }
        fft.execute()
        for k in 0..<bins { spectrum[k] = fft.power(at: k) }
    }

    /// Mean square velocity over the band, (mm/s)².
    private func bandVelocity(_ spectrum: UnsafeMutableBufferPointer<Double>) -> Double {
        var sum = 0.0
        for k in bandBins { sum += bandVelocityScale[k] * spectrum[k] }
        return sum
    }

    private func dominantFrequency(_ spectrum: UnsafeMutableBufferPointer<Double>) -> Double {
        var best = search.lowerBound
        for k in search where spectrum[k] > spectrum[best] { best = k }
        guard spectrum[best] > quietPower else { return 0 }
        return refinedBin(best, spectrum) * binWidth
    }

    /// Bin `k` moved to the vertex of the parabola through the log powers of it and its
    /// neighbours: the usual estimator of a windowed tone's frequency between bins.
    private func refinedBin(_ k: Int, _ spectrum: UnsafeMutableBufferPointer<Double>) -> Double {
        guard k > 0, k + 1 < bins else { return Double(k) }
        let tiny = Double.leastNormalMagnitude
        let before = log(max(spectrum[k - 1], tiny)), at = log(max(spectrum[k], tiny))
        let after = log(max(spectrum[k + 1], tiny))
        let curvature = before - 2 * at + after
        guard curvature < 0 else { return Double(k) }
        let offset = 0.5 * (before - after) / curvature
        return Double(k) + min(0.5, max(-0.5, offset))
    }

    private func peaks(_ spectrum: UnsafeMutableBufferPointer<Double>) -> [SpectralPeak] {
        let floor = max(quietPower, Self.peakProminence * median(of: spectrum))
        var candidates: [(bin: Int, power: Double)] = []
        for k in search where spectrum[k] > floor && spectrum[k] > spectrum[k - 1] && spectrum[k] >= spectrum[k + 1] {
            candidates.append((k, spectrum[k]))
        }
        candidates.sort { $0.power > $1.power }
        var accepted: [(bin: Int, power: Double)] = []
        for candidate in candidates where accepted.count < VibrationAnalyzer.maximumPeaks {
            let clear = accepted.allSatisfy { stronger in
                let distance = abs(candidate.bin - stronger.bin)
                return distance >= Self.peakSpacing
                    && candidate.power > Self.leakageMargin * stronger.power * Self.hannLeakage(Double(distance - 1))
            }
            if clear { accepted.append(candidate) }
        }
        return accepted.map { peak in
            let lobe = max(1, peak.bin - Self.lobeHalfWidth)...min(bins - 1, peak.bin + Self.lobeHalfWidth)
            var velocity = 0.0, acceleration = 0.0
            for k in lobe {
                velocity += velocityScale[k] * spectrum[k]
                acceleration += accelerationScale[k] * spectrum[k]
            }
            return SpectralPeak(frequencyHz: refinedBin(peak.bin, spectrum) * binWidth,
                                velocityRMS: velocity.squareRoot(), accelerationRMS: acceleration.squareRoot())
        }
    }

    /// The Hann window's power response `distance` bins from a tone, relative to its peak: the
    /// envelope of (sinc(x) / (1 − x²))² from its first zero at 2 bins, 1 inside the main lobe.
    static func hannLeakage(_ distance: Double) -> Double {
        guard distance >= 2 else { return 1 }
        let envelope = 1 / (Double.pi * distance * (distance * distance - 1))
        return envelope * envelope
    }

    /// The median bin power over the search range (a quickselect on a copy).
    private func median(of spectrum: UnsafeMutableBufferPointer<Double>) -> Double {
        let n = search.count
        for (index, k) in search.enumerated() { scratch[index] = spectrum[k] }
        let target = n / 2
        var low = 0, high = n - 1
        while low < high {
            let pivot = scratch[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while scratch[i] < pivot { i += 1 }
                while scratch[j] > pivot { j -= 1 }
                if i <= j {
                    scratch.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if target <= j {
                high = j
            } else if target >= i {
                low = i
            } else {
                break
            }
        }
        return scratch[target]
    }
}
