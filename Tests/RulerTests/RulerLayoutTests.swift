import Geometry
import GeometryTesting
import Ruler
import Testing

@Suite("Ruler layout: ticks, limits and the indicator")
struct RulerLayoutTests {
    @Test("30 cm metric: 301 ticks at exact tenths, 80 px/cm, labels 0…30 under the majors")
    func thirtyCentimetres() throws {
        let layout = try RulerLayout(length: Length(30, .cm))
        #expect(layout.style == .metric)
        #expect(layout.density == PixelDensity(pixelsPerUnit: 80, per: .cm))
        #expect(layout.widthPx == 2400)
        #expect(layout.tickCount == 301)
        let ticks = layout.ticks()
        #expect(ticks.count == 301)
        #expect(ticks.first == Tick(at: 0, px: 0, rank: 0, height: 1, label: "0"))
        #expect(ticks.last == Tick(at: 30, px: 2400, rank: 0, height: 1, label: "30"))
        #expect(ticks[3] == Tick(at: 0.3, px: 24, rank: 2, height: 0.5, label: nil))
        #expect(ticks[5] == Tick(at: 0.5, px: 40, rank: 1, height: 0.75, label: nil))
        #expect(ticks[123].at == 12.3)
        #expect(ticks.filter { $0.rank == 0 }.map(\.label) == (0...30).map { String($0) })
        #expect(ticks.filter { $0.rank == 1 }.count == 30)
        #expect(ticks.allSatisfy { ($0.label != nil) == ($0.rank == 0) })
    }

    @Test("Each style's ranks and heights over one unit",
          arguments: [
              (GraduationStyle.metric, LengthUnit.cm,
               [0, 2, 2, 2, 2, 1, 2, 2, 2, 2, 0], [1, 0.5, 0.5, 0.5, 0.5, 0.75, 0.5, 0.5, 0.5, 0.5, 1]),
              (.decimal, .in,
               [0, 2, 2, 2, 2, 1, 2, 2, 2, 2, 0], [1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1]),
              (.fractional, .in,
               [0, 4, 3, 4, 2, 4, 3, 4, 1, 4, 3, 4, 2, 4, 3, 4, 0],
               [1, 0.0625, 0.125, 0.0625, 0.25, 0.0625, 0.125, 0.0625, 0.5, 0.0625, 0.125, 0.0625, 0.25, 0.0625, 0.125,
                0.0625, 1]),
          ])
    func ranksAndHeights(style: GraduationStyle, unit: LengthUnit, ranks: [Int], heights: [Double]) throws {
        let ticks = try RulerLayout(length: Length(1, unit), style: style).ticks()
        #expect(ticks.map(\.rank) == ranks)
        #expect(ticks.map(\.height) == heights)
        #expect(ticks.map(\.label) == ["0"] + Array(repeating: nil, count: ticks.count - 2) + ["1"])
    }

    @Test("Fractional heights fall as the rank rises: each halving half as tall")
    func fractionalHeightsAreMonotone() throws {
        let ticks = try RulerLayout(length: Length(1, .in), style: .fractional).ticks()
        let heightByRank = Dictionary(ticks.map { ($0.rank, $0.height) }, uniquingKeysWith: { first, _ in first })
        #expect(heightByRank == [0: 1, 1: 0.5, 2: 0.25, 3: 0.125, 4: 0.0625])
        #expect(ticks[1].at == 0.0625)
        #expect(ticks[3].at == 0.1875)
    }

    @Test("A length that is not whole subdivisions ends at the last whole one",
          arguments: [(2.37, LengthUnit.cm, GraduationStyle.metric, 24, 2.3), (2.3, .cm, .metric, 24, 2.3),
                      (1.3, .in, .fractional, 21, 1.25), (0.05, .cm, .metric, 1, 0), (0.1, .ft, .decimal, 2, 0.1),
                      (4.7, .m, .metric, 48, 4.7), (0.7, .mm, .metric, 8, 0.7)])
    func partialUnits(value: Double, unit: LengthUnit, style: GraduationStyle, count: Int, lastAt: Double) throws {
        let layout = try RulerLayout(length: Length(value, unit), style: style)
        #expect(layout.tickCount == count)
        #expect(layout.ticks().last?.at == lastAt)
    }

