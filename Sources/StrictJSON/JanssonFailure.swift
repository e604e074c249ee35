import CJansson
import Contract

/// Jansson's error for a text, read into a ``StrictJSONError``: its code where that says
/// enough, and otherwise the token it stopped at (the `near '…'` of its text) with the bytes
/// around it, to name the usual mistakes (a trailing comma, a comment, `NaN`, `01`, `'text'`).
struct JanssonFailure {
    let error: StrictJSONError

    init(_ jansson: json_error_t, bytes: UnsafeBufferPointer<UInt8>) {
        var jansson = jansson
        let code = json_error_code(&jansson)
        let text = Self.text(of: jansson)
        // Escaped: the token Jansson quotes may hold a control character, which would break a log line.
        let detail = text.escapingControlCharacters
        let position = min(max(Int(jansson.position), 0), bytes.count)
        let near = Self.nearToken(in: text)
        let problem: StrictJSONError.Problem = switch code {
        case json_error_invalid_utf8: .notUTF8
        case json_error_premature_end_of_input: .endsEarly
        case json_error_duplicate_key: .duplicateKey(Self.key(endingAt: position, in: bytes))
        case json_error_null_character, json_error_null_byte_in_key: .nulCharacter
        case json_error_numeric_overflow: .numberOutOfRange
        case json_error_stack_overflow: .tooDeep(limit: StrictJSON.maximumDepth)
        case json_error_end_of_input_expected:
            Self.mistake(near: near, at: position, in: bytes) ?? .trailingContent
        default:
            Self.mistake(near: near, at: position, in: bytes) ?? Self.syntax(detail)
        }
        error = StrictJSONError(problem, line: max(Int(jansson.line), 1), column: max(Int(jansson.column), 0),
                                position: position, detail: detail)
    }

    /// A common mistake at the token Jansson stopped after (it ends at `position`), or nil.
    private static func mistake(near token: [UInt8]?, at position: Int,
                                in bytes: UnsafeBufferPointer<UInt8>) -> StrictJSONError.Problem? {
        guard let token, let first = token.first else { return nil }
        let start = max(position - token.count, 0)
        let before = bytes[..<start].last(where: { !StrictJSON.isWhitespace($0) })
        let after = bytes[position...]
        switch first {
        case UInt8(ascii: "/"):
            return .comment
        case UInt8(ascii: "'"):
            return .singleQuotes
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            return before == UInt8(ascii: ",") ? .trailingComma : nil
        case UInt8(ascii: "x"), UInt8(ascii: "X"):
            return before == UInt8(ascii: "0") ? .numberFormat : nil
        default:
            break
        }
        let word = String(decoding: token, as: UTF8.self)
        if let scalar = word.unicodeScalars.first, scalar.properties.isWhitespace || scalar.value < 0x20 {
            return .foreignWhitespace
        }
        if ["NaN", "nan", "Infinity", "infinity", "inf", "Inf"].contains(word) { return .nonFiniteNumber }
        if word == "-", after.starts(with: Array("Infinity".utf8)) || after.starts(with: Array("inf".utf8)) {
            return .nonFiniteNumber
        }
        if word == "0" || word == "-0", let next = after.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
            return .numberFormat
        }
        return nil
    }

    /// The problems Jansson names only in its text.
    private static func syntax(_ detail: String) -> StrictJSONError.Problem {
        if detail.hasPrefix("control character") || detail.hasPrefix("unexpected newline") { return .controlCharacter }
        if detail.hasPrefix("invalid escape") || detail.hasPrefix("invalid Unicode") || detail.hasPrefix("invalid \\u") {
            return .invalidEscape
        }
        if detail.hasPrefix("'[' or '{' expected") { return .notAContainer }
        return .syntax
    }

    /// The text of Jansson's message, up to its terminating NUL (its last byte holds the code).
    private static func text(of error: json_error_t) -> String {
        withUnsafeBytes(of: error.text) { raw in
            let characters = raw.prefix(Int(JSON_ERROR_TEXT_LENGTH) - 1)
            return String(decoding: characters.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    /// The token in `… near 'TOKEN'`, or nil for `near end of file` and texts without one.
    private static func nearToken(in detail: String) -> [UInt8]? {
        let bytes = Array(detail.utf8)
        let marker = Array(" near '".utf8)
        guard bytes.count > marker.count, bytes.last == UInt8(ascii: "'") else { return nil }
        for start in 0...(bytes.count - marker.count) where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            let token = bytes[(start + marker.count)..<(bytes.count - 1)]
            return token.isEmpty ? nil : Array(token)
        }
        return nil
    }

    /// The key of the string token that ends right before `end` (Jansson stops after a duplicate
    /// key's closing quote). Its opening quote is the nearest quote before that is not escaped:
    /// inside a string every quote has an odd number of backslashes before it.
    private static func key(endingAt end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard end >= 2, bytes[end - 1] == UInt8(ascii: "\"") else { return "?" }
        var index = end - 2
        while index >= 0 {
            if bytes[index] == UInt8(ascii: "\"") {
                var backslashes = 0
                while index - backslashes - 1 >= 0, bytes[index - backslashes - 1] == UInt8(ascii: "\\") {
                    backslashes += 1
                }
                if backslashes % 2 == 0 { break }
            }
            index -= 1
        }
        guard index >= 0,
              case .string(let key)? = try? StrictJSON.parse(bytes[index..<end], allowingScalars: true) else {
            return "?"
        }
        return key
    }
}
