#if canImport(Glibc)
import GeometryTesting
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Ruler
import Testing

/// The surface a level at `roll` and `pitch` (degrees) reads, with `noise` g of standard error
/// on each axis.
func surface(roll: Double, pitch: Double, noise: Double = 0) throws -> SurfaceTilt {
    try SurfaceTilt(levelGravity: Attitude.gravity(roll: Angle(degrees: roll), pitch: Angle(degrees: pitch)),
                    standardError: Vector3(x: noise, y: noise, z: noise))
}

@Suite("Rise over a span")
struct RiseTests {
    @Test("Each axis: h = span·tan(angle), reported positive, the high end naming the sign",
          arguments: [
              (1.0, 0.0, RiseAxis.roll, HighEnd.plusY, 1.0), (-2.0, 0.0, .roll, .minusY, -2.0),
              (0.0, 1.0, .pitch, .minusX, 1.0), (0.0, -1.5, .pitch, .plusX, -1.5),
              (0.0, -3.0, .steepest, .plusX, 3.0), (0.0, 3.0, .steepest, .minusX, 3.0),
              (4.0, 0.0, .steepest, .plusY, 4.0), (-4.0, 0.0, .steepest, .minusY, 4.0),
          ])
    func knownAngles(roll: Double, pitch: Double, axis: RiseAxis, highEnd: HighEnd, degrees: Double) throws {
        let rise = try surface(roll: roll, pitch: pitch).rise(over: Length(1.2, .m), axis: axis, in: .mm)
        expectClose(rise.angle.degrees, degrees, tolerance: 1e-12)
        expectClose(rise.rise.value, 1200 * tan(abs(degrees) * .pi / 180), tolerance: 1e-9)
        #expect(rise.rise.unit == .mm)
        #expect(rise.highEnd == highEnd)
        #expect((rise.azimuth != nil) == (axis == .steepest))
    }

    @Test("Pitch +1° (+x tipped down): the −x end is high by span·tan 1°")
    func pitchOneDegree() throws {
        let rise = try surface(roll: 0, pitch: 1).rise(over: Length(1, .m), axis: .pitch, in: .mm)
        #expect(rise.highEnd == .minusX)
        expectClose(rise.rise.value, 1000 * tan(Angle(degrees: 1).radians), tolerance: 1e-10)
        expectClose(rise.rise.value, 17.455064928217585, tolerance: 1e-9)
    }

    @Test("The span's unit and the result's are independent")
    func units() throws {
        let tilted = try surface(roll: 0.5, pitch: 0)
        let inMillimetres = tilted.rise(over: Length(1, .ft), axis: .roll, in: .mm).rise.value
        let inInches = tilted.rise(over: Length(12, .in), axis: .roll, in: .in).rise.value
        expectClose(inMillimetres, inInches * 25.4, tolerance: 1e-12)
    }

    @Test("Steepest: the tilt, its uphill azimuth from +x toward +y, and the dominant end")
    func steepest() throws {
        // Uphill is toward +x and +y: gx > 0, gy > 0, with x larger.
        let tilted = try SurfaceTilt(levelGravity: Vector3(x: 0.02, y: 0.01, z: 0.9997), standardError: .zero)
        let rise = tilted.rise(over: Length(1, .m), axis: .steepest, in: .m)
        #expect(rise.highEnd == .plusX)
        expectClose(rise.azimuth?.radians ?? .nan, atan2(0.01, 0.02), tolerance: 1e-15)
        expectClose(rise.rise.value, (0.02 * 0.02 + 0.01 * 0.01).squareRoot() / 0.9997, tolerance: 1e-15)
        #expect(rise.angle == tilted.attitude.tilt)
        let westward = try SurfaceTilt(levelGravity: Vector3(x: 0.01, y: -0.02, z: 1), standardError: .zero)
        #expect(westward.rise(over: Length(1, .m), axis: .steepest, in: .m).highEnd == .minusY)
    }

    @Test("Exactly level: no rise, no high end, no azimuth", arguments: RiseAxis.allCases)
    func level(axis: RiseAxis) throws {
        let rise = try surface(roll: 0, pitch: 0).rise(over: Length(1, .m), axis: axis, in: .mm)
        #expect(rise.rise.value == 0)
        #expect(rise.highEnd == nil)
        #expect(rise.azimuth == nil)
    }

    @Test("Steepest is never less than roll or pitch alone")
    func steepestBoundsTheAxes() throws {
        var random = SplitMix64(seed: 0x5EED_0002)
        for _ in 0..<200 {
            let tilted = try surface(roll: Double.random(in: -30...30, using: &random),
                                     pitch: Double.random(in: -30...30, using: &random))
            let steepest = tilted.rise(over: Length(1, .m), axis: .steepest, in: .mm).rise.value
            #expect(steepest >= tilted.rise(over: Length(1, .m), axis: .roll, in: .mm).rise.value - 1e-9)
        }
    }

