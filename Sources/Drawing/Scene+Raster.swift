/// Lays out and rasterizes text for ``Scene/rasterized(scale:text:)``: a font library behind a
/// protocol, so the pure rasterizer never opens a file.
public protocol TextRasterizer {
    /// The coverage mask of `text` set in one line at `pixelSize` pixels to the em, or nil when
    /// it cannot be drawn (no font).
    func mask(of text: String, pixelSize: Double, bold: Bool) -> TextMask?
}

/// One line of text as coverage: what a ``TextRasterizer`` returns.
public struct TextMask: Sendable, Equatable {
    /// The mask's size in pixels.
    public var width: Int
    public var height: Int
    /// Coverage 0…255, row by row from the top, `width × height` bytes.
    public var coverage: [UInt8]
    /// Pixels from the pen's start to the mask's first column (negative: the ink starts left of it).
    public var left: Int
    /// Pixels from the baseline up to the mask's first row.
    public var top: Int
    /// How far the pen moves over the whole line, in pixels: what centring uses.
    public var advance: Double

    public init(width: Int, height: Int, coverage: [UInt8], left: Int, top: Int, advance: Double) {
        self.width = width
        self.height = height
        self.coverage = coverage
        self.left = left
        self.top = top
        self.advance = advance
    }
}

extension Scene {
    /// The picture painted on a canvas of `width × scale` by `height × scale` pixels, with text
    /// set by `text` (none drawn when it is nil or gives no mask).
    public func rasterized(scale: Double, text: (any TextRasterizer)?) -> Canvas {
        let scale = scale.isFinite && scale > 0 ? scale : 1
        var canvas = Canvas(width: Int((width * scale).rounded()), height: Int((height * scale).rounded()))
        for item in items {
            switch item {
            case .circle(let circle): canvas.draw(circle, scale: scale)
            case .lines(let lines): canvas.draw(lines, scale: scale)
            case .text(let line):
                if let mask = text?.mask(of: line.string, pixelSize: line.size * scale, bold: line.bold) {
                    canvas.draw(mask, centreX: line.centreX * scale, baseline: line.baseline * scale, colour: line.colour)
                }
            }
        }
        return canvas
    }
}

extension Canvas {
    /// A pixel's coverage by everything within `r` of the centre, from its distance `d` to it.
    private static func disc(_ r: Double, _ d: Double) -> Double { min(max(r - d + 0.5, 0), 1) }

    mutating func draw(_ circle: Scene.Circle, scale: Double) {
        let (cx, cy, r) = (circle.centre.x * scale, circle.centre.y * scale, circle.radius * scale)
        func distance(_ x: Double, _ y: Double) -> Double { ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot() }
        if let fill = circle.fill {
            paint(fill, box: (cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1)) { Self.disc(r, distance($0, $1)) }
        }
        if let stroke = circle.stroke {
            let half = stroke.width * scale / 2
            let reach = r + half + 1
            // The ring is the disc to the outer edge less the disc to the inner one.
            paint(stroke.colour, box: (cx - reach, cy - reach, cx + reach, cy + reach)) {
                let d = distance($0, $1)
                return Self.disc(r + half, d) - Self.disc(r - half, d)
            }
        }
    }

    mutating func draw(_ lines: Scene.Lines, scale: Double) {
        let half = lines.stroke.width * scale / 2
        for segment in lines.segments {
            let (ax, ay) = (segment.start.x * scale, segment.start.y * scale)
            let (bx, by) = (segment.end.x * scale, segment.end.y * scale)
            let length = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
            guard length > 0 else { continue }
            let (ux, uy) = ((bx - ax) / length, (by - ay) / length)
            let box = (min(ax, bx) - half - 1, min(ay, by) - half - 1, max(ax, bx) + half + 1, max(ay, by) + half + 1)
            // A butt-ended stroke is a rectangle: covered across its width times along its length.
            paint(lines.stroke.colour, box: box) { x, y in
                let along = (x - ax) * ux + (y - ay) * uy
                let across = abs((x - ax) * uy - (y - ay) * ux)
                let alongCover = min(max(min(along, length - along) + 0.5, 0), 1)
                let acrossCover = min(max(half - across + 0.5, 0), 1) - min(max(-half - across + 0.5, 0), 1)
                return alongCover * acrossCover
            }
        }
    }

    mutating func draw(_ mask: TextMask, centreX: Double, baseline: Double, colour: Colour) {
        // Glyph bitmaps sit on whole pixels; so does the pen, or the text would blur.
        let penX = Int((centreX - mask.advance / 2).rounded())
        let originX = penX + mask.left, originY = Int(baseline.rounded()) - mask.top
        guard mask.coverage.count == mask.width * mask.height else { return }
        for row in 0..<mask.height {
            let y = originY + row
            guard y >= 0, y < height else { continue }
            for column in 0..<mask.width {
                let x = originX + column
                let value = mask.coverage[row * mask.width + column]
                guard x >= 0, x < width, value > 0 else { continue }
                blend(colour, amount: Double(value) / 255 * colour.opacity, at: 4 * (y * width + x))
            }
        }
    }
}
