import PlumbDomain

/// The simulator's noise source for other simulated chips: three independent N(0, 1) values per
/// sample number, from a seed, the same however the samples are read (see `GaussianNoise`).
///
/// Public so that a second chip's simulator imports the one generator instead of a copy.
public struct SeededGaussianNoise: Sendable {
    private let generator: GaussianNoise

    public init(seed: UInt64) {
        generator = GaussianNoise(seed: seed)
    }

    /// N(0, 1) on x, y and z for sample `serial`.
    public func normals(forSample serial: UInt64) -> Vector3 {
        generator.normals(forSample: serial)
    }
}
