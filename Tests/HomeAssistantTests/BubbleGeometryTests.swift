#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geometry
import HomeAssistant
import Testing

@Suite("Bubble picture: where the bubble goes, and its colour")
struct BubbleGeometryTests {
    static let centre = BubblePicture.centre

    /// Unit gravity tilted by `tilt` with its high side towards `heading` (0° = +x, 90° = +y).
    static func gravity(tilt: Angle, heading degrees: Double) -> Vector3 {
        let heading = Angle(degrees: degrees).radians
        return Vector3(x: sin(tilt.radians) * cos(heading), y: sin(tilt.radians) * sin(heading), z: cos(tilt.radians))
    }

    static func picture(_ gravity: Vector3?, mount: Mount = .flat, tolerance: Angle = Angle(degrees: 0.1),
                        level: Bool = false, unit: AngleUnit = .deg) -> BubblePicture {
        BubblePicture(levelGravity: gravity, mount: mount, tolerance: tolerance, level: level, unit: unit)
    }

    static func offset(_ picture: BubblePicture) throws -> (dx: Double, dy: Double, distance: Double) {
        let point = try #require(picture.bubbleCentre)
        let (dx, dy) = (point.x - centre.x, point.y - centre.y)
        return (dx, dy, (dx * dx + dy * dy).squareRoot())
    }

    @Test("Level puts the bubble in the middle")
    func levelIsCentred() {
        #expect(Self.picture(Vector3(x: 0, y: 0, z: 1)).bubbleCentre == BubblePicture.Point(x: 100, y: 100))
        // Any magnitude: only the direction counts.
        #expect(Self.picture(Vector3(x: 0, y: 0, z: 0.97)).bubbleCentre == BubblePicture.Point(x: 100, y: 100))
    }

    @Test("The bubble goes to the high side: +x up moves it right, +y up moves it up")
    func highSide() throws {
        let tilt = Angle(degrees: 0.05)
        let right = try Self.offset(Self.picture(Self.gravity(tilt: tilt, heading: 0)))
        #expect(right.dx > 0 && right.dy == 0)
        let up = try Self.offset(Self.picture(Self.gravity(tilt: tilt, heading: 90)))
        #expect(up.dx == 0 && up.dy < 0)
        let downLeft = try Self.offset(Self.picture(Self.gravity(tilt: tilt, heading: 225)))
        #expect(downLeft.dx < 0 && downLeft.dy > 0 && abs(downLeft.dx + downLeft.dy) <= 0.1)
    }

