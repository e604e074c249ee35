// Column formatting for the CLI's text output; the numbers come from Geometry's fixed and plain.

extension String {
    /// Left-aligned in a column of `width` characters (never truncated).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Right-aligned in a column of `width` characters (never truncated).
    func rightAligned(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
