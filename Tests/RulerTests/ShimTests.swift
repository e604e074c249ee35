#if canImport(Glibc)
import GeometryTesting
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Ruler
import Testing

/// A point in the machine's plan (x to the front, y to the left) with a height.
private struct Point {
    var x: Double
    var y: Double
    var z: Double

    static func - (a: Point, b: Point) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
}

/// The slope (rise over run) of the plane through three points, and that plane's height at (x, y).
private func plane(through a: Point, _ b: Point, _ c: Point) -> (slope: Double, height: (Double, Double) -> Double) {
    let normal = (b - a).cross(c - a)
    let slope = (normal.x * normal.x + normal.y * normal.y).squareRoot() / abs(normal.z)
    return (slope, { x, y in a.z - (normal.x * (x - a.x) + normal.y * (y - a.y)) / normal.z })
}

@Suite("Shims that level a machine")
struct ShimTests {
    @Test("Raising every foot by its shim puts all feet in one horizontal plane, for random tilts, layouts and units")
    func shimsLevelThePlane() throws {
        var random = SplitMix64(seed: 0x5EED_0004)
        for _ in 0..<400 {
            let roll = Angle(degrees: Double.random(in: -20...20, using: &random))
            let pitch = Angle(degrees: Double.random(in: -20...20, using: &random))
            // Only gravity's direction counts, so any magnitude near 1 g must do.
            let gravity = Attitude.gravity(roll: roll, pitch: pitch) * Double.random(in: 0.9...1.1, using: &random)
            let tilted = try SurfaceTilt(levelGravity: gravity, standardError: .zero)
            let inputUnit = LengthUnit.allCases.randomElement(using: &random) ?? .m
            let unit = LengthUnit.allCases.randomElement(using: &random) ?? .mm
            let length = Length(Double.random(in: 0.2...5, using: &random), .m).converted(to: inputUnit)
            let width = Length(Double.random(in: 0.2...5, using: &random), .m).converted(to: inputUnit)
            for layout in FootLayout.allCases {
                let plan = tilted.shims(length: length, width: width, feet: layout, in: unit)
                #expect(plan.feet.count == layout.rawValue)
                // The tilted surface, worked out from its normal (−gx, −gy, gz) rather than by the
                // plan's own formula: n·p = 0.
                let normal = Vector3(x: -gravity.x, y: -gravity.y, z: gravity.z)
                let shimmed = plan.feet.map { foot -> Point in
                    let surface = -(normal.x * foot.x.value + normal.y * foot.y.value) / normal.z
                    return Point(x: foot.x.value, y: foot.y.value, z: surface + foot.shim.value)
                }
                let size = length.converted(to: unit).value + width.converted(to: unit).value
                let fitted = plane(through: shimmed[0], shimmed[1], shimmed[2])
                let originalSlope = tan(tilted.attitude.tilt.radians)
                #expect(fitted.slope <= 1e-9 * (1 + originalSlope), "\(roll.degrees)° \(pitch.degrees)° \(layout)")
                if layout == .four {
                    let fourth = shimmed[3]
                    expectClose(fitted.height(fourth.x, fourth.y), fourth.z, tolerance: 1e-9 * size * (1 + originalSlope))
                }
                #expect(plan.feet.allSatisfy { $0.shim.value >= 0 && $0.shim.unit == unit })
                let highest = try #require(plan.feet.first { $0.foot == plan.highestFoot })
                #expect(highest.shim.value == 0)
                #expect(plan.largestShim.value == plan.feet.map(\.shim.value).max())
            }
        }
    }

    @Test("Four feet at the corners, three with one at the front, in the documented order and positions")
    func footPositions() throws {
        let flat = try surface(roll: 0, pitch: 0)
        let four = flat.shims(length: Length(1.2, .m), width: Length(0.8, .m), feet: .four, in: .mm)
        #expect(four.feet.map(\.foot) == ["front_left", "front_right", "rear_left", "rear_right"])
        #expect(four.feet.map(\.x.value) == [600, 600, -600, -600])
        #expect(four.feet.map(\.y.value) == [400, -400, 400, -400])
        let three = flat.shims(length: Length(1.2, .m), width: Length(0.8, .m), feet: .three, in: .mm)
        #expect(three.feet.map(\.foot) == ["front", "rear_left", "rear_right"])
        #expect(three.feet.map(\.x.value) == [600, -600, -600])
        #expect(three.feet.map(\.y.value) == [0, 400, -400])
    }

