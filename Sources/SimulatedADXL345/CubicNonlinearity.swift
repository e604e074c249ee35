import Geometry

/// The simulators' nonlinearity model, written once: a cubic bow per axis, `n` of full scale at
/// full scale, falling with the cube below it. An axis sensing `a` g on a range of ±FS g reads
/// `a + n · FS · (a / FS)³`. Datasheets give nonlinearity as a bound over the whole range; a
/// level only ever senses ±1 g, where the cubic makes it tiny, which is the point of modelling
/// it this way rather than as a straight percentage.
public enum CubicNonlinearity {
    /// `force` (g) bowed by `nonlinearity` (fractions of full scale per axis) on a range of
    /// ±`fullScale` g; `force` itself when the nonlinearity is zero.
    public static func bow(_ force: Vector3, by nonlinearity: Vector3, fullScale: Double) -> Vector3 {
        guard nonlinearity != .zero, fullScale > 0, fullScale.isFinite else { return force }
        // n · FS · (a / FS)³ = n · a³ / FS².
        let scale = 1 / (fullScale * fullScale)
        return force + Vector3(x: nonlinearity.x * force.x * force.x * force.x,
                               y: nonlinearity.y * force.y * force.y * force.y,
                               z: nonlinearity.z * force.z * force.z * force.z) * scale
    }
}
