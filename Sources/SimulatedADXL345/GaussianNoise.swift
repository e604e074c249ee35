#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// Standard-normal noise addressed by sample number rather than drawn in sequence.
///
/// Sample n's noise depends only on the seed and n, so the output is the same however a driver
/// spaces its reads, and samples skipped after a long gap cost nothing: they are never drawn.
struct GaussianNoise: Sendable {
    let seed: UInt64

    /// Three independent N(0, 1) values for sample `serial` (x, y, z), by Box–Muller.
    func normals(forSample serial: UInt64) -> Vector3 {
        // Hash seed and serial into a stream seed first: nearby serials then start streams
        // that share nothing.
        var mixer = SplitMix64(seed: seed ^ (serial &* 0xD1B5_4A32_D192_ED03))
        var stream = SplitMix64(seed: mixer.next())
        let (a, b) = Self.boxMuller(&stream)
        let (c, _) = Self.boxMuller(&stream)
        return Vector3(x: a, y: b, z: c)
    }

    private static func boxMuller(_ generator: inout SplitMix64) -> (Double, Double) {
        let u1 = 1 - generator.nextUnit()  // (0, 1]: the logarithm stays finite
        let u2 = generator.nextUnit()
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        return (radius * cos(angle), radius * sin(angle))
    }
}
