import Geometry

/// The simulator's standard-normal noise, addressed by sample number (``GaussianNoise``), for
/// other simulated chips: the same seed and serial give the same three values in every
/// simulator, and a simulator of another chip imports this rather than keeping its own copy.
public struct SeededNormals: Sendable {
    private let noise: GaussianNoise

    public init(seed: UInt64) {
        noise = GaussianNoise(seed: seed)
    }

    /// Three independent N(0, 1) values for sample `serial` (x, y, z).
    public func normals(forSample serial: UInt64) -> Vector3 {
        noise.normals(forSample: serial)
    }
}
