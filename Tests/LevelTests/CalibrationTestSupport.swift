import Geometry
import GeometryTesting
import Level
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Helpers for the calibration and stillness tests. `DomainMatrix` is the module's `Matrix3`, the one under test;
// GeometryTesting's `ReferenceMatrix` builds orientations independently of it.

typealias DomainMatrix = Geometry.Matrix3

extension SplitMix64 {
    /// A standard normal number (Box–Muller), reproducible from the seed.
    mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// A vector of independent normal numbers with these standard deviations per axis.
    mutating func gaussian(sigma: Vector3) -> Vector3 {
        Vector3(x: gaussian() * sigma.x, y: gaussian() * sigma.y, z: gaussian() * sigma.z)
    }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// A sensitivity within the ADXL345's typical errors: gains 0.99…1.035 (the +3.5 % at 3.3 V
    /// included), cross-axis ±1 %.
    mutating func typicalSensitivity() -> DomainMatrix {
        var m = DomainMatrix.zero
        for i in 0..<3 {
            for j in 0..<3 {
                m[i, j] = i == j ? uniform(0.99...1.035) : uniform(-0.01...0.01)
            }
        }
        return m
    }

    /// A zero-g offset within the datasheet: ±35 mg on x and y, ±40 mg on z.
    mutating func typicalOffset() -> Vector3 {
        Vector3(x: uniform(-0.035...0.035), y: uniform(-0.035...0.035), z: uniform(-0.04...0.04))
    }

    /// A random unit vector, uniform on the sphere.
    mutating func unitVector() -> Vector3 {
        while true {
            let v = Vector3(x: uniform(-1...1), y: uniform(-1...1), z: uniform(-1...1))
            if v.magnitude > 0.1, v.magnitude <= 1 { return v / v.magnitude }
        }
    }
}

/// What a sensor with sensitivity `a` and offset `b` reads under true gravity `g`.
func sensorReading(_ a: DomainMatrix, _ b: Vector3, _ g: Vector3) -> Vector3 {
    a * g + b
}

/// The six face poses of a sensor `raw = a·g + b`, with `noise` added to each mean.
func facePoses(
    _ a: DomainMatrix, _ b: Vector3, meanNoise: Vector3 = .zero, random: inout SplitMix64
) -> [SixPointFit.Pose] {
    Face.allCases.map { face in
        SixPointFit.Pose(face: face, mean: sensorReading(a, b, face.gravity) + random.gaussian(sigma: meanNoise))
    }
}

/// Runs `body` expecting it to throw an error of type `E`, and returns that error.
func expectThrows<E: Error>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> E? {
    do {
        try body()
        Issue.record("expected \(E.self) to be thrown", sourceLocation: sourceLocation)
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
