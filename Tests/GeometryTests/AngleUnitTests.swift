import Geometry
import GeometryTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("AngleUnit and conversions")
struct AngleUnitTests {
    @Test("Raw values are the config and CLI names; symbols are what a reading shows")
    func namesAndSymbols() {
        #expect(AngleUnit.allCases.map(\.rawValue) == ["deg", "percent", "mm_per_m", "in_per_ft"])
        #expect(AngleUnit.allCases.map(\.symbol) == ["°", "%", "mm/m", "in/ft"])
        #expect(AngleUnit(rawValue: "mm_per_m") == .mmPerM)
        #expect(AngleUnit(rawValue: "in_per_ft") == .inPerFt)
    }

    @Test("45° is 45°, 100 %, 1000 mm/m and 12 in/ft")
    func fortyFiveDegrees() {
        let angle = deg(45)
        expectClose(angle.value(in: .deg)!, 45, tolerance: 1e-12)
        expectClose(angle.value(in: .percent)!, 100, tolerance: 1e-12)
        expectClose(angle.value(in: .mmPerM)!, 1000, tolerance: 1e-10)
        expectClose(angle.value(in: .inPerFt)!, 12, tolerance: 1e-12)
    }

    @Test("Known small slopes: 1 mm/m ≈ 0.0573°, 1 % ≈ 0.5729°, 1 in/ft ≈ 4.7636°")
    func knownSlopes() {
        expectClose(Angle(1, unit: .mmPerM)!.degrees, 0.057_295_760, tolerance: 1e-8)
        expectClose(Angle(1, unit: .percent)!.degrees, 0.572_938_698, tolerance: 1e-8)
        expectClose(Angle(1, unit: .inPerFt)!.degrees, 4.763_641_690, tolerance: 1e-8)
        expectClose(deg(0.1).value(in: .mmPerM)!, 1.745_331_024, tolerance: 1e-8)
    }

    @Test("Slopes keep the sign of the angle", arguments: [AngleUnit.percent, .mmPerM, .inPerFt])
    func signedSlopes(unit: AngleUnit) {
        #expect(deg(-2).value(in: unit)! < 0)
        #expect(deg(2).value(in: unit)! > 0)
        #expect(deg(-2).value(in: unit)! == -deg(2).value(in: unit)!)
        #expect(Angle.zero.value(in: unit) == 0)
    }

    @Test("Slope units have no value at or beyond ±90°, nor for a NaN angle",
          arguments: [AngleUnit.percent, .mmPerM, .inPerFt], [90.0, -90, 90.000_001, 120, -135, 180, 360])
    func noSlopeAtVertical(unit: AngleUnit, degrees: Double) {
        #expect(deg(degrees).value(in: unit) == nil)
        #expect(Angle(radians: .nan).value(in: unit) == nil)
    }

    @Test("Just short of 90° a slope is large but finite", arguments: [AngleUnit.percent, .mmPerM, .inPerFt])
    func steepButFinite(unit: AngleUnit) throws {
        let value = try #require(deg(89.999_999).value(in: unit))
        #expect(value.isFinite && value > 1e6)
    }

    @Test("Degrees always have a value, whatever the angle", arguments: [90.0, -90, 180, 720])
    func degreesAlwaysDefined(degrees: Double) {
        #expect(deg(degrees).value(in: .deg) == degrees)
    }

    @Test("Angle → value → Angle is the identity for |angle| < 90°",
          arguments: AngleUnit.allCases, [-89.9, -45, -1, -0.001, 0, 0.0573, 0.25, 10, 60, 89.9])
    func angleRoundTrip(unit: AngleUnit, degrees: Double) throws {
        let angle = deg(degrees)
        let value = try #require(angle.value(in: unit))
        let back = try #require(Angle(value, unit: unit))
        expectClose(back, degrees: degrees, tolerance: 1e-12)
    }

