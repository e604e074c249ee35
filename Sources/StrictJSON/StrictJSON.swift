import CJansson
import Contract

/// Strict RFC 8259 JSON, read by Jansson, for every message and file that comes from outside.
///
/// Refused, each with a ``StrictJSONError`` saying where and why: trailing commas, comments,
/// `NaN` and `Infinity`, leading zeros and hexadecimal, single quotes, invalid UTF-8 (overlong
/// forms and surrogates included), a byte order mark, raw control characters in strings, the
/// same key twice in an object, `\u0000` in a string, an integer beyond 64 bits or a real beyond
/// a Double, nesting deeper than ``maximumDepth``, and anything after the value. Whitespace is
/// JSON's four (space, tab, line feed, carriage return) and nothing else.
///
/// Pure and thread-safe: each call has its own Jansson tree, released before it returns
/// (Jansson keeps no mutable global state; its hash seed is set once, atomically).
public enum StrictJSON {
    /// The largest text parsed: the largest any caller reads (a state file, 1 MiB). Callers cap
    /// their own inputs lower (a config message 64 KiB, a ruler request 16 KiB) before this.
    public static let maximumBytes = 1024 * 1024

    /// The deepest nesting of objects and arrays accepted. Plumb's inputs are a few levels deep;
    /// a deeper text is refused before Jansson reads it, so a hostile `[[[[…` costs no stack in
    /// Jansson's recursive parser (whose own limit is 2048), in the conversion, or in freeing.
    public static let maximumDepth = 64

    /// The JSON value `bytes` hold.
    ///
    /// Numbers keep their token's kind: an integer (no fraction, no exponent) is
    /// ``JSONValue/integer(_:)``, any other number ``JSONValue/number(_:)``. Object keys are
    /// unique (a duplicate is an error), so ``JSONValue/object(_:)``'s dictionary loses nothing.
    ///
    /// - Parameter allowingScalars: whether a bare string, number, boolean or null is a whole
    ///   text (a per-key value); when false, only an object or an array is.
    /// - Throws: ``StrictJSONError`` for anything that is not one strict JSON value, or is over
    ///   ``maximumBytes``.
    public static func parse(_ bytes: some Collection<UInt8>, allowingScalars: Bool) throws(StrictJSONError) -> JSONValue {
        guard bytes.count <= maximumBytes else {
            throw StrictJSONError(.tooLarge(bytes: bytes.count, limit: maximumBytes), line: 1, column: 0, position: 0,
                                  detail: "")
        }
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            parse(buffer, allowingScalars: allowingScalars)
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            parse(buffer, allowingScalars: allowingScalars)
        }
        return try result.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>,
                              allowingScalars: Bool) -> Result<JSONValue, StrictJSONError> {
        if let problem = precheck(bytes) {
            return .failure(StrictJSONError(problem, line: 1, column: 0, position: 0, detail: ""))
        }
        if let tooDeep = NestingScan.firstTooDeep(in: bytes) {
            return .failure(tooDeep)
        }
        var flags = JSON_REJECT_DUPLICATES
        if allowingScalars { flags |= JSON_DECODE_ANY }
        var error = json_error_t()
        let root = bytes.withMemoryRebound(to: CChar.self) { text in
            json_loadb(text.baseAddress, text.count, Int(flags), &error)
        }
        guard let root else {
            return .failure(JanssonFailure(error, bytes: bytes).error)
        }
        defer { json_decref(root) }
        return .success(JanssonTree.value(root))
    }

    /// What is refused before Jansson looks: nothing to read, or a byte order mark (which
    /// Jansson would call an invalid token).
    private static func precheck(_ bytes: UnsafeBufferPointer<UInt8>) -> StrictJSONError.Problem? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return .byteOrderMark }
        if bytes.allSatisfy(isWhitespace) { return .empty }
        return nil
    }

    /// RFC 8259's whitespace: space, tab, line feed, carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// Reads Jansson's tree into a ``JSONValue``. Recursive: the text was checked to nest at most
/// ``StrictJSON/maximumDepth`` deep before Jansson read it.
private enum JanssonTree {
    static func value(_ node: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch node.pointee.type {
        case JSON_OBJECT:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                let key = string(json_object_iter_key(current), count: json_object_iter_key_len(current))
                if let member = json_object_iter_value(current) {
                    members[key] = value(member)
                }
                iterator = json_object_iter_next(node, current)
            }
            return .object(members)
        case JSON_ARRAY:
            let count = json_array_size(node)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                if let element = json_array_get(node, index) {
                    elements.append(value(element))
                }
            }
            return .array(elements)
        case JSON_STRING:
            return .string(string(json_string_value(node), count: json_string_length(node)))
        case JSON_INTEGER:
            return .integer(Int(json_integer_value(node)))
        case JSON_REAL:
            return .number(json_real_value(node))
        case JSON_TRUE:
            return .bool(true)
        case JSON_FALSE:
            return .bool(false)
        default:
            return .null
        }
    }

    /// Jansson has checked the bytes are UTF-8, so decoding them replaces nothing.
    private static func string(_ text: UnsafePointer<CChar>?, count: Int) -> String {
        guard let text else { return "" }
        return text.withMemoryRebound(to: UInt8.self, capacity: count) { start in
            String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        }
    }
}

/// The nesting of a text, counted before Jansson reads it.
private enum NestingScan {
    /// The error at the first `[` or `{` that opens a level deeper than
    /// ``StrictJSON/maximumDepth``, or nil. Brackets inside strings do not count; in a text that
    /// is not JSON the count may be off, and the text is refused either way.
    static func firstTooDeep(in bytes: UnsafeBufferPointer<UInt8>) -> StrictJSONError? {
        var depth = 0
        var inString = false
        var escaped = false
        var place = TextPlace()
        for byte in bytes {
            place.advance(over: byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > StrictJSON.maximumDepth {
                    return StrictJSONError(.tooDeep(limit: StrictJSON.maximumDepth), line: place.line,
                                           column: place.column, position: place.position, detail: "")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }
}

/// A place in the text counted as Jansson counts it: lines from 1, the column in characters
/// (a UTF-8 continuation byte does not move it), the position in bytes, each after the last
/// byte read.
struct TextPlace {
    var line = 1
    var column = 0
    var position = 0

    mutating func advance(over byte: UInt8) {
        position += 1
        if byte == 0x0A {
            line += 1
            column = 0
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }
}
