import Drawing
import Testing

/// The pure rasterizer: coverage adds up to the shapes' areas, colours blend "over", and every
/// shape lands where the scene puts it.
@Suite("Drawing: the rasterizer")
struct RasterTests {
    static let black = Colour(0x000000)

    /// The alpha channel summed over the canvas, in whole pixels.
    static func inkedArea(_ canvas: Canvas) -> Double {
        stride(from: 3, to: canvas.pixels.count, by: 4).reduce(0) { $0 + Double(canvas.pixels[$1]) } / 255
    }

    static func scene(_ items: Scene.Item...) -> Scene { Scene(width: 100, height: 100, items: items) }

    @Test("A filled disc covers π r² pixels, and its centre and outside are exact", arguments: [3.0, 10.5, 40])
    func discArea(radius: Double) {
        let canvas = Self.scene(.circle(.init(centre: Point(x: 50, y: 50), radius: radius, fill: Self.black, stroke: nil)))
            .rasterized(scale: 1, text: nil)
        let area = Double.pi * radius * radius
        #expect(abs(Self.inkedArea(canvas) - area) < max(1, area * 0.01), "\(Self.inkedArea(canvas)) against \(area)")
        #expect(canvas.pixel(x: 50, y: 50).alpha == 255)
        #expect(canvas.pixel(x: 50, y: Int(50 + radius + 2)).alpha == 0)
    }

    @Test("A ring covers 2π r × width, with nothing in its middle")
    func ringArea() {
        let canvas = Self.scene(.circle(.init(centre: Point(x: 50, y: 50), radius: 30, fill: nil,
                                              stroke: Stroke(Self.black, width: 4)))).rasterized(scale: 1, text: nil)
        let area = 2 * Double.pi * 30 * 4
        #expect(abs(Self.inkedArea(canvas) - area) < area * 0.01, "\(Self.inkedArea(canvas)) against \(area)")
        #expect(canvas.pixel(x: 50, y: 50).alpha == 0)
        #expect(canvas.pixel(x: 50, y: 20).alpha == 255, "on the ring, straight above the centre")
    }

    @Test("A line covers length × width with butt ends, thin lines included", arguments: [1.0, 1.5, 3])
    func lineArea(width: Double) {
        let horizontal = Segment(from: Point(x: 10, y: 30.5), to: Point(x: 90, y: 30.5))
        let diagonal = Segment(from: Point(x: 10, y: 10), to: Point(x: 70, y: 90))
        for segment in [horizontal, diagonal] {
            let canvas = Self.scene(.lines(.init(segments: [segment], stroke: Stroke(Self.black, width: width))))
                .rasterized(scale: 1, text: nil)
            let length = ((segment.end.x - segment.start.x) * (segment.end.x - segment.start.x)
                + (segment.end.y - segment.start.y) * (segment.end.y - segment.start.y)).squareRoot()
            #expect(abs(Self.inkedArea(canvas) - length * width) < length * width * 0.03, "\(segment), width \(width)")
        }
    }

    @Test("Colours blend over what is below, and the opacity counts")
    func blending() {
        let red = Colour(0xFF0000), half = Colour(0x0000FF, opacity: 0.5)
        let canvas = Self.scene(
            .circle(.init(centre: Point(x: 50, y: 50), radius: 40, fill: red, stroke: nil)),
            .circle(.init(centre: Point(x: 50, y: 50), radius: 10, fill: half, stroke: nil))
        ).rasterized(scale: 1, text: nil)
        let middle = canvas.pixel(x: 50, y: 50)
        #expect(middle.alpha == 255)
        #expect(abs(Int(middle.red) - 127) <= 1 && abs(Int(middle.blue) - 128) <= 1 && middle.green == 0, "\(middle)")
        let red0 = canvas.pixel(x: 50, y: 70)
        #expect(red0 == (255, 0, 0, 255))
        // Half-covered on a transparent canvas: straight alpha keeps the colour itself.
        let edge = Self.scene(.circle(.init(centre: Point(x: 50.5, y: 50.5), radius: 10, fill: red, stroke: nil)))
            .rasterized(scale: 1, text: nil).straightRGBA
        let index = 4 * (50 * 100 + 60)
        #expect(edge[index] == 255 && edge[index + 3] > 60 && edge[index + 3] < 200, "\(edge[index...(index + 3)])")
    }

