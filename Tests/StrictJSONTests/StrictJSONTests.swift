import Contract
import StrictJSON
import Testing

private func parse(_ text: String, scalars: Bool = false) throws(StrictJSONError) -> JSONValue {
    try StrictJSON.parse(Array(text.utf8), allowingScalars: scalars)
}

private func failure(_ bytes: [UInt8], scalars: Bool = false) -> StrictJSONError? {
    do {
        _ = try StrictJSON.parse(bytes, allowingScalars: scalars)
        return nil
    } catch {
        return error
    }
}

private func failure(_ text: String, scalars: Bool = false) -> StrictJSONError? {
    failure(Array(text.utf8), scalars: scalars)
}

@Suite("Strict JSON: what RFC 8259 allows is read")
struct StrictJSONAcceptedTests {
    @Test("An object's members keep their types: integer and real tokens, strings, booleans, null, nesting")
    func objectMembers() throws {
        let value = try parse(#"{"i": 45, "r": 0.3, "e": 1e2, "n": -0, "s": "a\"b\u00e9\ud83d\ude00", "t": true, "f": false, "z": null, "a": [1, [2], {}], "o": {"k": "v"}}"#)
        #expect(value == .object([
            "i": .integer(45), "r": .number(0.3), "e": .number(100), "n": .integer(0), "s": .string("a\"bé😀"),
            "t": .bool(true), "f": .bool(false), "z": .null, "a": .array([.integer(1), .array([.integer(2)]), .object([:])]),
            "o": .object(["k": .string("v")]),
        ]))
    }

    @Test("JSON's four whitespace characters are allowed around every token", arguments: [
        " {\"a\" : 1 } ", "\t{\"a\":1}\t", "\n{\n\"a\"\n:\n1\n}\n", "\r\n{\"a\":\r\n1}\r\n",
    ])
    func whitespace(text: String) throws {
        #expect(try parse(text) == .object(["a": .integer(1)]))
    }

    @Test("Integers to the ends of 64 bits, reals to a Double's, and underflow to zero")
    func numberRange() throws {
        #expect(try parse("[9223372036854775807, -9223372036854775808]")
            == .array([.integer(Int.max), .integer(Int.min)]))
        #expect(try parse("[1.7976931348623157e308, -1e-400, 5e-324]")
            == .array([.number(1.7976931348623157e308), .number(-0.0), .number(Double.leastNonzeroMagnitude)]))
    }

    @Test("A bare value is one text only when scalars are allowed", arguments: [
        ("\"flat\"", JSONValue.string("flat")), ("0.25", .number(0.25)), ("12", .integer(12)), ("true", .bool(true)),
        ("null", .null), (" \"x\" ", .string("x")),
    ])
    func scalars(text: String, expected: JSONValue) throws {
        #expect(try parse(text, scalars: true) == expected)
        #expect(failure(text)?.problem == .notAContainer)
    }

    @Test("Raw UTF-8 of every length is read as written")
    func rawUTF8() throws {
        #expect(try parse("[\"é€😀\"]") == .array([.string("é€😀")]))
    }

    @Test("Nesting up to the limit is read")
    func nestingAtTheLimit() throws {
        let depth = StrictJSON.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var expected = JSONValue.array([])
        for _ in 1..<depth { expected = .array([expected]) }
        #expect(try parse(text) == expected)
    }

    @Test("Any Collection of bytes is read, contiguous or not")
    func anyCollection() throws {
        let bytes = Array(#"{"a": [1, 2]}"#.utf8)
        #expect(try StrictJSON.parse(bytes[...], allowingScalars: false) == .object(["a": .array([.integer(1), .integer(2)])]))
        #expect(try StrictJSON.parse(bytes.lazy.map { $0 }, allowingScalars: false)
            == .object(["a": .array([.integer(1), .integer(2)])]))
    }
}

