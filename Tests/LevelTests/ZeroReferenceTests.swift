import Foundation
import Geometry
import GeometryTesting
import Level
import Testing

private let up = Vector3(x: 0, y: 0, z: 1)

/// The attitude of `gravity` after `zero` is applied.
private func zeroed(_ zero: ZeroReference, _ gravity: Vector3) -> Attitude {
    Attitude(gravity: zero.corrected(gravity))
}

@Suite("ZeroReference")
struct ZeroReferenceTests {
    @Test("No reference from a zero or non-finite vector",
          arguments: [Vector3.zero, Vector3(x: .nan, y: 0, z: 1), Vector3(x: 0, y: -.infinity, z: 1)])
    func invalidReference(gravity: Vector3) {
        #expect(ZeroReference(referenceGravity: gravity) == nil)
    }

    @Test("The reference itself comes out as (0, 0, |g|), keeping its magnitude",
          arguments: [Vector3(x: 0.05, y: -0.03, z: 0.98), Vector3(x: 0, y: 0, z: 1), Vector3(x: 0, y: 0, z: -1),
                      Vector3(x: 1e-8, y: 0, z: -1.01), Vector3(x: 0.7, y: 0.7, z: 0.1), Vector3(x: -1, y: 0, z: 0)])
    func referenceReadsUp(reference: Vector3) throws {
        let zero = try #require(ZeroReference(referenceGravity: reference))
        #expect(zero.referenceGravity == reference)
        expectClose(zero.corrected(reference), Vector3(x: 0, y: 0, z: reference.magnitude), tolerance: 1e-12)
    }

    @Test("Zeroed at roll 3°, pitch −2°: that attitude reads 0; an extra 1° of roll reads ≈1°")
    func smallOffset() throws {
        let reference = Attitude.gravity(roll: deg(3), pitch: deg(-2))
        let zero = try #require(ZeroReference(referenceGravity: reference))
        expectClose(zeroed(zero, reference).tilt, degrees: 0)

        let rolled = Attitude.gravity(roll: deg(4), pitch: deg(-2))
        let attitude = zeroed(zero, rolled)
        // An extra degree of roll at 2° pitch moves gravity by 1° · cos 2°, just under 1°.
        expectClose(attitude.tilt, degrees: degreesBetween(reference, rolled), tolerance: 1e-9)
        expectClose(attitude.tilt, degrees: 1, tolerance: 1e-3)
        expectClose(attitude.roll, degrees: 1, tolerance: 1e-3)
        expectClose(attitude.pitch, degrees: 0, tolerance: 1e-2)
    }

    @Test("Zeroed far from level, the zero pose reads 0 and a 1° turn away reads 1°",
          arguments: [(30.0, 0.0), (0, 30), (30, 30), (-30, 20), (89, 0), (0, 89), (0, -89), (60, 60), (150, 10), (180, 0)])
    func largeOffset(rollDegrees: Double, pitchDegrees: Double) throws {
        let reference = Attitude.gravity(roll: deg(rollDegrees), pitch: deg(pitchDegrees))
        let zero = try #require(ZeroReference(referenceGravity: reference))
        expectClose(zeroed(zero, reference).tilt, degrees: 0)

        // Turning 1° about any axis perpendicular to gravity tips it by exactly 1°.
        let anyDirection = Vector3(x: 0.3, y: -0.8, z: 0.5)
        for axis in [reference.cross(anyDirection), reference.cross(Vector3(x: 1, y: 0, z: 0).cross(reference))] {
            let tipped = try #require(Rotation(axis: axis, angle: deg(1))).apply(reference)
            expectClose(zeroed(zero, tipped).tilt, degrees: 1, tolerance: 1e-9)
        }

        // An extra degree of roll, the way a person would nudge the device.
        let rolled = Attitude.gravity(roll: deg(rollDegrees + 1), pitch: deg(pitchDegrees))
        expectClose(zeroed(zero, rolled).tilt, degrees: degreesBetween(reference, rolled), tolerance: 1e-6)
    }

    @Test("Zeroing is a rotation, not a subtraction of angles: at 60°/60° they differ by degrees")
    func notAngleSubtraction() throws {
        let reference = Attitude.gravity(roll: deg(60), pitch: deg(60))
        let zero = try #require(ZeroReference(referenceGravity: reference))
        let reading = Attitude.gravity(roll: deg(70), pitch: deg(60))
        let trueTilt = degreesBetween(reference, reading)
        expectClose(zeroed(zero, reading).tilt, degrees: trueTilt, tolerance: 1e-9)
        // Subtracting roll and pitch would claim a 10° tilt; the real one is 5°.
        #expect(abs(trueTilt - 10) > 4)
    }

    @Test("Corrected readings keep their magnitude", arguments: [0.5, 1.0, 1.7])
    func keepsMagnitude(scale: Double) throws {
        let zero = try #require(ZeroReference(referenceGravity: Vector3(x: 0.2, y: 0.1, z: 0.9)))
        let g = Vector3(x: -0.3, y: 0.4, z: 0.85) * scale
        expectClose(zero.corrected(g).magnitude, g.magnitude, tolerance: 1e-12)
    }

    @Test("The magnitude of the reference does not matter, only its direction")
    func referenceMagnitudeIgnored() throws {
        let direction = Vector3(x: 0.1, y: 0.2, z: 0.95)
        let a = try #require(ZeroReference(referenceGravity: direction))
        let b = try #require(ZeroReference(referenceGravity: direction * 1.03))
        let g = Vector3(x: 0.3, y: 0, z: 0.9)
        expectClose(a.corrected(g), b.corrected(g), tolerance: 1e-12)
    }

    @Test("Codable stores only the reference gravity and rebuilds the same zero")
    func codableRoundTrip() throws {
        let zero = try #require(ZeroReference(referenceGravity: Vector3(x: 0.012, y: -0.034, z: 0.998)))
        let data = try JSONEncoder().encode(zero)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object.keys.sorted() == ["referenceGravity"])
        let decoded = try JSONDecoder().decode(ZeroReference.self, from: data)
        #expect(decoded == zero)
        #expect(decoded.corrected(Vector3(x: 0.1, y: 0, z: 1)) == zero.corrected(Vector3(x: 0.1, y: 0, z: 1)))
    }

    @Test("Decoding a zero reference vector fails instead of zeroing nothing")
    func decodingRejectsZeroVector() {
        let json = Data(#"{"referenceGravity":{"x":0,"y":0,"z":0}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ZeroReference.self, from: json) }
    }
}
