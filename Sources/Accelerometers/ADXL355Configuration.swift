/// How the ADXL355 is set up: RANGE and FILTER, and how often Plumb drains it.
public struct ADXL355Configuration: Sendable, Hashable {
    /// Full-scale range; ±2.048 g gives the finest resolution (3.9 µg/LSB), all a level needs.
    public var range: ADXL355Range = .g2
    /// ODR_LPF code 0…10: 4000 / 2^code Hz. The default, 5, is 125 Hz.
    public var rateCode: UInt8 = 5
    /// Sample sets a sampling loop lets gather between drains (1…32).
    public var watermark = 12

    public init() {}

    /// The output data rate in Hz.
    public var rateHz: Double { ADXL355Filter.rateHz(code: rateCode) ?? 0 }

    /// FILTER (0x28): the rate, high-pass off.
    public var filter: UInt8 { rateCode & ADXL355Filter.odrMask }

    /// RANGE (0x2C) with the range bits set and the rest of `current` kept (I2C_HS, INT_POL).
    public func rangeRegister(keeping current: UInt8) -> UInt8 {
        (current & ~ADXL355Range.rangeMask) | range.rawValue
    }
}
