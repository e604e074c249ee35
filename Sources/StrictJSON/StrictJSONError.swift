/// Why bytes are not strict JSON: what is wrong, where, and (in ``description``) what to send
/// instead.
///
/// ``description`` is one clause for a person, such as
/// `not JSON (line 1, column 38): duplicate object key "level_tolerance"; send each key once`,
/// without a final full stop, so a caller can write "the message is \(error)." or add its own
/// advice after a semicolon.
public struct StrictJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for callers and tests that tell problems apart.
    public enum Problem: Sendable, Equatable {
        /// More bytes than ``StrictJSON/maximumBytes``; nothing was parsed.
        case tooLarge(bytes: Int, limit: Int)
        /// Nothing but whitespace.
        case empty
        /// The text starts with a UTF-8 byte order mark, which RFC 8259 forbids senders to add.
        case byteOrderMark
        /// A byte sequence that is not UTF-8 (an invalid, overlong or surrogate sequence).
        case notUTF8
        /// The text ends inside a value: an unclosed object, array or string.
        case endsEarly
        /// A comma right before `}` or `]`.
        case trailingComma
        /// A `//` or `/* */` comment.
        case comment
        /// `NaN`, `Infinity` or `-Infinity`.
        case nonFiniteNumber
        /// A number written with a leading zero (`01`) or in hexadecimal (`0x1F`).
        case numberFormat
        /// A string in single quotes.
        case singleQuotes
        /// A control character (below U+0020) written raw inside a string.
        case controlCharacter
        /// A backslash escape JSON does not have, or a `\u` escape that is not one character.
        case invalidEscape
        /// The same key twice in one object (the key).
        case duplicateKey(String)
        /// `\u0000` inside a string, which no setting or request can use.
        case nulCharacter
        /// An integer beyond 64 bits, or a real number beyond a Double's range.
        case numberOutOfRange
        /// Objects and arrays nested deeper than ``StrictJSON/maximumDepth``.
        case tooDeep(limit: Int)
        /// Something after the value.
        case trailingContent
        /// A character between tokens that JSON does not count as whitespace (a form feed, a
        /// no-break space) or another control character.
        case foreignWhitespace
        /// A bare string, number, boolean or null where an object or array was asked for.
        case notAContainer
        /// Any other syntax error; ``StrictJSONError/detail`` says which.
        case syntax
    }

    public let problem: Problem
    /// The line of the problem, from 1.
    public let line: Int
    /// The character (not byte) on that line where the parser stopped, from 1; 0 before the
    /// first character.
    public let column: Int
    /// The byte offset from the start where the parser stopped.
    public let position: Int
    /// Jansson's own text (such as `duplicate object key near '"a"'`), for logs; empty for the
    /// checks made before Jansson runs.
    public let detail: String

    public init(_ problem: Problem, line: Int, column: Int, position: Int, detail: String) {
        self.problem = problem
        self.line = line
        self.column = column
        self.position = position
        self.detail = detail
    }

    /// What is wrong and what to do, without the place.
    public var reason: String {
        switch problem {
        case .tooLarge(let bytes, let limit):
            "the text is \(bytes) bytes, over the limit of \(limit); send less"
        case .empty:
            "there is nothing but whitespace; send a JSON value"
        case .byteOrderMark:
            "it starts with a byte order mark (EF BB BF); send UTF-8 without one"
        case .notUTF8:
            "a byte sequence is not UTF-8; send UTF-8 text"
        case .endsEarly:
            "it ends before the value is complete; close every string, object and array"
        case .trailingComma:
            "a comma before a closing bracket; remove the comma after the last item"
        case .comment:
            "JSON has no comments; remove them"
        case .nonFiniteNumber:
            "NaN and Infinity are not JSON numbers; send a finite decimal number"
        case .numberFormat:
            "numbers are decimal without leading zeros (0.5, 12, -3e2); write it that way"
        case .singleQuotes:
            "strings take double quotes (\"text\"), not single quotes"
        case .controlCharacter:
            "a control character inside a string; escape it (\\n, \\t, \\u001f)"
        case .invalidEscape:
            "an invalid escape in a string; JSON's escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\u with four hex digits"
                + " (a surrogate pair for characters beyond U+FFFF)"
        case .duplicateKey(let key):
            "duplicate object key \"\(key.truncatedForJSONMessage)\"; send each key once"
        case .nulCharacter:
            "a string contains \\u0000 (NUL), which no setting or request accepts; remove it"
        case .numberOutOfRange:
            "a number is out of range (integers fit in 64 bits, reals in a double, about ±1.8e308);"
                + " send a smaller one"
        case .tooDeep(let limit):
            "objects and arrays are nested more than \(limit) deep; send a flatter value"
        case .trailingContent:
            "there is more after the value; send one JSON value and nothing after it"
        case .foreignWhitespace:
            "only space, tab, line feed and carriage return may separate JSON tokens; remove the other character"
        case .notAContainer:
            "it is not an object or an array; send a JSON object"
        case .syntax:
            "\(detail); check the JSON's syntax"
        }
    }

    /// `not JSON (line 1, column 38): duplicate object key "level_tolerance"; send each key once`.
    public var description: String {
        "not JSON (line \(line), column \(column)): \(reason)"
    }
}

extension String {
    /// At most 60 characters, cut with `…`, control characters escaped: a hostile key should
    /// neither flood nor break a log line.
    var truncatedForJSONMessage: String {
        (count <= 60 ? self : String(prefix(59)) + "…").escapingControlCharacters
    }

    /// Control characters as `\u00XX`, everything else as it is.
    var escapingControlCharacters: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
