import Geometry
/// How the ADXL345 is set up: the contents of DATA_FORMAT, BW_RATE and FIFO_CTL.
public struct ADXL345Configuration: Sendable, Hashable {
    /// Full-scale range. Plumb's default is ±16 g: in full resolution the scale is 256 LSB/g at
    /// every range, so the widest range costs no resolution and machine vibration can't clip.
    public var range: ADXL345Range = .g16
    /// Full resolution (256 LSB/g at every range) rather than 10-bit output.
    public var fullResolution = true
    /// Output data rate.
    public var rate: OutputDataRate = .powerOn
    /// Reduced-power operation, at somewhat higher noise. Self-test requires it off.
    public var lowPower = false
    /// FIFO mode; Plumb streams so the newest 32 samples are always held.
    public var fifoMode: FIFOMode = .stream
    /// FIFO watermark in samples (1…31): a sampling loop drains about this often.
    public var watermark = 16
    /// Left-justified (MSB) output. Plumb sets it off deliberately; decoding honours either.
    public var leftJustified = false
    /// The self-test force.
    public var selfTest = false

    public init() {}

    /// DATA_FORMAT (0x31).
    public var dataFormat: UInt8 {
        var value = range.rawValue
        if fullResolution { value |= DataFormat.fullResolution }
        if leftJustified { value |= DataFormat.justify }
        if selfTest { value |= DataFormat.selfTest }
        return value
    }

    /// BW_RATE (0x2C).
    public var bwRate: UInt8 {
        rate.code | (lowPower ? BWRate.lowPower : 0)
    }

    /// FIFO_CTL (0x38).
    public var fifoCtl: UInt8 {
        (fifoMode.rawValue << FIFOCtl.modeShift) | (UInt8(clamping: max(0, min(31, watermark))) & FIFOCtl.samplesMask)
    }

    /// How samples in this configuration decode.
    public var format: ADXL345SampleFormat {
        ADXL345SampleFormat(range: range, fullResolution: fullResolution, leftJustified: leftJustified)
    }
}

/// How raw output decodes into g; derived from DATA_FORMAT.
public struct ADXL345SampleFormat: Sendable, Hashable {
    /// Significant bits of each axis, sign included.
    public let bits: Int
    /// Nominal LSB per g.
    public let countsPerG: Double
    /// Whether data is MSB-aligned.
    public let leftJustified: Bool
    /// The most negative and most positive counts the range represents.
    public let countLimits: ClosedRange<Int>

    public init(range: ADXL345Range, fullResolution: Bool, leftJustified: Bool) {
        bits = range.outputBits(fullResolution: fullResolution)
        countsPerG = range.countsPerG(fullResolution: fullResolution)
        self.leftJustified = leftJustified
        countLimits = -(1 << (bits - 1))...((1 << (bits - 1)) - 1)
    }

    /// One axis from its two data bytes (little-endian, two's complement).
    ///
    /// Values at the edge of the range are reported as clipped: beyond it the chip's output
    /// rolls over, so anything at the rail is held there rather than trusted.
    @inlinable
    public func counts(low: UInt8, high: UInt8) -> (value: Int, clipped: Bool) {
        let raw = Int16(bitPattern: UInt16(low) | UInt16(high) << 8)
        let shift = Int16(16 - bits)
        // Left-justified data shifts down with its sign; right-justified data is sign-extended
        // by the chip, and re-extending from `bits` makes stray high bits harmless.
        let value = leftJustified ? Int(raw >> shift) : Int((raw << shift) >> shift)
        let clamped = min(max(value, countLimits.lowerBound), countLimits.upperBound)
        return (clamped, clamped == countLimits.lowerBound || clamped == countLimits.upperBound)
    }
}
