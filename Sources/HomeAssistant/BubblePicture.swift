#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Drawing
import Geometry

/// The bubble-level picture: a round vial with the bubble where the reading puts it, published
/// as a PNG on `P/bubble` (Home Assistant's MQTT camera) and drawn as SVG by `plumb bubble`.
///
/// What it shows:
/// - a disc with a border ring and crosshairs, and a target ring around the centre;
/// - the bubble, which goes to the high side like a real one: gravity's level-frame x > 0 means
///   +x is up, so the bubble moves right; y > 0 means +y is up, so it moves up. A `flat` or
///   custom mount moves it in both axes; `upright` (a bar level) only along the bar, on the
///   horizontal crosshair;
/// - green when `level`, amber when not, grey with no bubble when there is no reading, and the
///   words "level", "not level" or "no reading" so colour is never the only cue;
/// - the tilt in the angle unit, with the unit's display decimals (`0.120°`, `2.10 mm/m`), or `—`
///   where a slope unit has no value (tilt ≥ 90°).
///
/// **Scale.** The bubble's centre is offset from the middle by `sin(tilt)` (in its direction)
/// times ``toleranceOffset`` / `sin(tolerance)`. The target ring is drawn ``bubbleRadius`` outside
/// that offset, so the whole bubble fits inside the ring exactly when the tilt is within the
/// tolerance. The farthest the bubble travels, ``maximumOffset``, is 4 × ``toleranceOffset``: the
/// disc's edge stands for 4 × the tolerance (in sine), and a larger tilt pins the bubble to the
/// edge on the high side. Upside down (the level frame's z pointing down) it is pinned to the
/// edge too, however small the sideways part; straight upside down, on the right.
///
/// The picture is deterministic, coordinates rounded to 0.1 user unit: equal inputs give equal
/// scenes, so the agent can publish only when they change.
public struct BubblePicture: Sendable, Equatable {
    /// A point in user units: x to the right, y downward, origin at the top left.
    public typealias Point = Drawing.Point

    /// The side of the square viewBox (and the default width and height), in user units.
    public static let size: Double = 200
    /// The PNG's pixels per user unit: 200 × 200 pixels, a palette PNG of about 4.5 KB. Twice that
    /// is sharper on a card 400 pixels wide but four times the pixels, and a rocking machine sends
    /// one a second.
    public static let pngScale: Double = 1

    /// The middle of the disc.
    public static let centre = Point(x: size / 2, y: size / 2)
    /// The disc's radius, to the middle of its border ring.
    public static let discRadius: Double = 90
    /// The border ring's stroke width; the inside of the disc ends at `discRadius − borderWidth/2`.
    public static let borderWidth: Double = 4
    /// The bubble's radius.
    public static let bubbleRadius: Double = 10
    /// The farthest the bubble's centre moves from the middle: the whole bubble, outline
    /// included, stays inside the border.
    public static let maximumOffset: Double = 76
    /// The bubble's offset at a tilt equal to the tolerance: a quarter of ``maximumOffset``.
    public static let toleranceOffset: Double = maximumOffset / 4
    /// The target ring's radius: the bubble just fits inside it at the tolerance.
    public static let targetRingRadius: Double = toleranceOffset + bubbleRadius

    /// The shapes, for the SVG and the PNG alike.
    public let scene: Scene
    /// Where the bubble's centre is drawn, rounded like the SVG; nil when there is no reading.
    public let bubbleCentre: Point?

    /// The standalone SVG 1.1 document, UTF-8 (`plumb bubble`).
    public var svg: String { scene.svg }

    /// ``svg`` as bytes.
    public var bytes: [UInt8] { Array(svg.utf8) }

    /// The picture of one reading.
    ///
    /// - Parameters:
    ///   - levelGravity: gravity in the level frame (after the mount and the zero reference), in
    ///     g, any magnitude; nil (or a zero or non-finite vector) draws the grey "no reading"
    ///     picture.
    ///   - mount: `upright` moves the bubble only along the bar; any other mount in both axes.
    ///   - tolerance: the level tolerance, which sets the scale. Taken as its magnitude and kept
    ///     within 0.000001°…90°; a non-finite tolerance is read as the default 0.1°.
    ///   - level: the level state to colour the bubble by (with hysteresis and dwell, it can
    ///     differ from the geometry near the tolerance).
    ///   - unit: the unit the tilt is written in.
    public init(levelGravity: Vector3?, mount: Mount, tolerance: Angle, level: Bool, unit: AngleUnit) {
        let direction = levelGravity.flatMap { $0.isFinite ? $0.normalized : nil }
        let centre = direction.map {
            Self.bubbleCentre(direction: $0, alongBarOnly: mount == .upright, tolerance: tolerance)
        }
        bubbleCentre = centre
        let tilt = direction.map { Attitude(gravity: $0).tilt }
        scene = Self.scene(bubble: centre, tiltText: tilt.map { Self.tiltText($0, unit: unit) }, level: level)
    }

    /// Where the bubble goes for a unit gravity `direction` in the level frame.
    static func bubbleCentre(direction u: Vector3, alongBarOnly: Bool, tolerance: Angle) -> Point {
        let across = alongBarOnly ? 0 : u.y
        let sideways = (u.x * u.x + across * across).squareRoot()
        let scale = toleranceOffset / sin(usableTolerance(tolerance).radians)
        var offset = (x: u.x * scale, y: across * scale)
        if u.z <= 0 || sideways * scale > maximumOffset {
            // Beyond the scale, or upside down: pinned to the edge on the high side.
            offset = sideways > 0
                ? (x: u.x / sideways * maximumOffset, y: across / sideways * maximumOffset)
                : (x: maximumOffset, y: 0)
        }
        // SVG y grows downward, so a high +y side moves the bubble up.
        return Point(x: rounded(centre.x + offset.x), y: rounded(centre.y - offset.y))
    }

    /// The tolerance that sets the scale: positive, at most 90°, finite.
    static func usableTolerance(_ tolerance: Angle) -> Angle {
        guard tolerance.isFinite else { return Angle(degrees: 0.1) }
        return Angle(radians: min(max(abs(tolerance.radians), Angle(degrees: 1e-6).radians), .pi / 2))
    }

    /// `value` rounded to 0.1, never -0.
    static func rounded(_ value: Double) -> Double {
        let result = (value * 10).rounded() / 10
        return result == 0 ? 0 : result
    }
}
