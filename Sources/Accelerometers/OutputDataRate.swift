/// An ADXL345 output data rate, BW_RATE bits 3:0: ODR = 3200 / 2^(15 − code) Hz.
///
/// A chip fact, and its one owner, beside the driver: everything above it reads the rates from
/// ``ChipDescription/rates``.
public struct OutputDataRate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The BW_RATE rate code, 0…15.
    public let code: UInt8

    /// Every rate the chip offers, 0.10 Hz to 3200 Hz.
    public static let all: [OutputDataRate] = (0...15).map { OutputDataRate(uncheckedCode: UInt8($0)) }
    /// The rates Plumb accepts for sampling: 6.25 Hz to 3200 Hz.
    public static let supported: [OutputDataRate] = all.filter { $0.code >= 0x06 }
    /// The power-on rate, 100 Hz (code 0x0A).
    public static let powerOn = OutputDataRate(uncheckedCode: 0x0A)

    /// Highest ODR the datasheet says I²C sustains at 100 kHz (the Pi's default bus speed).
    public static let maxSustainedAt100kHz = OutputDataRate(uncheckedCode: 0x0B)  // 200 Hz
    /// Highest ODR the datasheet says I²C sustains at 400 kHz.
    public static let maxSustainedAt400kHz = OutputDataRate(uncheckedCode: 0x0D)  // 800 Hz

    private init(uncheckedCode code: UInt8) { self.code = code }

    /// Fails for codes above 15.
    public init?(code: UInt8) {
        guard code <= 15 else { return nil }
        self.code = code
    }

    /// The supported rate equal to `hertz`, or nil when the chip has no such rate.
    public init?(hertz: Double) {
        guard let rate = Self.supported.first(where: { abs($0.hertz - hertz) < 0.001 }) else { return nil }
        self = rate
    }

    /// The rate in hertz.
    public var hertz: Double { 3200 / Double(1 << (15 - Int(code))) }

    /// The rate as a person writes it: `100`, `6.25`, `3200`.
    public var description: String {
        hertz == hertz.rounded() ? String(Int(hertz)) : String(hertz)
    }

    public static func < (a: Self, b: Self) -> Bool { a.code < b.code }
}
