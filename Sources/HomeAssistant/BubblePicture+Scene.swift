import Drawing
import Geometry

extension BubblePicture {
    // Colours: GitHub's Primer palette, chosen for contrast. The bubble colours reach 3:1 against
    // the disc (WCAG's minimum for graphics) and carry a dark outline besides; the text is near
    // black on near white.
    static let ink = Colour(0x1f2328)
    static let mutedInk = Colour(0x57606a)
    static let discFill = Colour(0xf6f8fa)
    static let crosshairColour = Colour(0x8c959f)
    static let levelColour = Colour(0x1a7f37)
    static let notLevelColour = Colour(0xbf8700)

    /// The whole picture. `bubble` nil draws the "no reading" picture.
    static func scene(bubble: Point?, tiltText: String?, level: Bool) -> Scene {
        let c = centre
        let inside = discRadius - borderWidth / 2
        let status = bubble == nil ? "no reading" : level ? "level" : "not level"
        var scene = Scene(width: size, height: size, title: tiltText.map { "Tilt \($0): \(status)" } ?? "No reading")

        scene.items.append(.circle(.init(centre: c, radius: discRadius, fill: discFill, stroke: Stroke(mutedInk, width: borderWidth))))
        scene.items.append(.lines(.init(segments: [
            Segment(from: Point(x: c.x - inside, y: c.y), to: Point(x: c.x + inside, y: c.y)),
            Segment(from: Point(x: c.x, y: c.y - inside), to: Point(x: c.x, y: c.y + inside)),
        ], stroke: Stroke(crosshairColour, width: 1))))
        scene.items.append(.circle(.init(centre: c, radius: targetRingRadius, fill: nil, stroke: Stroke(ink, width: 1.5))))

        if let bubble {
            scene.items.append(.circle(.init(centre: bubble, radius: bubbleRadius, fill: level ? levelColour : notLevelColour,
                                             stroke: Stroke(ink, width: 1.5))))
            // A highlight, up and left, so it reads as a bubble rather than a dot.
            let glint = Point(x: bubble.x - bubbleRadius * 0.35, y: bubble.y - bubbleRadius * 0.35)
            scene.items.append(.circle(.init(centre: glint, radius: 3, fill: Colour(0xFFFFFF, opacity: 0.6), stroke: nil)))
        }

        // In the half the bubble is not in: with the high side down the bubble sits low, and a
        // label there would be under it (drawn after it, the figures would sit on amber).
        let labelAbove = bubble.map { $0.y > c.y + 0.5 } ?? false
        if let tiltText {
            // Near 90° a slope runs to many digits: shrink it to stay inside the disc (11
            // characters fit at 20 user units; longer ones get about 200 / count).
            let fitted = tiltText.count <= 11 ? 20 : max(8, (200 / Double(tiltText.count)).rounded())
            scene.items.append(.text(.init(tiltText, centreX: c.x, baseline: labelAbove ? c.y - 58 : c.y + 52, size: fitted,
                                           colour: ink, bold: true)))
            scene.items.append(.text(.init(status, centreX: c.x, baseline: labelAbove ? c.y - 40 : c.y + 70, size: 12,
                                           colour: mutedInk, bold: false)))
        } else {
            scene.items.append(.text(.init(status, centreX: c.x, baseline: c.y + 56, size: 16, colour: mutedInk, bold: false)))
        }
        return scene
    }

    /// The tilt as shown: `0.120°`, `0.210%`, `2.10 mm/m`, `0.0252 in/ft`, with the unit's
    /// display decimals (fixed, so the figure doesn't jump about as it changes), or `—` where
    /// the unit has no value (a slope at 90° or more).
    static func tiltText(_ tilt: Angle, unit: AngleUnit) -> String {
        guard let value = tilt.value(in: unit), value.isFinite else { return "—" }
        // The README writes `0.2%` and `1.5 mm/m`: signs hug the number, words get a space.
        let gap = unit == .deg || unit == .percent ? "" : " "
        return fixed(value, unit.displayDecimals) + gap + unit.symbol
    }

    /// A coordinate as written in the SVG: rounded to 0.1, `100` rather than `100.0`, never `-0`.
    static func number(_ value: Double) -> String { Scene.number(value) }
}
