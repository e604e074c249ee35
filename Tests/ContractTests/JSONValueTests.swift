import Contract
import FoundationEssentials
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    private func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test func booleansAreToldFromNumbersByTheirTokens() throws {
        #expect(try decode("true") == .bool(true))
        #expect(try decode("1") == .number(1))
        #expect(try decode("null") == .null)
        #expect(try decode(#"{"a":[false,"x",0.5]}"#) == .object(["a": .array([.bool(false), .string("x"), .number(0.5)])]))
    }

    @Test func bytesAreCompactSortedAndNonFiniteIsNull() {
        let value = JSONValue.object(["b": .integer(2), "a": .string("x/y"), "c": .number(.nan)])
        #expect(String(decoding: value.bytes, as: UTF8.self) == #"{"a":"x/y","b":2,"c":null}"#)
    }
}
