import Drawing
import PictureRendering
import Testing

/// FreeType and libpng behind the renderer: real fonts, real files.
@Suite("Picture rendering: FreeType and libpng")
struct PictureRenderingTests {
    @Test("A canvas survives a PNG round trip pixel for pixel")
    func roundTrip() throws {
        let scene = Scene(width: 60, height: 40, items: [
            .circle(.init(centre: Point(x: 20, y: 20), radius: 15, fill: Colour(0xbf8700), stroke: Stroke(Colour(0x1f2328), width: 1.5))),
            .circle(.init(centre: Point(x: 40, y: 20), radius: 12, fill: Colour(0x1a7f37, opacity: 0.5), stroke: nil)),
        ])
        let canvas = scene.rasterized(scale: 1, text: nil)
        let bytes = try PNG.encode(canvas)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let image = try PNG.decode(bytes)
        #expect(image.width == 60 && image.height == 40)
        #expect(image.rgba == canvas.straightRGBA)
    }

    @Test("Garbage and a truncated file are refused with libpng's reason, never a crash")
    func badFiles() throws {
        let good = try PNG.encode(Scene(width: 4, height: 4, items: []).rasterized(scale: 1, text: nil))
        for bad in [[], [0x89, 0x50], Array("not a png at all".utf8), Array(good.prefix(good.count - 20))] {
            #expect(throws: PNG.Failure.self) { try PNG.decode(bad) }
        }
        do {
            _ = try PNG.decode(Array("GIF89a".utf8))
        } catch {
            #expect(error.description.hasPrefix("libpng could not read the PNG: "), "\(error)")
        }
        #expect(throws: PNG.Failure.self) { try PNG.encode(Canvas(width: 0, height: 0)) }
    }

    @Test("DejaVu sets text: wider for more characters, bold heavier, centred by its advance")
    func text() throws {
        let fonts = FreeTypeText()
        #expect(fonts.problem() == nil, "install fonts-dejavu-core")
        let short = try #require(fonts.mask(of: "0.1°", pixelSize: 20, bold: true))
        let long = try #require(fonts.mask(of: "0.120 mm/m", pixelSize: 20, bold: true))
        #expect(long.advance > short.advance * 2)
        #expect(short.top >= 13 && short.top <= 16, "digits stand about 14.6 px tall at 20 px: \(short.top)")
        let regular = try #require(fonts.mask(of: "level", pixelSize: 20, bold: false))
        let bold = try #require(fonts.mask(of: "level", pixelSize: 20, bold: true))
        func ink(_ mask: TextMask) -> Int { mask.coverage.reduce(0) { $0 + Int($1) } }
        #expect(ink(bold) > ink(regular))
        #expect(fonts.mask(of: "x", pixelSize: .infinity, bold: false) == nil)
        #expect(fonts.mask(of: " ", pixelSize: 12, bold: false) == nil, "no ink, no mask")
    }

    @Test("Without the font the renderer says what to install and draws the shapes alone")
    func missingFont() throws {
        let missing = FreeTypeText(regular: "/nonexistent/Sans.ttf", bold: "/nonexistent/Sans-Bold.ttf")
        #expect(missing.problem()?.contains("install fonts-dejavu-core") == true)
        #expect(missing.mask(of: "level", pixelSize: 12, bold: false) == nil)
        let scene = Scene(width: 20, height: 20, items: [
            .circle(.init(centre: Point(x: 10, y: 10), radius: 5, fill: Colour(0x000000), stroke: nil)),
            .text(.init("level", centreX: 10, baseline: 18, size: 6, colour: Colour(0xFF0000), bold: false)),
        ])
        let image = try PNG.decode(PictureRenderer(scale: 1, text: missing).png(of: scene))
        #expect(image.pixel(x: 10, y: 10).alpha == 255)
        #expect(!(0..<20).contains { x in (0..<20).contains { image.pixel(x: x, y: $0).red > 0 } }, "no text")
    }
}
