import Geometry

extension BubblePicture {
    // Colours: GitHub's Primer palette, chosen for contrast. The bubble colours reach 3:1 against
    // the disc (WCAG's minimum for graphics) and carry a dark outline besides; the text is near
    // black on near white.
    static let ink = "#1f2328"
    static let mutedInk = "#57606a"
    static let discFill = "#f6f8fa"
    static let crosshairColour = "#8c959f"
    static let levelColour = "#1a7f37"
    static let notLevelColour = "#bf8700"

    /// The whole document. `bubble` nil draws the "no reading" picture.
    static func render(bubble: Point?, tiltText: String?, level: Bool) -> String {
        let c = centre
        let inside = discRadius - borderWidth / 2
        let side = number(size)
        var svg = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        svg += #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1""#
            + #" width="\#(side)" height="\#(side)" viewBox="0 0 \#(side) \#(side)">"# + "\n"

        let status = bubble == nil ? "no reading" : level ? "level" : "not level"
        let title = tiltText.map { "Tilt \($0): \(status)" } ?? "No reading"
        svg += "<title>\(title.xmlEscaped)</title>\n"

        svg += circle(c, radius: discRadius, fill: discFill, stroke: mutedInk, width: borderWidth)
        let (near, far) = (number(c.x - inside), number(c.x + inside))
        let (top, bottom) = (number(c.y - inside), number(c.y + inside))
        svg += #"<path d="M\#(near) \#(number(c.y))H\#(far)M\#(number(c.x)) \#(top)V\#(bottom)""#
            + #" fill="none" stroke="\#(crosshairColour)" stroke-width="1"/>"# + "\n"
        svg += circle(c, radius: targetRingRadius, fill: "none", stroke: ink, width: 1.5)

        if let bubble {
            svg += circle(bubble, radius: bubbleRadius, fill: level ? levelColour : notLevelColour, stroke: ink, width: 1.5)
            // A highlight, up and left, so it reads as a bubble rather than a dot.
            let glint = Point(x: bubble.x - bubbleRadius * 0.35, y: bubble.y - bubbleRadius * 0.35)
            svg += #"<circle cx="\#(number(glint.x))" cy="\#(number(glint.y))" r="3" fill="white" fill-opacity="0.6"/>"#
                + "\n"
        }

        // In the half the bubble is not in: with the high side down the bubble sits low, and a
        // label there would be under it (drawn after it, the figures would sit on amber).
        let labelAbove = bubble.map { $0.y > c.y + 0.5 } ?? false
        if let tiltText {
            // Near 90° a slope runs to many digits: shrink it to stay inside the disc (11
            // characters fit at 20 user units; longer ones get about 200 / count).
            let fitted = tiltText.count <= 11 ? 20 : max(8, (200 / Double(tiltText.count)).rounded())
            svg += text(tiltText, y: labelAbove ? c.y - 58 : c.y + 52, size: fitted, colour: ink, bold: true)
            svg += text(status, y: labelAbove ? c.y - 40 : c.y + 70, size: 12, colour: mutedInk, bold: false)
        } else {
            svg += text(status, y: c.y + 56, size: 16, colour: mutedInk, bold: false)
        }
        return svg + "</svg>\n"
    }

    private static func circle(_ point: Point, radius: Double, fill: String, stroke: String, width: Double) -> String {
        #"<circle cx="\#(number(point.x))" cy="\#(number(point.y))" r="\#(number(radius))""#
            + #" fill="\#(fill)" stroke="\#(stroke)" stroke-width="\#(number(width))"/>"# + "\n"
    }

    private static func text(_ content: String, y: Double, size: Double, colour: String, bold: Bool) -> String {
        #"<text x="\#(number(centre.x))" y="\#(number(y))" text-anchor="middle" font-family="sans-serif""#
            + #" font-size="\#(number(size))"\#(bold ? #" font-weight="bold""# : "") fill="\#(colour)">"#
            + content.xmlEscaped + "</text>\n"
    }

    /// The tilt as shown: `0.120°`, `0.210%`, `2.10 mm/m`, `0.0252 in/ft`, with the unit's
    /// display decimals (fixed, so the figure doesn't jump about as it changes), or `—` where
    /// the unit has no value (a slope at 90° or more).
    static func tiltText(_ tilt: Angle, unit: AngleUnit) -> String {
        guard let value = tilt.value(in: unit), value.isFinite else { return "—" }
        // The README writes `0.2%` and `1.5 mm/m`: signs hug the number, words get a space.
        let gap = unit == .deg || unit == .percent ? "" : " "
        return fixed(value, decimals: unit.displayDecimals) + gap + unit.symbol
    }

    /// `value` with exactly `decimals` decimals, without Foundation's locale-dependent formatting.
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        // Past 2^53 integers stop being exact; such a slope (within a hair of 90°) reads fine as is.
        guard scaled < 9e15 else { return "\(value)" }
        let units = Int64(scaled)
        let sign = value < 0 && units != 0 ? "-" : ""
        let whole = String(units / scale)
        guard scale > 1 else { return sign + whole }
        let fraction = String(units % scale)
        let padding = String(repeating: "0", count: String(scale).count - 1 - fraction.count)
        return sign + whole + "." + padding + fraction
    }

    /// A coordinate as written in the SVG: rounded to 0.1, `100` rather than `100.0`, never `-0`.
    static func number(_ value: Double) -> String {
        let value = rounded(value)
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

}