    @Test("The scale multiplies the canvas and every shape")
    func scale() {
        let scene = Self.scene(.circle(.init(centre: Point(x: 25, y: 75), radius: 5, fill: Self.black, stroke: nil)))
        let canvas = scene.rasterized(scale: 2, text: nil)
        #expect(canvas.width == 200 && canvas.height == 200)
        #expect(canvas.pixel(x: 50, y: 150).alpha == 255)
        #expect(abs(Self.inkedArea(canvas) - Double.pi * 100) < 4)
        #expect(scene.rasterized(scale: .nan, text: nil).width == 100, "a bad scale draws at 1")
    }

    /// Text comes from the rasterizer it is given, centred on its x and standing on its baseline.
    struct Block: TextRasterizer {
        func mask(of text: String, pixelSize: Double, bold: Bool) -> TextMask? {
            let width = text.count * 4
            return TextMask(width: width, height: 6, coverage: [UInt8](repeating: 255, count: width * 6), left: 0, top: 6,
                            advance: Double(width))
        }
    }

    @Test("Text is centred on its x and stands on its baseline")
    func textPlacement() {
        let scene = Self.scene(.text(.init("abcde", centreX: 50, baseline: 80, size: 10, colour: Self.black, bold: false)))
        let canvas = scene.rasterized(scale: 1, text: Block())
        let inked = (0..<100).flatMap { y in (0..<100).map { (x: $0, y: y) } }.filter { canvas.pixel(x: $0.x, y: $0.y).alpha > 0 }
        #expect(inked.map(\.x).min() == 40 && inked.map(\.x).max() == 59)
        #expect(inked.map(\.y).min() == 74 && inked.map(\.y).max() == 79)
        #expect(Self.inkedArea(scene.rasterized(scale: 1, text: nil)) == 0, "no rasterizer, no text")
    }
}

@Suite("Drawing: the SVG writer")
struct SceneSVGTests {
    @Test("Every shape is written with its coordinates rounded to 0.1, opacity only when not opaque")
    func elements() {
        let scene = Scene(width: 200, height: 100, title: "A & B", items: [
            .circle(.init(centre: Point(x: 10.04, y: -0.01), radius: 5, fill: Colour(0x1a7f37), stroke: Stroke(Colour(0x000000), width: 1.5))),
            .circle(.init(centre: Point(x: 1, y: 2), radius: 3, fill: Colour(0xFFFFFF, opacity: 0.6), stroke: nil)),
            .lines(.init(segments: [Segment(from: Point(x: 0, y: 1), to: Point(x: 2, y: 1))], stroke: Stroke(Colour(0x8c959f), width: 1))),
            .text(.init("in/ft <", centreX: 100, baseline: 50, size: 12, colour: Colour(0x57606a), bold: true)),
        ])
        let svg = scene.svg
        #expect(svg.contains(#"viewBox="0 0 200 100""#))
        #expect(svg.contains("<title>A &amp; B</title>"))
        #expect(svg.contains(##"<circle cx="10" cy="0" r="5" fill="#1a7f37" stroke="#000000" stroke-width="1.5"/>"##), "\(svg)")
        #expect(svg.contains(##"<circle cx="1" cy="2" r="3" fill="#ffffff" fill-opacity="0.6"/>"##))
        #expect(svg.contains(##"<path d="M0 1L2 1" fill="none" stroke="#8c959f" stroke-width="1"/>"##))
        #expect(svg.contains(##"font-size="12" font-weight="bold" fill="#57606a">in/ft &lt;</text>"##))
    }
}
