/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast generator whose every 64-bit seed gives
/// a good stream, the same on every machine. For the simulated chip's noise and parts, seeded
/// tests and benchmarks, where a seed must name one run; not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
