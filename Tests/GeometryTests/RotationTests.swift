import Geometry
import GeometryTesting
import Testing

private let xAxis = Vector3(x: 1, y: 0, z: 0)
private let yAxis = Vector3(x: 0, y: 1, z: 0)
private let zAxis = Vector3(x: 0, y: 0, z: 1)

/// Checks that `rotation` maps the basis to a right-handed orthonormal basis.
private func expectProperRotation(_ rotation: Rotation, sourceLocation: SourceLocation = #_sourceLocation) {
    let images = [xAxis, yAxis, zAxis].map(rotation.apply)
    for image in images {
        expectClose(image.magnitude, 1, tolerance: 1e-12, "length", sourceLocation: sourceLocation)
    }
    expectClose(images[0].dot(images[1]), 0, tolerance: 1e-12, "x·y", sourceLocation: sourceLocation)
    expectClose(images[0].dot(images[2]), 0, tolerance: 1e-12, "x·z", sourceLocation: sourceLocation)
    expectClose(images[1].dot(images[2]), 0, tolerance: 1e-12, "y·z", sourceLocation: sourceLocation)
    expectClose(images[0].cross(images[1]).dot(images[2]), 1, tolerance: 1e-12, "det", sourceLocation: sourceLocation)
}

/// Direction pairs for `aligning`: ordinary, equal, opposite and nearly opposite.
private let pairs: [(Vector3, Vector3)] = [
    (zAxis, Vector3(x: 0.1, y: -0.2, z: 0.97)),
    (Vector3(x: 0.3, y: 0.4, z: 0.5), Vector3(x: -2, y: 1, z: 0.1)),
    (xAxis, yAxis),
    (zAxis, zAxis),
    (Vector3(x: 1, y: 2, z: 3), Vector3(x: 2, y: 4, z: 6)),
    (zAxis, -zAxis),
    (xAxis, -xAxis),
    (yAxis, -yAxis),
    (Vector3(x: 1, y: 2, z: 3), Vector3(x: -1, y: -2, z: -3)),
    (zAxis, Vector3(x: 1e-9, y: 0, z: -1)),
    (zAxis, Vector3(x: 1e-6, y: -2e-6, z: -1)),
    (Vector3(x: 0.6, y: 0, z: 0.8), Vector3(x: -0.6, y: 1e-7, z: -0.8)),
    (Vector3(x: 1e-3, y: 0, z: 1), Vector3(x: 0, y: 0, z: 1e3)),
]

@Suite("Rotation")
struct RotationTests {
    @Test("identity leaves vectors alone and turns by 0°")
    func identity() {
        let v = Vector3(x: 1, y: -2, z: 3)
        #expect(Rotation.identity.apply(v) == v)
        #expect(Rotation.identity.angle == .zero)
    }

    @Test("Turns follow the right-hand rule: 90° about z takes x to y, about x takes y to z")
    func rightHanded() throws {
        expectClose(try #require(Rotation(axis: zAxis, angle: deg(90))).apply(xAxis), yAxis)
        expectClose(try #require(Rotation(axis: xAxis, angle: deg(90))).apply(yAxis), zAxis)
        expectClose(try #require(Rotation(axis: yAxis, angle: deg(90))).apply(zAxis), xAxis)
    }

    @Test("The axis length does not matter, and the turn reports its angle",
          arguments: [0.0, 1e-7, 0.5, 30, 90, 179.9, 180])
    func axisAngle(degrees: Double) throws {
        let axis = Vector3(x: 1, y: 2, z: -2)
        let rotation = try #require(Rotation(axis: axis, angle: deg(degrees)))
        expectProperRotation(rotation)
        #expect(try rotation == #require(Rotation(axis: axis * 7, angle: deg(degrees))))
        expectClose(rotation.angle, degrees: degrees, tolerance: 1e-9)
        expectClose(rotation.apply(axis), axis, tolerance: 1e-12)
    }

    @Test("Rotation(axis:angle:) is nil for a zero or non-finite axis or angle")
    func invalidAxisAngle() {
        #expect(Rotation(axis: .zero, angle: deg(1)) == nil)
        #expect(Rotation(axis: Vector3(x: .nan, y: 0, z: 1), angle: deg(1)) == nil)
        #expect(Rotation(axis: zAxis, angle: Angle(radians: .infinity)) == nil)
    }

    @Test("inverse undoes the rotation from either side")
    func inverse() throws {
        let rotation = try #require(Rotation(axis: Vector3(x: 0.2, y: -1, z: 0.4), angle: deg(37)))
        let v = Vector3(x: 0.3, y: 0.1, z: -0.9)
        expectClose(rotation.inverse.apply(rotation.apply(v)), v)
        expectClose(rotation.apply(rotation.inverse.apply(v)), v)
        expectClose((rotation * rotation.inverse).angle, degrees: 0, tolerance: 1e-9)
    }

    @Test("a * b applies b first; a.followed(by: b) applies a first")
    func compositionOrder() throws {
        let a = try #require(Rotation(axis: zAxis, angle: deg(90)))
        let b = try #require(Rotation(axis: xAxis, angle: deg(90)))
        // b takes y to z, which a leaves; a takes y to −x, which b leaves.
        expectClose((a * b).apply(yAxis), zAxis)
        expectClose(a.followed(by: b).apply(yAxis), -xAxis)
        let v = Vector3(x: 0.3, y: -0.5, z: 0.8)
        expectClose((a * b).apply(v), a.apply(b.apply(v)))
        expectProperRotation(a * b)
    }

    @Test("Two turns about the same axis add up")
    func sameAxisAdds() throws {
        let axis = Vector3(x: 1, y: 1, z: 0)
        let sum = try #require(Rotation(axis: axis, angle: deg(20))) * #require(Rotation(axis: axis, angle: deg(30)))
        expectClose(sum.angle, degrees: 50)
    }

    @Test("aligning turns from onto to, keeps lengths, and is the smallest turn",
          arguments: pairs.indices)
    func aligning(index: Int) throws {
        let (from, to) = pairs[index]
        let rotation = try #require(Rotation.aligning(from, to: to))
        expectProperRotation(rotation)
        let image = rotation.apply(from)
        expectClose(image.magnitude, from.magnitude, tolerance: 1e-12 * from.magnitude)
        expectClose(image / image.magnitude, to / to.magnitude, tolerance: 1e-12)
        expectClose(rotation.angle, degrees: degreesBetween(from, to), tolerance: 1e-6)
        // The smallest turn is about from × to, so that direction is left in place.
        let axis = from.cross(to)
        if let unitAxis = axis.normalized, axis.magnitude > 1e-3 * from.magnitude * to.magnitude {
            expectClose(rotation.apply(unitAxis), unitAxis, tolerance: 1e-12)
        }
    }

    @Test("Opposite directions give a half turn")
    func antiParallelIsHalfTurn() throws {
        for axis in [xAxis, yAxis, zAxis, Vector3(x: 1, y: 2, z: 3)] {
            let rotation = try #require(Rotation.aligning(axis, to: -axis))
            expectClose(rotation.angle, degrees: 180, tolerance: 1e-9)
        }
    }

    @Test("aligning is nil for zero or non-finite vectors",
          arguments: [Vector3.zero, Vector3(x: .nan, y: 0, z: 1), Vector3(x: 0, y: .infinity, z: 1)])
    func aligningInvalid(bad: Vector3) {
        #expect(Rotation.aligning(bad, to: zAxis) == nil)
        #expect(Rotation.aligning(zAxis, to: bad) == nil)
    }
}