    @Test("Value → Angle → value is the identity for any finite value",
          arguments: AngleUnit.allCases, [-1e6, -12, -1.5, -0.001, 0, 0.2, 1.5, 12, 100, 1000, 1e6])
    func valueRoundTrip(unit: AngleUnit, value: Double) throws {
        let angle = try #require(Angle(value, unit: unit))
        let back = try #require(angle.value(in: unit))
        expectClose(back, value, tolerance: max(1e-12, abs(value) * 1e-9))
    }

    @Test("Any finite slope is an angle strictly inside ±90°", arguments: [AngleUnit.percent, .mmPerM, .inPerFt])
    func slopesStayInsideVertical(unit: AngleUnit) throws {
        let steep = try #require(Angle(1e300, unit: unit))
        #expect(steep <= deg(90) && steep > deg(89.9))
        #expect(try #require(Angle(-1e300, unit: unit)) >= deg(-90))
    }

    @Test("Non-finite values are no angle", arguments: AngleUnit.allCases, [Double.nan, .infinity, -.infinity])
    func nonFiniteValues(unit: AngleUnit, value: Double) {
        #expect(Angle(value, unit: unit) == nil)
    }

    @Test("Changing the display unit never changes which of two angles is larger",
          arguments: AngleUnit.allCases, [-0.2, 0, 0.05, 0.0859, 0.086, 0.1, 1, 45, 89])
    func unitKeepsPhysicalMeaning(unit: AngleUnit, tiltDegrees: Double) throws {
        let threshold = try Angle.parse("1.5 mm/m")
        #expect(threshold == Angle(1.5, unit: .mmPerM))
        let tilt = deg(tiltDegrees)
        let shownTilt = try #require(tilt.value(in: unit))
        let shownThreshold = try #require(threshold.value(in: unit))
        #expect((shownTilt < shownThreshold) == (tilt < threshold))
        #expect((shownTilt > shownThreshold) == (tilt > threshold))
    }

    @Test("A level check against a threshold typed in any unit agrees with one typed in another")
    func thresholdsInDifferentUnitsAgree() throws {
        let sameThreshold = try [
            Angle.parse("1.5 mm/m"), Angle.parse("0.15%"), Angle.parse("0.018 in/ft"),
            #require(Angle(0.15, unit: .percent)),
        ]
        for threshold in sameThreshold {
            expectClose(threshold, degrees: Angle(1.5, unit: .mmPerM)!.degrees, tolerance: 1e-12)
        }
        let attitude = Attitude(gravity: Attitude.gravity(roll: deg(0.08), pitch: .zero))
        #expect(sameThreshold.allSatisfy { attitude.isLevel(tolerance: $0) })
        let tilted = Attitude(gravity: Attitude.gravity(roll: deg(0.09), pitch: .zero))
        #expect(sameThreshold.allSatisfy { !tilted.isLevel(tolerance: $0) })
    }

    @Test("AngleUnit(parsing:) accepts raw values and symbols, ignoring case and surrounding space",
          arguments: [
              ("deg", AngleUnit.deg), ("°", .deg), ("DEG", .deg), (" ° ", .deg),
              ("percent", .percent), ("%", .percent), ("Percent", .percent),
              ("mm_per_m", .mmPerM), ("mm/m", .mmPerM), ("MM/M", .mmPerM),
              ("in_per_ft", .inPerFt), ("in/ft", .inPerFt), ("\tin/ft\n", .inPerFt),
          ])
    func parsesUnitNames(text: String, unit: AngleUnit) {
        #expect(AngleUnit(parsing: text) == unit)
    }

    @Test("AngleUnit(parsing:) rejects anything else",
          arguments: ["", " ", "degrees", "mm", "mm / m", "in/in", "°°", "pct", "rad", "0.1deg"])
    func rejectsUnknownUnits(text: String) {
        #expect(AngleUnit(parsing: text) == nil)
    }
}
