/// The measurement range, DATA_FORMAT bits 1:0.
public enum ADXL345Range: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case g2 = 0, g4 = 1, g8 = 2, g16 = 3

    /// The full-scale value in g: 2, 4, 8 or 16.
    public var gravities: Int { 2 << Int(rawValue) }

    /// The range for a full scale of `gravities` g (2, 4, 8 or 16).
    public init?(gravities: Int) {
        guard let range = Self.allCases.first(where: { $0.gravities == gravities }) else { return nil }
        self = range
    }

    /// Bits of signed output: 10 in 10-bit mode; in full resolution 10, 11, 12 or 13 so that the
    /// scale stays 256 LSB/g at every range.
    public func outputBits(fullResolution: Bool) -> Int {
        fullResolution ? 10 + Int(rawValue) : 10
    }

    /// Nominal LSB per g: 256 in full resolution; in 10-bit mode 256 at ±2 g, halving per range step.
    public func countsPerG(fullResolution: Bool) -> Double {
        fullResolution ? 256 : 256 / Double(1 << Int(rawValue))
    }

    public var description: String { "±\(gravities) g" }
}