    @Test("Uncertainty is 0 without noise and grows in proportion to the standard error",
          arguments: RiseAxis.allCases)
    func uncertaintyScales(axis: RiseAxis) throws {
        let span = Length(2, .m)
        let quiet = try surface(roll: 1, pitch: -2, noise: 0).rise(over: span, axis: axis, in: .mm).uncertainty.value
        let noisy = try surface(roll: 1, pitch: -2, noise: 0.001).rise(over: span, axis: axis, in: .mm).uncertainty.value
        let noisier = try surface(roll: 1, pitch: -2, noise: 0.002).rise(over: span, axis: axis, in: .mm).uncertainty.value
        #expect(quiet == 0)
        #expect(noisy > 0)
        expectClose(noisier, 2 * noisy, tolerance: 1e-12)
    }

    @Test("Uncertainty is 2·span·σ of tan(angle) by first-order propagation, as central differences give it",
          arguments: RiseAxis.allCases)
    func uncertaintyMatchesNumericalPropagation(axis: RiseAxis) throws {
        var random = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<50 {
            let gravity = Vector3(x: Double.random(in: -0.3...0.3, using: &random),
                                  y: Double.random(in: -0.3...0.3, using: &random),
                                  z: Double.random(in: 0.8...1.1, using: &random))
            let noise = Vector3(x: Double.random(in: 0...0.002, using: &random),
                                y: Double.random(in: 0...0.002, using: &random),
                                z: Double.random(in: 0...0.002, using: &random))
            let rise = try SurfaceTilt(levelGravity: gravity, standardError: noise)
                .rise(over: Length(1500, .mm), axis: axis, in: .mm)
            let slope = { (g: Vector3) -> Double in
                let attitude = Attitude(gravity: g)
                let angle = switch axis {
                case .roll: attitude.roll
                case .pitch: attitude.pitch
                case .steepest: attitude.tilt
                }
                return tan(angle.radians)
            }
            let step = 1e-6
            let dx = (slope(gravity + Vector3(x: step, y: 0, z: 0)) - slope(gravity - Vector3(x: step, y: 0, z: 0))) / (2 * step)
            let dy = (slope(gravity + Vector3(x: 0, y: step, z: 0)) - slope(gravity - Vector3(x: 0, y: step, z: 0))) / (2 * step)
            let dz = (slope(gravity + Vector3(x: 0, y: 0, z: step)) - slope(gravity - Vector3(x: 0, y: 0, z: step))) / (2 * step)
            let sigma = ((dx * noise.x) * (dx * noise.x) + (dy * noise.y) * (dy * noise.y)
                + (dz * noise.z) * (dz * noise.z)).squareRoot()
            expectClose(rise.uncertainty.value, 2 * 1500 * sigma, tolerance: 1e-6 * (1 + rise.uncertainty.value))
        }
    }

    @Test("At exactly level the steepest uncertainty is still the noise's, not 0")
    func steepestUncertaintyAtLevel() throws {
        let rise = try surface(roll: 0, pitch: 0, noise: 0.001).rise(over: Length(1, .m), axis: .steepest, in: .mm)
        // √((σx² + σy²)/2)/gz: every uphill direction averaged.
        expectClose(rise.uncertainty.value, 2 * 1000 * 0.001, tolerance: 1e-12)
    }

    @Test("A level tilted 89° or more, or reading no gravity, cannot measure",
          arguments: [Vector3(x: 0, y: 0, z: -1), Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 0.5, z: -0.5),
                      .zero, Vector3(x: .nan, y: 0, z: 1), Vector3(x: 0, y: 0, z: .infinity),
                      // 89.5°: finite, but the slope and its uncertainty would mean nothing.
                      Vector3(x: 0.9999619, y: 0, z: 0.0087265), Vector3(x: 0, y: 1, z: 1e-300)])
    func unmeasurable(gravity: Vector3) throws {
        let error = try #require(throws: RulerError.self) {
            try SurfaceTilt(levelGravity: gravity, standardError: .zero)
        }
        #expect(error.kind == .unmeasurable)
        #expect(error.message.contains("within 89° of flat") || error.message.contains("retry in a few seconds"))
    }

    @Test("Upside down says the level must be within 89° of flat, mounted as configured")
    func upsideDownMessage() throws {
        let error = try #require(throws: RulerError.self) {
            try SurfaceTilt(levelGravity: Vector3(x: 0, y: 0, z: -1), standardError: .zero)
        }
        #expect(error.message.contains("tilted 180° from flat; it must be within 89° of flat, mounted as configured"))
    }

    @Test("A standard error that is negative or not finite is a faulty reading",
          arguments: [Vector3(x: -0.001, y: 0, z: 0), Vector3(x: 0, y: .nan, z: 0), Vector3(x: 0, y: 0, z: .infinity)])
    func faultyNoise(noise: Vector3) throws {
        let error = try #require(throws: RulerError.self) {
            try SurfaceTilt(levelGravity: Vector3(x: 0, y: 0, z: 1), standardError: noise)
        }
        #expect(error.kind == .unmeasurable)
    }
}