    @Test("Level: no shims, and the first foot is the highest")
    func level() throws {
        let plan = try surface(roll: 0, pitch: 0, noise: 0.001)
            .shims(length: Length(1, .m), width: Length(1, .m), feet: .four, in: .mm)
        #expect(plan.feet.allSatisfy { $0.shim.value == 0 })
        #expect(plan.highestFoot == "front_left")
        #expect(plan.largestShim.value == 0)
    }

    @Test("Roll +1° lifts the left side: the right feet get width·tan 1°")
    func rollLiftsTheLeft() throws {
        let plan = try surface(roll: 1, pitch: 0).shims(length: Length(1.2, .m), width: Length(800, .mm), feet: .four, in: .mm)
        #expect(plan.highestFoot == "front_left")
        let expected = 800 * tan(Angle(degrees: 1).radians)
        let shims = Dictionary(uniqueKeysWithValues: plan.feet.map { ($0.foot, $0.shim.value) })
        #expect(shims["front_left"] == 0)
        expectClose(shims["rear_left"] ?? .nan, 0, tolerance: 1e-12)
        expectClose(shims["front_right"] ?? .nan, expected, tolerance: 1e-9)
        expectClose(shims["rear_right"] ?? .nan, expected, tolerance: 1e-9)
        expectClose(plan.largestShim.value, expected, tolerance: 1e-9)
    }

    @Test("Pitch +1° tips the front down: the front feet get length·(gx/gz)")
    func pitchLowersTheFront() throws {
        let tilted = try surface(roll: 0, pitch: 1)
        let plan = tilted.shims(length: Length(48, .in), width: Length(24, .in), feet: .three, in: .in)
        #expect(plan.highestFoot == "rear_left")
        let front = try #require(plan.feet.first)
        expectClose(front.shim.value, 48 * tan(Angle(degrees: 1).radians), tolerance: 1e-9)
    }

    @Test("The same plan in any unit is the same distances")
    func unitsAgree() throws {
        let tilted = try surface(roll: 0.7, pitch: -0.4, noise: 0.0005)
        let millimetres = tilted.shims(length: Length(1.5, .m), width: Length(0.9, .m), feet: .four, in: .mm)
        let inches = tilted.shims(length: Length(1.5, .m), width: Length(0.9, .m), feet: .four, in: .in)
        for (mm, inch) in zip(millimetres.feet, inches.feet) {
            expectClose(mm.shim.value, inch.shim.value * 25.4, tolerance: 1e-9)
            expectClose(mm.uncertainty.value, inch.uncertainty.value * 25.4, tolerance: 1e-9)
        }
    }

    @Test("Shim uncertainty is 0 without noise, 0 for the highest foot, and grows with the standard error")
    func uncertainty() throws {
        let quiet = try surface(roll: 1, pitch: 1).shims(length: Length(1, .m), width: Length(1, .m), feet: .four, in: .mm)
        #expect(quiet.feet.allSatisfy { $0.uncertainty.value == 0 })
        let noisy = try surface(roll: 1, pitch: 1, noise: 0.001)
            .shims(length: Length(1, .m), width: Length(1, .m), feet: .four, in: .mm)
        let noisier = try surface(roll: 1, pitch: 1, noise: 0.003)
            .shims(length: Length(1, .m), width: Length(1, .m), feet: .four, in: .mm)
        for (one, three) in zip(noisy.feet, noisier.feet) {
            if one.foot == noisy.highestFoot {
                #expect(one.uncertainty.value == 0)
            } else {
                #expect(one.uncertainty.value > 0)
                expectClose(three.uncertainty.value, 3 * one.uncertainty.value, tolerance: 1e-9)
            }
        }
        // Rear left is highest; the front right shim spans the diagonal: about 2·√2 m·σ/gz at k = 2.
        #expect(noisy.highestFoot == "rear_left")
        let diagonal = try #require(noisy.feet.first { $0.foot == "front_right" })
        expectClose(diagonal.uncertainty.value, 2 * 1000 * 0.001 * 2.0.squareRoot(), tolerance: 0.1)
    }
}