    @Test("tickCount, worked out without ticks, matches ticks().count for many lengths and styles")
    func tickCountMatchesTicks() throws {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<300 {
            let unit = LengthUnit.allCases.randomElement(using: &random) ?? .cm
            let style = GraduationStyle.allCases.filter { $0.supports(unit) }.randomElement(using: &random) ?? .metric
            // Half the lengths on a tenth or sixteenth, where an off-by-one would show.
            let whole = Double(Int.random(in: 0...400, using: &random)) / Double(style.subdivisions)
            let value = Bool.random(using: &random) ? whole : Double.random(in: 0.001...40, using: &random)
            guard value > 0 else { continue }
            let layout = try RulerLayout(length: Length(value, unit), style: style)
            let ticks = layout.ticks()
            #expect(layout.tickCount == ticks.count, "\(value) \(unit) \(style)")
            #expect(ticks.last.map { $0.at <= value * (1 + 1e-9) } == true)
            #expect(ticks.last.map { value - $0.at < 1 / Double(style.subdivisions) } == true)
        }
    }

    @Test("Tick positions come from whole numbers, never a running sum")
    func ticksAreNotAccumulated() throws {
        let ticks = try RulerLayout(length: Length(100, .mm)).ticks()
        for (index, tick) in ticks.enumerated() {
            #expect(tick.at == Double(index) / 10)
            #expect(tick.px == (Double(index) / 10 * 8).rounded(toDecimals: 3))
        }
    }

    @Test("Pixel positions follow the density and round to 3 decimals")
    func customDensity() throws {
        let layout = try RulerLayout(length: Length(2, .in), style: .fractional, pixelsPerUnit: 96)
        #expect(layout.widthPx == 192)
        #expect(layout.ticks()[1].px == 6)
        let odd = try RulerLayout(length: Length(1, .cm), pixelsPerUnit: 37.7952755906)
        #expect(odd.ticks()[1].px == 3.78)
    }

