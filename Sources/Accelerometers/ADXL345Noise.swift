import Geometry

/// The noise an ADXL345 shows at rest, from its datasheet, for judging stillness.
///
/// The driver's own figures; everything above the driver asks ``ChipDescription``, whose noise
/// density and per-rate bandwidths reproduce ``expectedRMS(odrHz:)``.
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

    /// The bandwidth the noise density is integrated over at `odrHz`: half the rate, but never
    /// less than at 100 Hz, below which the datasheet's noise stays flat.
    public static func noiseBandwidthHz(odrHz: Double) -> Double {
        max(odrHz, 100) / 2
    }

    /// The output data rate of a `BW_RATE` rate code (0…15), in Hz; nil for other codes.
    public static func odrHz(rateCode: Int) -> Double? {
        guard (0...15).contains(rateCode) else { return nil }
        return 3200 / Double(1 << (15 - rateCode))
    }
}

