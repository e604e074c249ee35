import Drawing
import PictureRendering
import Testing

/// The palette a PNG is written with: exact while the picture has few enough colours, a median
/// cut past that, and libpng writing and reading it back.
@Suite("Drawing: the palette")
struct PaletteTests {
    /// Discs and rings of a few colours, half of them see-through: a few hundred edge shades.
    static let discs = Scene(width: 80, height: 60, items: [
        .circle(.init(centre: Point(x: 30, y: 30), radius: 22, fill: Colour(0xf6f8fa), stroke: Stroke(Colour(0x1f2328), width: 1.5))),
        .circle(.init(centre: Point(x: 45, y: 25), radius: 14, fill: Colour(0x1a7f37, opacity: 0.7), stroke: nil)),
        .circle(.init(centre: Point(x: 55, y: 40), radius: 9, fill: Colour(0xbf8700), stroke: Stroke(Colour(0x57606a), width: 1))),
    ])

    /// A grid of see-through lines, red ramping across and blue ramping down: where they cross,
    /// far more colours than a palette holds.
    static let grid: Scene = {
        var items: [Scene.Item] = []
        for step in 0..<75 {
            let x = 2.1 * Double(step) + 2.3
            let red = UInt32(step * 3) << 16 | 0x2020
            items.append(.lines(.init(segments: [Segment(from: Point(x: x, y: 0), to: Point(x: x, y: 100))],
                                      stroke: Stroke(Colour(red, opacity: 0.6), width: 1.3))))
        }
        for step in 0..<45 {
            let y = 2.2 * Double(step) + 1.7
            let blue = 0x2000 | UInt32(step * 5)
            items.append(.lines(.init(segments: [Segment(from: Point(x: 0, y: y), to: Point(x: 160, y: y))],
                                      stroke: Stroke(Colour(blue, opacity: 0.5), width: 1.1))))
        }
        return Scene(width: 160, height: 100, items: items)
    }()

    /// Distinct premultiplied colours of `canvas`.
    static func distinct(_ canvas: Canvas) -> Int {
        Set(stride(from: 0, to: canvas.pixels.count, by: 4).map { Array(canvas.pixels[$0..<$0 + 4]) }).count
    }

    /// The mean difference per premultiplied channel between the canvas and its palette picture.
    static func meanError(_ canvas: Canvas, _ picture: IndexedPicture) -> Double {
        var total = 0
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let a = canvas.pixel(x: x, y: y), b = picture.pixel(x: x, y: y)
                func pre(_ c: UInt8, _ alpha: UInt8) -> Int { Int(c) * Int(alpha) / 255 }
                total += abs(pre(a.red, a.alpha) - pre(b.red, b.alpha)) + abs(pre(a.green, a.alpha) - pre(b.green, b.alpha))
                    + abs(pre(a.blue, a.alpha) - pre(b.blue, b.alpha)) + abs(Int(a.alpha) - Int(b.alpha))
            }
        }
        return Double(total) / Double(4 * canvas.width * canvas.height)
    }

    /// The largest difference in any premultiplied channel between the canvas and its palette picture.
    static func largestError(_ canvas: Canvas, _ picture: IndexedPicture) -> Int {
        var worst = 0
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let original = canvas.pixel(x: x, y: y), reduced = picture.pixel(x: x, y: y)
                func premultiplied(_ value: UInt8, _ alpha: UInt8) -> Int { (Int(value) * Int(alpha) + 127) / 255 }
                let pairs = [(original.red, reduced.red), (original.green, reduced.green), (original.blue, reduced.blue)]
                for (a, b) in pairs { worst = max(worst, abs(premultiplied(a, original.alpha) - premultiplied(b, reduced.alpha))) }
                worst = max(worst, abs(Int(original.alpha) - Int(reduced.alpha)))
            }
        }
        return worst
    }

    @Test("A picture of no more colours than the palette keeps every pixel exactly")
    func exactWhenFew() throws {
        let canvas = Self.discs.rasterized(scale: 1, text: nil)
        let count = Self.distinct(canvas)
        try #require(count > 16 && count <= 256, "the test picture has \(count) colours")
        let picture = canvas.indexed()
        #expect(picture.colourCount == count)
        #expect(Self.largestError(canvas, picture) == 0)
        #expect(picture.width == canvas.width && picture.height == canvas.height && picture.indices.count == 80 * 60)
    }

    @Test("Past the palette's size, a median cut: every entry used, each pixel near its own colour", arguments: [16, 64, 256])
    func medianCut(colours: Int) throws {
        let canvas = Self.grid.rasterized(scale: 1, text: nil)
        try #require(Self.distinct(canvas) > 10_000)
        let picture = canvas.indexed(maximumColours: colours)
        #expect(picture.colourCount == colours)
        #expect(Set(picture.indices).count == colours, "an entry no pixel uses is a wasted one")
        // Twelve thousand colours into a few: bounds half as wide again as measured (16: 59 and
        // 7.9 levels; 64: 28 and 5.0; 256: 17 and 3.1). One colour for all would be 200 off.
        let (largest, mean) = [16: (88, 11.0), 64: (42, 7.0), 256: (25, 4.5)][colours]!
        let error = Self.largestError(canvas, picture), average = Self.meanError(canvas, picture)
        #expect(error <= largest, "\(colours) colours: a pixel is \(error) levels off (at most \(largest))")
        #expect(average <= mean, "\(colours) colours: \(average) levels off on average (at most \(mean))")
        // A transparent pixel stays wholly transparent.
        #expect(picture.pixel(x: 0, y: 0) == (0, 0, 0, 0))
    }

    @Test("The palette depends on the picture alone, and the bounds of its size are kept")
    func deterministicAndBounded() {
        let canvas = Self.grid.rasterized(scale: 1, text: nil)
        #expect(canvas.indexed(maximumColours: 32) == canvas.indexed(maximumColours: 32))
        #expect(canvas.indexed(maximumColours: 1).colourCount == 2)
        #expect(canvas.indexed(maximumColours: 10_000).colourCount == 256)
        #expect(Canvas(width: 3, height: 3).indexed().palette == [0, 0, 0, 0])
    }

    @Test("A palette PNG is colour type 3 at the bit depth its size needs, and reads back as its palette says")
    func palettePNG() throws {
        let canvas = Self.discs.rasterized(scale: 1, text: nil)
        let picture = canvas.indexed()
        let bytes = try PNG.encode(picture)
        // IHDR: bit depth at byte 24, colour type at byte 25.
        #expect(bytes[24] == 8 && bytes[25] == 3)
        let image = try PNG.decode(bytes)
        for y in 0..<picture.height {
            for x in 0..<picture.width where image.pixel(x: x, y: y) != picture.pixel(x: x, y: y) {
                Issue.record("(\(x), \(y)) reads \(image.pixel(x: x, y: y)), the palette says \(picture.pixel(x: x, y: y))")
                return
            }
        }
        let full = try PNG.encode(canvas)
        #expect(bytes.count < full.count, "a palette PNG of \(bytes.count) bytes against \(full.count) for RGBA")

        let two = Scene(width: 16, height: 16, items: [
            .circle(.init(centre: Point(x: 8, y: 8), radius: 40, fill: Colour(0x1a7f37), stroke: nil)),
        ]).rasterized(scale: 1, text: nil).indexed()
        let small = try PNG.encode(two)
        #expect(two.colourCount == 1 && small[24] == 1 && small[25] == 3, "one colour: 1 bit a pixel")
        #expect(try PNG.decode(small).pixel(x: 3, y: 11) == (0x1a, 0x7f, 0x37, 255))
    }
}