    @Test("More than 20,000 ticks is too large, with a coarser unit or style that fits",
          arguments: [
              (Length(30, .m).converted(to: .mm), GraduationStyle?.none, "would need 300,001 ticks; the limit is 20,000: give the length in m"),
              (Length(2000, .cm), nil, "would need 20,001 ticks; the limit is 20,000: give the length in m."),
              (Length(2500, .mm), nil, "give the length in m or cm."),
              (Length(2000, .in), .fractional, "would need 32,001 ticks; the limit is 20,000: give the length in ft."),
              (Length(1300, .in), .fractional, "use decimal graduations, or give the length in ft"),
              (Length(3000, .ft), nil, "give at most 1999.9 ft, or the length in m"),
          ])
    func tooLarge(length: Length, style: GraduationStyle?, message: String) throws {
        let layout = try RulerLayout(length: length, style: style)
        #expect(layout.tickCount > RulerLayout.maximumTicks)
        let error = try #require(throws: RulerError.self) { try layout.checkedTicks() }
        #expect(error.kind == .tooLarge)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("Exactly 20,000 ticks is allowed")
    func atTheLimit() throws {
        let layout = try RulerLayout(length: Length(1999.9, .cm))
        #expect(layout.tickCount == 20_000)
        #expect(try layout.checkedTicks().count == 20_000)
    }

    @Test("Lengths that are not finite, not positive or over 1 km are invalid",
          arguments: [Length(0, .cm), Length(-1, .cm), Length(.nan, .cm), Length(.infinity, .m), Length(1000.001, .m),
                      Length(39_371, .in), Length(-0.0, .mm)])
    func invalidLengths(length: Length) throws {
        let error = try #require(throws: RulerError.self) { try RulerLayout(length: length) }
        #expect(error.kind == .invalid)
        #expect(error.message.contains("must be greater than 0 and at most 1000 m"))
        #expect(error.message.contains("Give a length such as"))
    }

    @Test("1 km exactly is the longest ruler")
    func oneKilometre() throws {
        #expect(try RulerLayout(length: Length(1000, .m)).tickCount == 10_001)
        #expect(try RulerLayout(length: Length(1, .m).converted(to: .mm)).tickCount == 10_001)
    }

    @Test("A style for another unit is invalid, with the style that fits",
          arguments: [(GraduationStyle.fractional, LengthUnit.cm, "fractional graduations are for inches; use metric for cm"),
                      (.fractional, .ft, "fractional graduations are for inches; use decimal for ft"),
                      (.metric, .in, "metric graduations are for mm, cm and m; use decimal for in"),
                      (.decimal, .mm, "decimal graduations are for in and ft; use metric for mm")])
    func styleForAnotherUnit(style: GraduationStyle, unit: LengthUnit, message: String) throws {
        #expect(!style.supports(unit))
        let error = try #require(throws: RulerError.self) { try RulerLayout(length: Length(1, unit), style: style) }
        #expect(error.kind == .invalid)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("Each style supports its units; the standard is metric or decimal")
    func styleSupport() {
        #expect(LengthUnit.allCases.filter(GraduationStyle.metric.supports) == [.mm, .cm, .m])
        #expect(LengthUnit.allCases.filter(GraduationStyle.decimal.supports) == [.in, .ft])
        #expect(LengthUnit.allCases.filter(GraduationStyle.fractional.supports) == [.in])
        #expect(LengthUnit.allCases.map(GraduationStyle.standard) == [.metric, .metric, .metric, .decimal, .decimal])
        #expect(GraduationStyle(parsing: " Fractional ") == .fractional)
    }

    @Test("Pixels per unit must be finite and positive, and the ruler at most 10,000,000 px wide",
          arguments: [(0.0, "greater than 0"), (-80, "greater than 0"), (.nan, "greater than 0"),
                      (.infinity, "greater than 0"), (400_000, "the limit is 10,000,000 px")])
    func invalidDensity(pixelsPerUnit: Double, message: String) throws {
        let error = try #require(throws: RulerError.self) {
            try RulerLayout(length: Length(30, .cm), pixelsPerUnit: pixelsPerUnit)
        }
        #expect(error.kind == .invalid)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("The indicator reads a length at a pixel, and the length's pixel is where it started",
          arguments: [0.0, 0.001, 24, 412, 1234.567, 2399.999, 2400])
    func indicatorRoundTrip(px: Double) throws {
        let layout = try RulerLayout(length: Length(30, .cm))
        let length = try layout.length(atPixel: px)
        #expect(length.unit == .cm)
        expectClose(length.value, px / 80, tolerance: 1e-12)
        expectClose(layout.pixel(at: length.value), px, tolerance: 1e-9)
    }

    @Test("412 px on the classic 30 cm ruler reads 5.15 cm")
    func indicatorReadsClassic() throws {
        #expect(try RulerLayout(length: Length(30, .cm)).length(atPixel: 412) == Length(5.15, .cm))
        #expect(try RulerLayout(length: Length(12, .in)).length(atPixel: 412) == Length(2.06, .in))
    }

    @Test("An indicator off the ruler is invalid; the reported width's rounding is tolerated",
          arguments: [-0.01, 2400.01, .nan, .infinity])
    func indicatorOffTheRuler(px: Double) throws {
        let layout = try RulerLayout(length: Length(30, .cm))
        let error = try #require(throws: RulerError.self) { try layout.length(atPixel: px) }
        #expect(error.kind == .invalid)
        #expect(error.message.contains("runs from 0 to 2400 px"))
    }

    @Test("An indicator within half a thousandth of a pixel of the end lands on the end")
    func indicatorSlack() throws {
        let layout = try RulerLayout(length: Length(1, .cm), pixelsPerUnit: 37.7959)
        let reportedWidth = layout.widthPx.rounded(toDecimals: 3)
        #expect(reportedWidth > layout.widthPx)
        #expect(try layout.length(atPixel: reportedWidth) == Length(1, .cm))
        #expect(try layout.length(atPixel: -0.0004) == Length(0, .cm))
    }
}
