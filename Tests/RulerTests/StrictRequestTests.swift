import Contract
import RulerService
import Testing

/// Requests are strict RFC 8259 JSON: a lenient reading of a hostile request is never answered.
@Suite("Ruler requests: strict JSON")
struct StrictRequestTests {
    let handler = RulerRequestHandler()

    @Test("A request with a duplicate key is refused, naming the key, whichever copy a lenient parser would keep",
          arguments: RulerServiceName.allCases)
    func duplicateKey(service: RulerServiceName) throws {
        let reply = handler.reply(to: service, payload: payload(#"{"unit":"cm","length":30,"unit":"in"}"#),
                                  reading: reading())
        #expect(reply.code == .badRequest)
        #expect(reply.data == nil)
        #expect(reply.error?.hasPrefix(#"the payload is not JSON (line 1, column 31): duplicate object key "unit";"#
            + " send each key once; send a JSON object such as ") == true, "\(reply.error ?? "")")
        let decoded = try DecodedReply(reply)
        #expect(decoded.code == "bad_request")
    }

    @Test("A duplicate transaction is not echoed: the request could not be read", arguments: [
        #"{"transaction":"a","transaction":"b","length":30,"unit":"cm"}"#,
    ])
    func duplicateTransaction(text: String) {
        let reply = handler.reply(service: "ruler", payload: payload(text), reading: nil)
        #expect(reply.code == .badRequest)
        #expect(reply.transaction == nil)
        #expect(RulerRequestHandler.transaction(in: payload(text)) == nil)
    }

    @Test("Lenient forms are bad_request naming the problem", arguments: [
        (#"{"length":30,"unit":"cm",}"#, "a comma before a closing bracket"),
        (#"{"length":30 /* cm */}"#, "JSON has no comments"),
        (#"{"length":NaN,"unit":"cm"}"#, "NaN and Infinity are not JSON numbers"),
        (#"{"length":030,"unit":"cm"}"#, "without leading zeros"),
        (#"{'length':30}"#, "double quotes"),
        (#"{"length":30,"unit":"c\u0000m"}"#, #"\u0000 (NUL)"#),
        (#"{"length":30,"unit":"cm"}x"#, "nothing after it"),
        (#"{"length":99999999999999999999,"unit":"cm"}"#, "a number is out of range"),
    ])
    func lenient(text: String, reason: String) {
        let reply = handler.reply(service: "ruler", payload: payload(text), reading: nil)
        #expect(reply.code == .badRequest)
        #expect(reply.error?.hasPrefix("the payload is not JSON (line 1, column ") == true, "\(reply.error ?? "")")
        #expect(reply.error?.contains(reason) == true, "\(reply.error ?? "")")
        #expect(RulerRequestHandler.transaction(in: payload(text + #"{"transaction":"t"}"#)) == nil)
    }

    @Test("Invalid UTF-8 is bad_request saying so")
    func invalidUTF8() {
        let reply = handler.reply(service: "convert", payload: [0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D],
                                  reading: nil)
        #expect(reply.code == .badRequest)
        #expect(reply.error?.contains("a byte sequence is not UTF-8") == true, "\(reply.error ?? "")")
    }

    @Test("Integers and reals are both numbers to a service")
    func integersAndReals() throws {
        let integer = handler.reply(service: "convert", payload: payload(#"{"value":12,"from":"in","to":"cm"}"#), reading: nil)
        let real = handler.reply(service: "convert", payload: payload(#"{"value":12.0,"from":"in","to":"cm"}"#), reading: nil)
        #expect(integer.code == nil)
        #expect(integer.data == real.data)
        #expect(integer.data != nil)
    }
}
