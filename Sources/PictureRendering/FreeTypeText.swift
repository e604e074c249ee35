import CFreeType
import Drawing

/// Text set with FreeType from a font file: DejaVu Sans by default, what Debian's `sans-serif`
/// is and what `fonts-dejavu-core` installs.
///
/// Each ``mask(of:pixelSize:bold:)`` opens the font and closes it again. The agent draws at
/// most one picture a second, and holding FreeType open would keep about a megabyte resident
/// for nothing in between.
public struct FreeTypeText: TextRasterizer, Sendable {
    /// The regular and the bold face.
    public let regular: String
    public let bold: String

    /// Debian's DejaVu Sans (the package `fonts-dejavu-core`).
    public static let dejaVuRegular = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    public static let dejaVuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    public init(regular: String = Self.dejaVuRegular, bold: String = Self.dejaVuBold) {
        self.regular = regular
        self.bold = bold
    }

    /// Why text cannot be drawn, or nil when both faces open.
    public func problem() -> String? {
        for path in [regular, bold] {
            if let reason = withFace(path: path, pixelSize: 12, { _ in nil as String? }).failure {
                return reason
            }
        }
        return nil
    }

    public func mask(of text: String, pixelSize: Double, bold: Bool) -> TextMask? {
        guard pixelSize.isFinite, pixelSize >= 1, pixelSize <= 512 else { return nil }
        return withFace(path: bold ? self.bold : regular, pixelSize: pixelSize) { face in Self.layOut(text, face: face) }.value
    }

    /// `body` with the face at `path` open at `pixelSize`; the result, or why the face would not open.
    private func withFace<T>(path: String, pixelSize: Double, _ body: (FT_Face) -> T?) -> (value: T?, failure: String?) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return (nil, "FreeType would not start") }
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            return (nil, "the font \(path) would not open: install fonts-dejavu-core")
        }
        defer { FT_Done_Face(face) }
        guard FT_Set_Char_Size(face, 0, FT_F26Dot6((pixelSize * 64).rounded()), 72, 72) == 0 else {
            return (nil, "the font \(path) has no size \(pixelSize)")
        }
        return (body(face), nil)
    }

    /// One glyph's coverage and where it goes.
    private struct Glyph {
        var x: Int, top: Int, width: Int, rows: Int, coverage: [UInt8]
    }

    /// Renders each character and joins them on one baseline.
    private static func layOut(_ text: String, face: FT_Face) -> TextMask? {
        var glyphs: [Glyph] = []
        var pen = 0 // 26.6 fixed point
        for scalar in text.unicodeScalars {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            guard FT_Load_Glyph(face, index, plumb_ft_load_render) == 0, let slot = face.pointee.glyph else { continue }
            let bitmap = slot.pointee.bitmap
            let (width, rows, pitch) = (Int(bitmap.width), Int(bitmap.rows), Int(bitmap.pitch))
            var coverage = [UInt8](repeating: 0, count: width * rows)
            if let buffer = bitmap.buffer, width > 0, rows > 0 {
                for row in 0..<rows {
                    // A negative pitch means the rows run bottom-up.
                    let start = pitch >= 0 ? row * pitch : (rows - 1 - row) * -pitch
                    for column in 0..<width { coverage[row * width + column] = buffer[start + column] }
                }
            }
            glyphs.append(Glyph(x: (pen >> 6) + Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                                width: width, rows: rows, coverage: coverage))
            pen += Int(slot.pointee.advance.x)
        }
        let inked = glyphs.filter { $0.width > 0 && $0.rows > 0 }
        guard let left = inked.map(\.x).min(), let right = inked.map({ $0.x + $0.width }).max(),
              let top = inked.map(\.top).max(), let bottom = inked.map({ $0.top - $0.rows }).min()
        else { return nil }
        let (width, height) = (right - left, top - bottom)
        var coverage = [UInt8](repeating: 0, count: width * height)
        for glyph in inked {
            for row in 0..<glyph.rows {
                for column in 0..<glyph.width {
                    let index = (top - glyph.top + row) * width + (glyph.x - left + column)
                    coverage[index] = max(coverage[index], glyph.coverage[row * glyph.width + column])
                }
            }
        }
        return TextMask(width: width, height: height, coverage: coverage, left: left, top: top, advance: Double(pen) / 64)
    }
}