@Suite("Strict JSON: what RFC 8259 forbids is refused, saying where and what to do")
struct StrictJSONRefusedTests {
    @Test("Each refusal names the problem, the place and what to do", arguments: [
        (#"{"heartbeat_s": 45,}"#, StrictJSONError.Problem.trailingComma, "line 1, column 20",
         "a comma before a closing bracket; remove the comma after the last item"),
        ("[1, 2,]", .trailingComma, "column 7", "remove the comma"),
        (#"{"level_tolerance": 0.3, "level_tolerance": 99}"#, .duplicateKey("level_tolerance"), "line 1, column 42",
         #"duplicate object key "level_tolerance"; send each key once"#),
        ("{\"a\": 1 // note\n}", .comment, "line 1", "JSON has no comments"),
        ("/* note */ {\"a\": 1}", .comment, "column 1", "JSON has no comments"),
        (#"{"a": NaN}"#, .nonFiniteNumber, "column 9", "NaN and Infinity are not JSON numbers"),
        (#"{"a": Infinity}"#, .nonFiniteNumber, "", "send a finite decimal number"),
        (#"{"a": -Infinity}"#, .nonFiniteNumber, "", "NaN and Infinity"),
        (#"{"a": 01}"#, .numberFormat, "column 7", "without leading zeros"),
        (#"{"a": -01}"#, .numberFormat, "", "without leading zeros"),
        (#"{"a": 0x1F}"#, .numberFormat, "", "without leading zeros"),
        (#"{'a': 1}"#, .singleQuotes, "column 2", "double quotes"),
        (#"{"a": 'b'}"#, .singleQuotes, "", "double quotes"),
        (#"{"a": 1} x"#, .trailingContent, "column 10", "send one JSON value and nothing after it"),
        (#"{"a": 1}{"a": 2}"#, .trailingContent, "", "nothing after it"),
        (#"{"a": 1"#, .endsEarly, "", "close every string, object and array"),
        (#"{"a": "b}"#, .endsEarly, "", "ends before the value is complete"),
        (#"{"a": 1e400}"#, .numberOutOfRange, "", "a number is out of range"),
        (#"{"a": -1e400}"#, .numberOutOfRange, "", "out of range"),
        (#"{"a": 9223372036854775808}"#, .numberOutOfRange, "", "integers fit in 64 bits"),
        (#"{"a": -9223372036854775809}"#, .numberOutOfRange, "", "out of range"),
        (#"{"a": 123456789012345678901234567890}"#, .numberOutOfRange, "", "out of range"),
        (#"{"a": "x\u0000y"}"#, .nulCharacter, "", #"\u0000 (NUL), which no setting or request accepts"#),
        (#"{"a\u0000": 1}"#, .nulCharacter, "", "NUL"),
        ("{\"a\": \"tab\there\"}", .controlCharacter, "", "escape it"),
        ("{\"a\": \"line\nbreak\"}", .controlCharacter, "", "escape it"),
        (#"{"a": "\x41"}"#, .invalidEscape, "", "an invalid escape"),
        (#"{"a": "\ud800"}"#, .invalidEscape, "", "surrogate pair"),
        (#"{"a": "\udc00\ud800"}"#, .invalidEscape, "", "invalid escape"),
        (#"{a: 1}"#, .syntax, "column 2", "check the JSON's syntax"),
        (#"{"a" 1}"#, .syntax, "", "':' expected"),
        (#"{"a": True}"#, .syntax, "", "invalid token near 'True'"),
        (#"{"a": .5}"#, .syntax, "", "check the JSON's syntax"),
        (#"{"a": 1.}"#, .syntax, "", "check the JSON's syntax"),
        (#"{"a": +1}"#, .syntax, "", "check the JSON's syntax"),
        ("\"flat\"", .notAContainer, "", "send a JSON object"),
        ("", .empty, "", "nothing but whitespace"),
        (" \n\t\r", .empty, "", "nothing but whitespace"),
    ])
    func refused(text: String, problem: StrictJSONError.Problem, place: String, advice: String) throws {
        let error = try #require(failure(text), "\(text) was accepted")
        #expect(error.problem == problem, "\(text): \(error.description) [\(error.detail)]")
        #expect(error.description.hasPrefix("not JSON (line "), "\(error)")
        #expect(error.description.contains(place), "\(text): \(error.description)")
        #expect(error.description.contains(advice), "\(text): \(error.description)")
    }

    @Test("The refusal's place is where Jansson stopped: line, character column and byte position")
    func place() throws {
        // "é" is two bytes and one character: the column counts characters, the position bytes.
        let error = try #require(failure("{\"é\": 1,\n  \"b\": 2,\n}"))
        #expect(error.problem == .trailingComma)
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.position == 21)
        #expect(error.description.hasPrefix("not JSON (line 3, column 1): "))
    }

    @Test("A duplicate key is named even when it is long or escaped, and quoted safely")
    func duplicateKeys() throws {
        let long = String(repeating: "k", count: 100)
        let error = try #require(failure("{\"\(long)\": 1, \"\(long)\": 2}"))
        #expect(error.problem == .duplicateKey(long))
        #expect(error.description.contains("\"" + String(repeating: "k", count: 59) + "…\""))
        let escaped = try #require(failure(#"{"a\"\\b": 1, "a\"\\b": 2}"#))
        #expect(escaped.problem == .duplicateKey(#"a"\b"#))
        let newline = try #require(failure(#"{"a\nb": 1, "a\u000ab": 2}"#))
        #expect(newline.problem == .duplicateKey("a\nb"))
        #expect(newline.description.contains(#""a\u000Ab""#), "\(newline)")
        // Nested objects have keys of their own: the same key in two objects is fine.
        #expect(try parse(#"{"a": {"a": 1}, "b": {"a": 2}}"#)
            == .object(["a": .object(["a": .integer(1)]), "b": .object(["a": .integer(2)])]))
    }

    @Test("Bytes that are not UTF-8 are refused: a stray continuation, overlong forms, surrogates, beyond U+10FFFF",
          arguments: [
              [0xFF], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3],
          ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) throws {
        let bytes = Array(#"{"a": ""#.utf8) + sequence + Array(#""}"#.utf8)
        let error = try #require(failure(bytes))
        #expect(error.problem == .notUTF8, "\(error) [\(error.detail)]")
        #expect(error.description.contains("not UTF-8; send UTF-8 text"))
        #expect(error.position <= bytes.count)
    }

    @Test("A byte order mark is refused, as RFC 8259 forbids senders to add one")
    func byteOrderMark() throws {
        let error = try #require(failure([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8)))
        #expect(error.problem == .byteOrderMark)
        #expect(error.description.contains("byte order mark"))
    }

    @Test("Whitespace JSON does not have is refused: form feed, vertical tab, no-break space, a raw NUL",
          arguments: ["\u{0C}{\"a\": 1}", "{\"a\":\u{0B}1}", "{\"a\":\u{A0}1}", "{\"a\": 1}\u{00}"])
    func foreignWhitespace(text: String) throws {
        let error = try #require(failure(text), "\(text.debugDescription) was accepted")
        if text.hasSuffix("\u{00}") {
            #expect(error.problem == .trailingContent, "\(error)")
        } else {
            #expect(error.problem == .foreignWhitespace, "\(error)")
            #expect(error.description.contains("only space, tab, line feed and carriage return may separate JSON tokens"))
        }
        #expect(!error.description.contains(where: { $0.asciiValue.map { $0 < 0x20 } ?? false }),
                "no control character in the message: \(error.description.debugDescription)")
    }

    @Test("Nesting deeper than the limit is refused where it goes too deep, however deep (past Jansson's 2048), without a crash",
          arguments: [StrictJSON.maximumDepth + 1, 2048, 2049, 100_000])
    func tooDeep(depth: Int) throws {
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let error = try #require(failure(text))
        #expect(error.problem == .tooDeep(limit: StrictJSON.maximumDepth))
        #expect(error.description.contains("nested more than \(StrictJSON.maximumDepth) deep"))
        #expect(error.position == StrictJSON.maximumDepth + 1, "at the bracket one level too deep")
        #expect(error.description.hasPrefix("not JSON (line 1, column \(StrictJSON.maximumDepth + 1)): "))
        let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(failure(objects)?.problem == .tooDeep(limit: StrictJSON.maximumDepth))
    }

    @Test("Brackets inside strings do not count as nesting")
    func bracketsInStrings() throws {
        let text = "[\"" + String(repeating: "[{\\\"", count: 100) + "\"]"
        #expect(try parse(text) == .array([.string(String(repeating: "[{\"", count: 100))]))
    }

    @Test("More than the size limit is refused unread")
    func tooLarge() throws {
        let bytes = [UInt8](repeating: 0x20, count: StrictJSON.maximumBytes + 1)
        let error = try #require(failure(bytes))
        #expect(error.problem == .tooLarge(bytes: StrictJSON.maximumBytes + 1, limit: StrictJSON.maximumBytes))
        #expect(error.description.contains("over the limit of 1048576"))
    }

    @Test("A large valid text within the limit is read")
    func largeValid() throws {
        let items = Array(repeating: "1.5", count: 100_000).joined(separator: ",")
        guard case .array(let values) = try parse("[" + items + "]") else {
            Issue.record("not an array")
            return
        }
        #expect(values.count == 100_000)
    }
}
