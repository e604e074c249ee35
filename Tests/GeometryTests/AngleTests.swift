import Foundation
import Geometry
import GeometryTesting
import Testing

@Suite("Angle")
struct AngleTests {
    @Test("Degrees and radians convert both ways; 45°, 90° and 180° are exact")
    func degreesAndRadians() {
        #expect(Angle(degrees: 45).radians == .pi / 4)
        #expect(Angle(degrees: 90).radians == .pi / 2)
        #expect(Angle(degrees: 180).radians == .pi)
        #expect(Angle(radians: .pi / 2).degrees == 90)
        #expect(Angle(radians: .pi).degrees == 180)
        expectClose(Angle(radians: 1).degrees, 57.295_779_513_082_32, tolerance: 1e-12)
        expectClose(Angle(degrees: 0.1).radians, 0.001_745_329_251_994_33, tolerance: 1e-17)
    }

    @Test("Degrees survive the round trip through radians", arguments: [-720.0, -90, -0.001, 0, 1e-9, 0.25, 33.3, 359.9])
    func degreesRoundTrip(degrees: Double) {
        expectClose(Angle(degrees: degrees).degrees, degrees, tolerance: abs(degrees) * 1e-15)
    }

    @Test("zero is zero radians and zero degrees")
    func zero() {
        #expect(Angle.zero.radians == 0)
        #expect(Angle.zero.degrees == 0)
        #expect(Angle.zero == Angle(degrees: 0))
    }

    @Test("Addition, subtraction, negation and scaling work on the stored radians")
    func arithmetic() {
        let a = Angle(radians: 0.3), b = Angle(radians: 0.2)
        #expect((a + b).radians == 0.3 + 0.2)
        #expect((a - b).radians == 0.3 - 0.2)
        #expect((-a).radians == -0.3)
        #expect((a * 2).radians == 0.6)
        #expect((2 * a).radians == 0.6)
        #expect((a / 2).radians == 0.15)
        var c = a
        c += b
        #expect(c == a + b)
        c -= b
        #expect(c.radians == (0.3 + 0.2) - 0.2)
    }

    @Test("magnitude drops the sign only")
    func magnitude() {
        #expect(Angle(degrees: -3).magnitude == Angle(degrees: 3))
        #expect(Angle(degrees: 3).magnitude == Angle(degrees: 3))
        #expect(Angle.zero.magnitude == .zero)
    }

    @Test("Angles order by size, negative below positive")
    func ordering() {
        let sorted = [deg(10), deg(-5), deg(0), deg(0.001), deg(-90)].sorted()
        #expect(sorted == [deg(-90), deg(-5), deg(0), deg(0.001), deg(10)])
        #expect(deg(1) < deg(2))
        #expect(max(deg(1), deg(2)) == deg(2))
    }

    @Test("A NaN angle compares false every way, like Double, so it never passes a threshold")
    func nanComparesFalse() {
        let nan = Angle(radians: .nan)
        #expect(!(nan < deg(1)) && !(nan <= deg(1)) && !(nan > deg(1)) && !(nan >= deg(1)))
        #expect(!(deg(1) < nan) && !(deg(1) <= nan) && !(deg(1) > nan) && !(deg(1) >= nan))
        #expect(deg(1) <= deg(1) && deg(1) >= deg(1) && deg(2) > deg(1) && deg(1) >= deg(-1))
    }

    @Test("isFinite is false for NaN and infinite angles")
    func finiteness() {
        #expect(deg(1).isFinite)
        #expect(!Angle(radians: .nan).isFinite)
        #expect(!Angle(radians: -.infinity).isFinite)
    }

    @Test("Equal angles hash equally, including +0 and −0")
    func hashing() {
        let set: Set<Angle> = [Angle(radians: 0), Angle(radians: -0.0), deg(1), deg(1)]
        #expect(set.count == 2)
    }

    @Test("Codable round trip keeps the exact radians under the key \"radians\"")
    func codable() throws {
        let angle = Angle(radians: 0.123_456_789_012_345_67)
        let data = try JSONEncoder().encode(angle)
        #expect(String(decoding: data, as: UTF8.self).contains("\"radians\""))
        #expect(try JSONDecoder().decode(Angle.self, from: data) == angle)
    }
}