    @Test("The bubble sits inside the target ring exactly when the tilt is within the tolerance",
          arguments: [0.01, 0.1, 1, 10, 45])
    func insideRingWithinTolerance(toleranceDegrees: Double) throws {
        let tolerance = Angle(degrees: toleranceDegrees)
        let limit = BubblePicture.toleranceOffset
        // The ring is drawn a bubble radius outside the tolerance offset, so the bubble just fits.
        #expect(BubblePicture.targetRingRadius == limit + BubblePicture.bubbleRadius)
        #expect(Self.picture(Self.gravity(tilt: tolerance, heading: 0), tolerance: tolerance).svg
            .contains(#"r="\#(Int(BubblePicture.targetRingRadius))""#))
        for heading in [0.0, 37, 90, 200, 300] {
            let inside = try Self.offset(Self.picture(Self.gravity(tilt: tolerance * 0.97, heading: heading), tolerance: tolerance))
            let outside = try Self.offset(Self.picture(Self.gravity(tilt: tolerance * 1.03, heading: heading), tolerance: tolerance))
            #expect(inside.distance <= limit, "heading \(heading)")
            #expect(outside.distance > limit, "heading \(heading)")
        }
    }

    @Test("The offset is proportional to sin(tilt); the edge is 4 × the tolerance and larger tilts are clamped")
    func scaleAndClamp() throws {
        let tolerance = Angle(degrees: 0.5)
        func distance(sineMultiple: Double) throws -> Double {
            let tilt = Angle(radians: asin(sineMultiple * sin(tolerance.radians)))
            return try Self.offset(Self.picture(Self.gravity(tilt: tilt, heading: 30), tolerance: tolerance)).distance
        }
        #expect(abs(try distance(sineMultiple: 1) - 19) <= 0.1)
        #expect(abs(try distance(sineMultiple: 2) - 38) <= 0.1)
        #expect(abs(try distance(sineMultiple: 4) - 76) <= 0.1)
        #expect(abs(try distance(sineMultiple: 10) - BubblePicture.maximumOffset) <= 0.1)
        // Clamped in the same direction.
        let far = try Self.offset(Self.picture(Self.gravity(tilt: Angle(degrees: 30), heading: 30), tolerance: tolerance))
        #expect(abs(atan2(-far.dy, far.dx) - Angle(degrees: 30).radians) < 0.01)
    }

    @Test("Whatever the reading, the whole bubble stays inside the disc")
    func alwaysInsideDisc() throws {
        let inside = BubblePicture.discRadius - BubblePicture.borderWidth / 2
        for tiltDegrees in stride(from: 0.0, through: 180, by: 7.5) {
            for heading in stride(from: 0.0, to: 360, by: 45) {
                for mount in [Mount.flat, .upright] {
                    let picture = Self.picture(Self.gravity(tilt: Angle(degrees: tiltDegrees), heading: heading),
                                               mount: mount, tolerance: Angle(degrees: 0.001))
                    let distance = try Self.offset(picture).distance
                    // The outline (1.5 wide) included.
                    #expect(distance + BubblePicture.bubbleRadius + 0.75 <= inside + 0.05)
                }
            }
        }
    }

    @Test("Upside down the bubble is pinned to the edge on the high side, or on the right")
    func upsideDown() throws {
        let slightly = try Self.offset(Self.picture(Self.gravity(tilt: Angle(degrees: 179.99), heading: 90)))
        #expect(abs(slightly.distance - BubblePicture.maximumOffset) <= 0.1 && slightly.dy < 0)
        let flatDown = Self.picture(Vector3(x: 0, y: 0, z: -1))
        #expect(flatDown.bubbleCentre == BubblePicture.Point(x: 100 + BubblePicture.maximumOffset, y: 100))
    }

    @Test("Upright, the bubble moves only along the bar, on the horizontal crosshair")
    func uprightAlongBar() throws {
        let tolerance = Angle(degrees: 0.2)
        for heading in [0.0, 60, 90, 135, 270] {
            let gravity = Self.gravity(tilt: Angle(degrees: 0.3), heading: heading)
            let offset = try Self.offset(Self.picture(gravity, mount: .upright, tolerance: tolerance))
            #expect(offset.dy == 0, "heading \(heading)")
            let expected = gravity.x / sin(tolerance.radians) * BubblePicture.toleranceOffset
            #expect(abs(offset.dx - min(max(expected, -76), 76)) <= 0.1, "heading \(heading)")
        }
    }

    @Test("A custom mount moves the bubble like flat")
    func customLikeFlat() throws {
        let custom = try Mount(parsing: "y,x,-z")
        let uprightSpelledOut = try Mount(parsing: "x,-z,y")
        for heading in [0.0, 45, 100, 250] {
            let gravity = Self.gravity(tilt: Angle(degrees: 0.07), heading: heading)
            let flat = Self.picture(gravity).bubbleCentre
            #expect(Self.picture(gravity, mount: custom).bubbleCentre == flat)
            #expect(Self.picture(gravity, mount: uprightSpelledOut).bubbleCentre == flat)
        }
    }

    @Test("Green when level, amber when not, grey with no bubble when there is no reading")
    func colours() {
        let gravity = Self.gravity(tilt: Angle(degrees: 0.05), heading: 10)
        let level = Self.picture(gravity, level: true).svg
        let notLevel = Self.picture(gravity, level: false).svg
        #expect(level.contains(##"fill="#1a7f37""##) && !level.contains(##"fill="#bf8700""##))
        #expect(notLevel.contains(##"fill="#bf8700""##) && !notLevel.contains(##"fill="#1a7f37""##))
        #expect(level.contains(">level</text>") && notLevel.contains(">not level</text>"))
        for missing in [nil, Vector3.zero, Vector3(x: .nan, y: 0, z: 1), Vector3(x: 0, y: .infinity, z: 1)] {
            let picture = Self.picture(missing, level: true)
            #expect(picture.bubbleCentre == nil)
            #expect(picture.svg.contains(">no reading</text>"))
            #expect(!picture.svg.contains("#1a7f37") && !picture.svg.contains("#bf8700"))
            #expect(!picture.svg.contains(#"r="10""#))
        }
    }

    @Test("A zero, negative or non-finite tolerance still draws a bubble inside the disc")
    func oddTolerances() throws {
        let gravity = Self.gravity(tilt: Angle(degrees: 1), heading: 0)
        for tolerance in [Angle.zero, Angle(degrees: -0.1), Angle(radians: .nan), Angle(degrees: 120)] {
            let distance = try Self.offset(Self.picture(gravity, tolerance: tolerance)).distance
            #expect(distance <= BubblePicture.maximumOffset)
        }
        // A negative tolerance counts by its magnitude.
        #expect(Self.picture(gravity, tolerance: Angle(degrees: -2)).bubbleCentre
            == Self.picture(gravity, tolerance: Angle(degrees: 2)).bubbleCentre)
    }
}
