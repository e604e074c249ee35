import Geometry
import Ruler

/// A ruler drawn as the classic on-screen ruler control draws it, as a standalone SVG 1.1 file.
///
/// A light body the ruler's width plus a margin each side; the ticks hang from the top edge,
/// each as long as its height fraction of a whole unit's tick; the whole units are labelled
/// 0…N under their ticks; the unit's name sits in the bottom-left corner; an indicator is a red
/// line across the body with what it reads. Pixel positions are the layout's own, shifted by the
/// margin, so one SVG user unit is one pixel of the ruler and the file renders at its own size.
enum RulerDrawing {
    /// The body's height in px.
    static let height = 72
    /// The length of a whole unit's tick (height fraction 1) in px.
    static let wholeTickLength = 30.0
    static let labelFontSize = 12.0
    static let labelBaseline = 46.0
    static let indicatorFontSize = 11.0
    static let indicatorBaseline = 60.0
    static let unitFontSize = 10.0
    static let unitBaseline = 68.0
    /// How wide a digit is for a font size of 1: a fair figure for sans-serif digits, used only
    /// to keep labels apart and inside the body.
    static let digitWidth = 0.6

    /// The SVG text: the same layout and indicator always give the same bytes.
    ///
    /// Builds every tick of `layout` whatever their number: a caller checks
    /// ``RulerLayout/tickCount`` first (the ruler service's limit is 20,000). The ticks of each
    /// rank are one `path`, so the file grows by about 15 bytes a tick. An `indicatorPx` off the
    /// ruler is not drawn.
    static func svg(layout: RulerLayout, indicatorPx: Double?) -> String {
        let ticks = layout.ticks()
        let unit = layout.length.unit.symbol
        let lastLabel = ticks.last { $0.label != nil }?.label ?? "0"
        let labelWidth = Double(lastLabel.count) * digitWidth * labelFontSize
        // Room for half the widest label at each end, so "0" and "30" stay on the body.
        let margin = max(10, (labelWidth / 2 + 4).rounded(.up))
        let width = Int((layout.widthPx + 2 * margin).rounded(.up))
        // A 1 px line centred on a pixel's middle fills that one column instead of blurring
        // across two: ruler pixel p is the column from margin + p to margin + p + 1.
        let origin = margin + 0.5

        var svg = "<?xml version='1.0' encoding='UTF-8' standalone='no'?>\n"
        svg.reserveCapacity(ticks.count * 16 + 2048)
        svg += "<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='\(width)' height='\(height)'"
            + " viewBox='0 0 \(width) \(height)'>\n"
        let title = "\(layout.length) ruler, \(layout.style.rawValue) graduations, "
            + "\(plain(layout.density.pixelsPerUnit, 6)) px/\(unit)"
        svg += "<title>\(title.xmlEscaped)</title>\n"
        svg += "<rect x='0.5' y='0.5' width='\(width - 1)' height='\(height - 1)' fill='#f7f3e3' stroke='#9a937c'"
            + " stroke-width='1'/>\n"

        // One path per rank: a 20,000-tick ruler stays a handful of elements.
        var paths: [Int: String] = [:]
        for tick in ticks {
            paths[tick.rank, default: ""] += "M" + plain(origin + tick.px, 3) + " 0V"
                + plain(tick.height * wholeTickLength, 3)
        }
        for rank in paths.keys.sorted() {
            svg += "<path fill='none' stroke='#2b2b2b' stroke-width='1' d='" + (paths[rank] ?? "") + "'/>\n"
        }

        svg += "<g font-family='sans-serif' font-size='\(plain(labelFontSize, 1))' fill='#2b2b2b' text-anchor='middle'>\n"
        let step = labelStep(unitWidthPx: layout.density.pixelsPerUnit, labelWidth: labelWidth)
        var whole = 0
        for tick in ticks {
            guard let label = tick.label else { continue }
            defer { whole += 1 }
            guard whole.isMultiple(of: step) else { continue }
            svg += "<text x='\(plain(origin + tick.px, 3))' y='\(plain(labelBaseline, 1))'>" + label.xmlEscaped + "</text>\n"
        }
        svg += "</g>\n"
        svg += "<text x='4' y='\(plain(unitBaseline, 1))' font-family='sans-serif' font-size='\(plain(unitFontSize, 1))'"
            + " fill='#6b6552'>\(unit.xmlEscaped)</text>\n"

        if let indicatorPx, let reading = try? layout.length(atPixel: indicatorPx) {
            svg += indicator(at: origin + indicatorPx, reading: reading, px: indicatorPx, width: Double(width))
        }
        svg += "</svg>\n"
        return svg
    }

    /// Every how many whole units a label is drawn: 1, 2, 5, 10, 20, 50, … whichever first
    /// leaves room between labels (a millimetre ruler at 8 px/mm cannot label every mm).
    static func labelStep(unitWidthPx: Double, labelWidth: Double) -> Int {
        let needed = labelWidth + 4
        var decade = 1
        // Past the most ticks a ruler may have, only "0" is labelled anyway.
        while decade <= RulerLayout.maximumTicks {
            for step in [decade, 2 * decade, 5 * decade] where Double(step) * unitWidthPx >= needed {
                return step
            }
            decade *= 10
        }
        return decade
    }

    /// The red indicator line at `x` across the body, with its reading beside it: to the right
    /// of the line when there is room, else to its left.
    private static func indicator(at x: Double, reading: Length, px: Double, width: Double) -> String {
        let unit = reading.unit
        let label = "\(plain(px, 3)) px = " + LengthArgument.text(reading.value, unit)
        let labelWidth = Double(label.count) * digitWidth * indicatorFontSize
        let toTheRight = x + 3 + labelWidth <= width
        let textX = toTheRight ? x + 3 : x - 3
        return "<g fill='#d0021b' stroke='#d0021b'>\n"
            + "<line x1='\(plain(x, 3))' y1='0' x2='\(plain(x, 3))' y2='\(height)' stroke-width='1'/>\n"
            + "<text x='\(plain(textX, 3))' y='\(plain(indicatorBaseline, 1))' stroke='none' font-family='sans-serif'"
            + " font-size='\(plain(indicatorFontSize, 1))' text-anchor='\(toTheRight ? "start" : "end")'>"
            + label.xmlEscaped + "</text>\n</g>\n"
    }

}
