/// The frequency band the velocity is measured over: ISO 10816/20816's 10 Hz up to 1000 Hz, cut
/// to what the output data rate can honestly resolve.
///
/// The top is `min(1000, ODR / 2.56)`: 2.56 samples per cycle is the usual ratio of sample rate to
/// usable bandwidth, leaving room for the anti-aliasing roll-off below Nyquist. At 100 Hz ODR the
/// band is 10–39.06 Hz, at 800 Hz (the most a 400 kHz I²C bus sustains) 10–312.5 Hz; the whole
/// ISO band needs 2560 Hz, so the ADXL345's 3200 Hz, which only SPI can carry.
public struct VelocityBand: Sendable, Hashable {
    /// The lowest frequency counted, Hz.
    public var low: Double
    /// The highest frequency counted, Hz.
    public var high: Double

    /// ISO 10816's lower edge for machines running above 600 rpm.
    public static let isoLow = 10.0
    /// ISO 10816's upper edge.
    public static let isoHigh = 1000.0
    /// Samples per cycle at the top of the usable band.
    public static let samplesPerCycle = 2.56

    public init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    /// The band at `rateHz`; nil when the rate cannot reach above 10 Hz at all (below 25.6 Hz).
    public init?(rateHz: Double) {
        guard rateHz.isFinite, rateHz > 0 else { return nil }
        let high = min(Self.isoHigh, rateHz / Self.samplesPerCycle)
        guard high > Self.isoLow else { return nil }
        self.init(low: Self.isoLow, high: high)
    }

    /// Whether the band is the whole of ISO's 10–1000 Hz.
    public var isFullISOBand: Bool { low <= Self.isoLow && high >= Self.isoHigh }
}
