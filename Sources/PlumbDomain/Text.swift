// Small text helpers shared by the parsers and the pictures. Plain Swift rather than Foundation
// so parsing behaves the same on every platform and never depends on a locale.

extension Substring {
    /// The text without leading and trailing whitespace (any Unicode whitespace, newlines too).
    public var trimmingWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension String {
    /// The text without leading and trailing whitespace (any Unicode whitespace, newlines too).
    public var trimmingWhitespace: Substring { self[...].trimmingWhitespace }

    /// The text with `&`, `<`, `>`, `"` and `'` as XML entities, safe inside an element or an
    /// attribute of either quote: for the SVG pictures, whose text can hold a unit such as `in/ft`.
    public var xmlEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
