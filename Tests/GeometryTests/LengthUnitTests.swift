import Foundation
import Geometry
import Testing

@Suite("LengthUnit")
struct LengthUnitTests {
    @Test("Raw values are the config names, in order mm, cm, m, in, ft; symbols match")
    func namesAndSymbols() {
        #expect(LengthUnit.allCases.map(\.rawValue) == ["mm", "cm", "m", "in", "ft"])
        #expect(LengthUnit.allCases.map(\.symbol) == ["mm", "cm", "m", "in", "ft"])
    }

    @Test("Millimetres per unit are the exact legal factors")
    func exactFactors() {
        #expect(LengthUnit.mm.millimetres == 1)
        #expect(LengthUnit.cm.millimetres == 10)
        #expect(LengthUnit.m.millimetres == 1000)
        #expect(LengthUnit.in.millimetres == 25.4)
        #expect(LengthUnit.ft.millimetres == 304.8)
        // A foot is twelve inches (to the last bit: 25.4 and 304.8 are not exact binary fractions).
        #expect(abs(LengthUnit.in.millimetres * 12 - LengthUnit.ft.millimetres) < 1e-12)
    }

    @Test("Conversions: 1 in = 25.4 mm, 1 ft = 12 in, 1 m = 100 cm, and a unit to itself is untouched")
    func conversions() {
        #expect(LengthUnit.in.convert(1, to: .mm) == 25.4)
        #expect(abs(LengthUnit.ft.convert(1, to: .in) - 12) < 1e-12)
        #expect(LengthUnit.m.convert(1, to: .cm) == 100)
        #expect(LengthUnit.mm.convert(304.8, to: .ft) == 1)
        #expect(LengthUnit.in.convert(0.1, to: .in) == 0.1)
    }

    @Test("Parsing accepts raw values in any case with whitespace, and nothing else")
    func parsing() {
        #expect(LengthUnit(parsing: " MM ") == .mm)
        #expect(LengthUnit(parsing: "In") == .in)
        #expect(LengthUnit(parsing: "ft") == .ft)
        #expect(LengthUnit(parsing: "") == nil)
        #expect(LengthUnit(parsing: "inch") == nil)
        #expect(LengthUnit(parsing: "km") == nil)
    }

    @Test("Codable uses the raw value")
    func codable() throws {
        let data = try JSONEncoder().encode([LengthUnit.ft, .in])
        #expect(String(decoding: data, as: UTF8.self) == "[\"ft\",\"in\"]")
        #expect(try JSONDecoder().decode([LengthUnit].self, from: data) == [.ft, .in])
    }
}
