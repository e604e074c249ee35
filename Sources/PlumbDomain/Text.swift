// Small text helpers shared by the parsers. Plain Swift rather than Foundation so parsing
// behaves the same on every platform and never depends on a locale.

extension Substring {
    /// The text without leading and trailing whitespace (any Unicode whitespace, newlines too).
    var trimmingWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension String {
    /// The text without leading and trailing whitespace (any Unicode whitespace, newlines too).
    var trimmingWhitespace: Substring { self[...].trimmingWhitespace }
}
