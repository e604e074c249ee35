import Contract
import RulerService
import Testing

@Suite("Every payload gets a reply")
struct HandlerTests {
    let handler = RulerRequestHandler()

    @Test("Malformed payloads are bad_request, naming what to send",
          arguments: [
              ("", "the payload is empty; send a JSON object such as {\"length\":30,\"unit\":\"cm\"}"),
              (" \n\t", "the payload is empty"),
              ("length=30", "the payload is not JSON (line 1, column 6): invalid token near 'length'; check the JSON's"
                  + " syntax; send a JSON object such as"),
              ("{\"length\":30", "the payload is not JSON (line 1, column 12): it ends before the value is complete"),
              ("[30,\"cm\"]", "the payload must be a JSON object, such as {\"length\":30,\"unit\":\"cm\"}"),
              ("30", "the payload must be a JSON object"),
              ("\"30cm\"", "the payload must be a JSON object"),
              ("null", "the payload must be a JSON object"),
              ("{\"length\":1e400,\"unit\":\"cm\"}", "a number is out of range"),
              (String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000), "nested more than 64 deep"),
              ("{\"length\":30,\"unit\":\"cm\",\"transaction\":5}", "\"transaction\" must be a string"),
          ])
    func malformed(text: String, message: String) throws {
        let reply = handler.reply(service: "ruler", payload: payload(text), reading: nil)
        #expect(reply.code == .badRequest)
        #expect(reply.transaction == nil)
        #expect(reply.error?.contains(message) == true, "\(reply.error ?? "")")
        let decoded = try DecodedReply(reply)
        #expect(decoded.status == "error")
        #expect(decoded.code == "bad_request")
        #expect(decoded.object["transaction"] == nil)
    }

    @Test("Bytes that are not UTF-8 are not JSON")
    func notUTF8() {
        let reply = handler.reply(service: "convert", payload: [0xFF, 0xFE, 0x7B, 0x7D], reading: nil)
        #expect(reply.code == .badRequest)
    }

    @Test("An unknown service is bad_request listing the services, echoing the transaction")
    func unknownService() throws {
        let reply = try DecodedReply(handler.reply(service: "level", payload: payload(#"{"transaction":"q"}"#), reading: nil))
        #expect(reply.code == "bad_request")
        #expect(reply.transaction == "q")
        #expect(reply.error == "there is no \"level\" service; the services are ruler, convert, rise, shim, at P/request/<service>.")
    }

    @Test("16 KiB is read; one byte more is too_large, before parsing")
    func payloadLimit() throws {
        let base = #"{"length":30,"unit":"cm","transaction":""#
        let padding = RulerRequestHandler.maximumPayloadBytes - base.utf8.count - 2
        let atLimit = base + String(repeating: "t", count: padding) + #""}"#
        #expect(atLimit.utf8.count == 16 * 1024)
        let fits = handler.reply(service: "ruler", payload: payload(atLimit), reading: nil)
        #expect(fits.code == nil)
        #expect(fits.transaction?.count == padding)
        let over = handler.reply(service: "ruler", payload: payload(atLimit + " "), reading: nil)
        #expect(over.code == .tooLarge)
        #expect(over.transaction == nil)
        #expect(over.error == "the request is 16385 bytes; the limit is 16384 (16 KiB): send a smaller request.")
        let decoded = try DecodedReply(over)
        #expect(decoded.code == "too_large")
    }

    @Test("The transaction is echoed on success and on every error", arguments: RulerServiceName.allCases.map(\.rawValue))
    func transactionEchoed(service: String) throws {
        let good = [
            "ruler": #"{"length":30,"unit":"cm","transaction":"é/✓ 1"}"#,
            "convert": #"{"value":12,"from":"in","to":"cm","transaction":"é/✓ 1"}"#,
            "rise": #"{"span":1,"unit":"m","transaction":"é/✓ 1"}"#,
            "shim": #"{"length":1,"width":1,"unit":"m","transaction":"é/✓ 1"}"#,
        ]
        let ok = try DecodedReply(handler.reply(service: service, payload: payload(good[service] ?? ""), reading: reading()))
        #expect(ok.status == "ok")
        #expect(ok.transaction == "é/✓ 1")
        let bad = try DecodedReply(handler.reply(service: service, payload: payload(#"{"nonsense":1,"transaction":"é/✓ 1"}"#),
                                                 reading: reading()))
        #expect(bad.code == "bad_request")
        #expect(bad.transaction == "é/✓ 1")
    }

    @Test("A reply without a transaction has no transaction key")
    func noTransaction() throws {
        let reply = try DecodedReply(handler.reply(service: "convert", payload: payload(#"{"value":1,"from":"m","to":"mm"}"#),
                                                   reading: nil))
        #expect(reply.object.keys.sorted() == ["data", "status"])
    }

    @Test("Reply bytes: compact, sorted keys, the documented shapes")
    func replyBytes() {
        let ok = ServiceReply.ok(.object(["result": .number(30.48)]), transaction: "t")
        #expect(String(decoding: ok.bytes, as: UTF8.self) == #"{"data":{"result":30.48},"status":"ok","transaction":"t"}"#)
        let busy = ServiceReply.failure(.busy, "too many requests; retry in a moment.", transaction: nil)
        #expect(String(decoding: busy.bytes, as: UTF8.self)
            == #"{"code":"busy","error":"too many requests; retry in a moment.","status":"error"}"#)
    }

    @Test("Reply bytes are exactly what JSONValue.bytes writes for the same reply", arguments: RulerServiceName.allCases.map(\.rawValue))
    func replyBytesMatchJSONEncoder(service: String) throws {
        let requests = [
            "ruler": #"{"length":"1 3/16in","style":"fractional","indicator_px":100.5,"transaction":"a/b"}"#,
            "convert": #"{"value":-1e-7,"from":"m","to":"in","transaction":"ü"}"#,
            "rise": #"{"span":1.2,"unit":"m","axis":"steepest"}"#,
            "shim": #"{"length":1.2,"width":0.8,"unit":"m","feet":3}"#,
        ]
        for json in [requests[service] ?? "", #"{"nonsense":true,"transaction":"x"}"#] {
            let reply = handler.reply(service: service, payload: payload(json), reading: reading(roll: 0.3, pitch: -1.2))
            var object: [String: JSONValue] = [:]
            if let code = reply.code {
                object = ["status": .string("error"), "code": .string(code.rawValue), "error": .string(reply.error ?? "")]
            } else {
                object = ["status": .string("ok"), "data": reply.data ?? .null]
            }
            if let transaction = reply.transaction { object["transaction"] = .string(transaction) }
            #expect(reply.bytes == JSONValue.object(object).bytes)
        }
    }

    @Test("Quotes, backslashes and control characters in a transaction survive the round trip")
    func transactionEscaping() throws {
        let awkward = "q\"b\\s\n\t\u{1}\u{1F}é✓/"
        let reply = ServiceReply.ok(.object(["n": .number(.nan), "x": .number(-0.0), "big": .number(1e21)]), transaction: awkward)
        let decoded = try DecodedReply(reply)
        #expect(decoded.transaction == awkward)
        #expect(decoded.data == .object(["n": .null, "x": .number(0), "big": .number(1e21)]))
        #expect(String(decoding: reply.bytes, as: UTF8.self).contains(#""q\"b\\s\n\t\u0001\u001fé✓/""#))
    }

    @Test("transaction(in:) finds only a string transaction, cheaply",
          arguments: [(#"{"transaction":"abc","length":30}"#, "abc"), (#"{"length":30}"#, nil),
                      (#"{"transaction":5}"#, nil), (#"["transaction"]"#, nil), ("not json", nil), ("", nil),
                      (#"{"transaction":null}"#, nil)])
    func transactionOnly(text: String, expected: String?) {
        #expect(RulerRequestHandler.transaction(in: payload(text)) == expected)
    }

    @Test("transaction(in:) ignores a payload over the limit")
    func transactionOverLimit() {
        let large = #"{"transaction":"t","pad":""# + String(repeating: "x", count: 16 * 1024) + #""}"#
        #expect(RulerRequestHandler.transaction(in: payload(large)) == nil)
    }

    @Test("null counts as leaving a key out")
    func nullIsAbsent() throws {
        let reply = try DecodedReply(handler.reply(service: "ruler",
                                                   payload: payload(#"{"length":30,"unit":"cm","style":null,"transaction":null}"#),
                                                   reading: nil))
        #expect(reply.status == "ok")
        #expect(reply.data?["style"]?.string == "metric")
    }
}
