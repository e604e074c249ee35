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

/// Messages made of sentences from different places (an error's reason, its advice, what the
/// agent does next), joined so each ends with exactly one full stop whether or not its source
/// wrote one: libmosquitto's "The connection was lost." does, a kernel's "ECONNREFUSED" doesn't.
public enum Sentences {
    /// The parts, trimmed, each ended with `.` unless it already ends with `.`, `!` or `?`,
    /// joined by one space; empty parts are left out.
    public static func join(_ parts: [String]) -> String {
        parts.map { String($0.trimmingWhitespace) }.filter { !$0.isEmpty }.map { part in
            guard let last = part.last, !".!?".contains(last) else { return part }
            return part + "."
        }.joined(separator: " ")
    }

    /// ``join(_:)`` for a fixed list of parts.
    public static func join(_ parts: String...) -> String { join(parts) }
}
