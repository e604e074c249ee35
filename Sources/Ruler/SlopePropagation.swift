import Geometry

/// First-order propagation of the gravity reading's noise into slopes (rise over run).
///
/// Worked with exact partial derivatives rather than numerical ones, so there is no step size to
/// choose; the tests check them against central differences. Each axis's noise is taken as
/// independent: σ² = Σ (∂f/∂gᵢ · σᵢ)².
enum SlopePropagation {
    /// The standard error of `tan(angle)` for `axis`; gz must be positive.
    static func standardError(of axis: RiseAxis, gravity g: Vector3, noise: Vector3) -> Double {
        switch axis {
        case .roll:
            // tan(roll) = gy / gz.
            return combine(Vector3(x: 0, y: 1 / g.z, z: -g.y / (g.z * g.z)), noise)
        case .pitch:
            // tan(pitch) = −gx / q, q = √(gy² + gz²).
            let q = (g.y * g.y + g.z * g.z).squareRoot()
            let q3 = q * q * q
            return combine(Vector3(x: -1 / q, y: g.x * g.y / q3, z: g.x * g.z / q3), noise)
        case .steepest:
            // tan(tilt) = r / gz, r = √(gx² + gy²).
            let r = (g.x * g.x + g.y * g.y).squareRoot()
            guard r > 0 else {
                // Exactly level, r has no derivative: the uphill direction is undefined. The
                // first-order value averaged over every direction is the fair stand-in.
                return ((noise.x * noise.x + noise.y * noise.y) / 2).squareRoot() / g.z
            }
            return combine(Vector3(x: g.x / (r * g.z), y: g.y / (r * g.z), z: -r / (g.z * g.z)), noise)
        }
    }

    /// The standard error of the height difference `dx·gx/gz + dy·gy/gz` between two points
    /// `dx`, `dy` apart on the surface; gz must be positive.
    static func standardError(ofHeightAcross dx: Double, _ dy: Double, gravity g: Vector3, noise: Vector3) -> Double {
        let gz2 = g.z * g.z
        return combine(Vector3(x: dx / g.z, y: dy / g.z, z: -(dx * g.x + dy * g.y) / gz2), noise)
    }

    private static func combine(_ gradient: Vector3, _ noise: Vector3) -> Double {
        let x = gradient.x * noise.x, y = gradient.y * noise.y, z = gradient.z * noise.z
        return (x * x + y * y + z * z).squareRoot()
    }
}
