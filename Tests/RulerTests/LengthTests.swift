import Geometry
import GeometryTesting
import Ruler
import Testing

@Suite("Lengths, units and pixel densities")
struct LengthTests {
    @Test("The legal factors are exact: 1 in is 25.4 mm, 1 ft is 304.8 mm and 12 in, 1 3/16 in is 30.1625 mm")
    func legalFactorsAreExact() {
        #expect(Length(1, .in).millimetres == 25.4)
        #expect(Length(1, .in).converted(to: .mm) == Length(25.4, .mm))
        #expect(Length(1, .in).converted(to: .cm).value == 2.54)
        #expect(Length(1, .ft).millimetres == 304.8)
        #expect(Length(1, .ft).converted(to: .in).value == 12)
        #expect(Length(12, .in).converted(to: .ft).value == 1)
        #expect(Length(1, .m).converted(to: .mm).value == 1000)
        #expect(Length(30, .cm).converted(to: .mm).value == 300)
        #expect(Length(1.1875, .in).converted(to: .mm).value == 30.1625)
        #expect(Length(30.1625, .mm).converted(to: .in).value == 1.1875)
        #expect(Length(3, .ft).converted(to: .in).value == 36)
        #expect(Length(0.3048, .m).converted(to: .ft).value == 1)
        #expect(Length(2.54, .cm).converted(to: .in).value == 1)
        #expect(Length(0.5, .ft).converted(to: .cm).value == 15.24)
    }

    @Test("Converting to the same unit changes nothing, bit for bit")
    func sameUnitIsIdentity() {
        for unit in LengthUnit.allCases {
            let length = Length(0.1 + 0.2, unit)
            #expect(length.converted(to: unit) == length)
        }
    }

    @Test("A round trip through every unit comes back within a part in 10¹⁵",
          arguments: [0.001, 0.3, 1.1875, 30, 299.99, 12_345.678, 1_000_000])
    func roundTrips(value: Double) {
        for from in LengthUnit.allCases {
            for via in LengthUnit.allCases {
                let back = Length(value, from).converted(to: via).converted(to: from)
                #expect(back.unit == from)
                expectClose(back.value, value, tolerance: value * 1e-15)
            }
        }
    }

    @Test("A length reads as a person writes it")
    func description() {
        #expect(Length(30, .cm).description == "30 cm")
        #expect(Length(1.1875, .in).description == "1.1875 in")
    }

    @Test("Units parse from their symbols and a tape's spellings, in any case",
          arguments: [
              ("mm", RulerUnit.length(.mm)), ("CM", .length(.cm)), (" m ", .length(.m)), ("In", .length(.in)),
              ("ft", .length(.ft)), ("px", .px), ("PX", .px), ("inch", .length(.in)), ("Inches", .length(.in)),
              ("\"", .length(.in)), ("foot", .length(.ft)), ("feet", .length(.ft)), ("'", .length(.ft)),
          ])
    func unitParsing(text: String, unit: RulerUnit) {
        #expect(RulerUnit(parsing: text) == unit)
    }

    @Test("Anything else is no unit", arguments: ["", " ", "furlongs", "cms", "pixel", "mm/m", "°"])
    func unitParsingRejects(text: String) {
        #expect(RulerUnit(parsing: text) == nil)
    }

    @Test("A unit's symbol is its short name")
    func unitSymbols() {
        #expect(RulerUnit.allCases.map(\.symbol) == ["mm", "cm", "m", "in", "ft", "px"])
        #expect(RulerUnit.px.lengthUnit == nil)
        #expect(RulerUnit.length(.ft).lengthUnit == .ft)
    }

    @Test("The classic densities are 80 px/cm and 200 px/in, in every unit",
          arguments: [(LengthUnit.mm, 8.0), (.cm, 80), (.m, 8000), (.in, 200), (.ft, 2400)])
    func classicDensities(unit: LengthUnit, pixels: Double) {
        let density = PixelDensity.classic(for: unit)
        #expect(density == PixelDensity(pixelsPerUnit: pixels, per: unit))
        #expect(density.pixels(in: Length(1, unit)) == pixels)
    }

    @Test("A density converts lengths in any unit to pixels and back")
    func densityConverts() {
        let density = PixelDensity.classic(for: .cm)
        #expect(density.pixels(in: Length(30, .cm)) == 2400)
        #expect(density.pixels(in: Length(5, .mm)) == 40)
        #expect(density.length(ofPixels: 412, in: .cm) == Length(5.15, .cm))
        expectClose(density.length(ofPixels: 412, in: .mm).value, 51.5, tolerance: 1e-12)
        let inches = PixelDensity.classic(for: .in)
        #expect(inches.pixels(in: Length(0.5, .ft)) == 1200)
        #expect(inches.length(ofPixels: 100, in: .in) == Length(0.5, .in))
    }
}
