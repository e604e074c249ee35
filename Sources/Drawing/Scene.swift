/// A picture as a list of shapes, painted in order: what both the SVG writer and the rasterizer
/// draw, so the two can never disagree on where anything is.
///
/// Coordinates are user units, x to the right and y downward, origin at the top left, as in SVG.
/// Strokes are centred on their outline, as SVG draws them.
public struct Scene: Sendable, Equatable {
    /// The width and height of the picture, in user units.
    public var width: Double
    public var height: Double
    /// A short description of the whole picture, for screen readers (SVG `<title>`).
    public var title: String?
    /// The shapes, the first painted first (underneath).
    public var items: [Item]

    /// An empty picture `width` × `height` user units.
    public init(width: Double, height: Double, title: String? = nil, items: [Item] = []) {
        self.width = width
        self.height = height
        self.title = title
        self.items = items
    }

    /// One shape.
    public enum Item: Sendable, Equatable {
        case circle(Circle)
        case lines(Lines)
        case text(Text)
    }

    /// A circle, filled, outlined or both (the outline painted over the fill).
    public struct Circle: Sendable, Equatable {
        public var centre: Point
        public var radius: Double
        public var fill: Colour?
        public var stroke: Stroke?

        public init(centre: Point, radius: Double, fill: Colour?, stroke: Stroke?) {
            self.centre = centre
            self.radius = radius
            self.fill = fill
            self.stroke = stroke
        }
    }

    /// Straight line segments with butt ends, all in one stroke.
    public struct Lines: Sendable, Equatable {
        public var segments: [Segment]
        public var stroke: Stroke

        public init(segments: [Segment], stroke: Stroke) {
            self.segments = segments
            self.stroke = stroke
        }
    }

    /// A line of text centred on `centreX`, standing on the baseline `baseline`.
    public struct Text: Sendable, Equatable {
        public var string: String
        public var centreX: Double
        public var baseline: Double
        /// The em size, in user units.
        public var size: Double
        public var colour: Colour
        public var bold: Bool

        public init(_ string: String, centreX: Double, baseline: Double, size: Double, colour: Colour, bold: Bool) {
            self.string = string
            self.centreX = centreX
            self.baseline = baseline
            self.size = size
            self.colour = colour
            self.bold = bold
        }
    }
}

/// A point in user units: x to the right, y downward, origin at the top left.
public struct Point: Sendable, Equatable, Hashable {
    /// User units from the left edge.
    public var x: Double
    /// User units from the top edge.
    public var y: Double

    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A straight line from `start` to `end`.
public struct Segment: Sendable, Equatable {
    public var start: Point
    public var end: Point

    public init(from start: Point, to end: Point) {
        self.start = start
        self.end = end
    }
}

/// How an outline is drawn: its colour and its width in user units.
public struct Stroke: Sendable, Equatable {
    public var colour: Colour
    public var width: Double

    public init(_ colour: Colour, width: Double) {
        self.colour = colour
        self.width = width
    }
}

/// An sRGB colour with an opacity.
public struct Colour: Sendable, Equatable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// 0 (transparent) … 1 (opaque).
    public var opacity: Double

    /// The colour `0xRRGGBB`, e.g. `Colour(0x1f2328)`.
    public init(_ rgb: UInt32, opacity: Double = 1) {
        red = UInt8((rgb >> 16) & 0xFF)
        green = UInt8((rgb >> 8) & 0xFF)
        blue = UInt8(rgb & 0xFF)
        self.opacity = min(max(opacity, 0), 1)
    }

    /// White.
    public static let white = Colour(0xFFFFFF)

    /// `#rrggbb`, without the opacity.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return "#" + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
