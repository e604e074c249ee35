#if canImport(Glibc)
import Glibc
#endif
import Drawing
import Geometry
import HomeAssistant

/// The bubble level of `plumb watch`, drawn in characters: a round vial with crosshairs, the
/// target ring and the bubble on the high side.
///
/// The geometry is ``BubblePicture``'s, the picture the agent publishes and `plumb bubble` draws,
/// so the two can't disagree: the bubble sits where that picture puts it, as a fraction of its
/// travel (the edge is 4 × the tolerance, in sine; beyond it or upside down the bubble is pinned
/// to the edge on the high side), and the ring is where a bubble within the tolerance stays.
/// A terminal cell is about twice as tall as it is wide, so the vial is twice as many columns
/// across as rows.
enum TextBubble {
    /// Columns from the centre to the farthest the bubble goes.
    static let travelColumns = 12.0
    /// Rows from the centre to the farthest the bubble goes.
    static let travelRows = 6.0
    /// The vial's edge, as a fraction of the travel: the picture's inner edge over its travel.
    static let edge = (BubblePicture.discRadius - BubblePicture.borderWidth / 2) / BubblePicture.maximumOffset
    /// The target ring, as a fraction of the travel: a bubble at the tolerance plus one cell, so
    /// the bubble's cell is inside the ring exactly when the tilt is within the tolerance.
    static let ring = BubblePicture.toleranceOffset / BubblePicture.maximumOffset

    /// Columns across (odd: the centre is a cell).
    static let width = 2 * Int((travelColumns * edge).rounded()) + 1
    /// Rows down (odd).
    static let height = 2 * Int((travelRows * edge).rounded()) + 1

    /// Where `picture` puts the bubble as a fraction of its travel: x to the right, y up; nil
    /// when it has no reading.
    static func offset(of picture: BubblePicture) -> (x: Double, y: Double)? {
        picture.bubbleCentre.map { centre in
            ((centre.x - BubblePicture.centre.x) / BubblePicture.maximumOffset,
             (BubblePicture.centre.y - centre.y) / BubblePicture.maximumOffset)
        }
    }

    /// The vial's rows, each ``width`` characters, with `mark` (one cell, perhaps coloured) at
    /// `bubble`; no bubble for nil.
    static func rows(bubble: (x: Double, y: Double)?, mark: String = "O") -> [String] {
        let middleColumn = width / 2
        let middleRow = height / 2
        var grid = Array(repeating: Array(repeating: " ", count: width), count: height)
        func put(_ text: String, column: Int, row: Int) {
            guard (0..<height).contains(row), (0..<width).contains(column) else { return }
            grid[row][column] = text
        }
        for column in 0..<width where column % 2 == 0 { put("-", column: column, row: middleRow) }
        for row in 0..<height { put("|", column: middleColumn, row: row) }
        put("+", column: middleColumn, row: middleRow)
        // The outlines as sampled circles; the ring one cell wider than the tolerance's offset.
        for step in 0..<180 {
            let angle = Double(step) * 2 * .pi / 180
            let (c, s) = (cos(angle), sin(angle))
            put(".", column: middleColumn + Int((c * edge * travelColumns).rounded()),
                row: middleRow - Int((s * edge * travelRows).rounded()))
            put(":", column: middleColumn + Int((c * (ring * travelColumns + 1)).rounded()),
                row: middleRow - Int((s * (ring * travelRows + 1)).rounded()))
        }
        if let bubble {
            put(mark, column: middleColumn + Int((bubble.x * travelColumns).rounded()),
                row: middleRow - Int((bubble.y * travelRows).rounded()))
        }
        return grid.map { $0.joined() }
    }
}
