import Contract
import RulerService
import Testing

/// `sent_at` and `service.request_timeout_s`: a request that waited at the broker too long is
/// answered `stale`, never late.
@Suite("Ruler requests: stale after request_timeout_s")
struct StaleRequestTests {
    let handler = RulerRequestHandler(requestTimeout: 30)
    let now = 1_764_626_400.0

    func reply(_ json: String, now: Double?) throws -> DecodedReply {
        try DecodedReply(handler.reply(to: .convert, payload: Array(json.utf8), reading: nil, now: now))
    }

    @Test func aRequestOlderThanTheTimeoutIsStaleAndEchoesItsTransaction() throws {
        let reply = try reply(#"{"value":1,"from":"in","to":"mm","transaction":"t","sent_at":\#(now - 31)}"#, now: now)
        #expect(reply.status == "error")
        #expect(reply.code == "stale")
        #expect(reply.error?.contains("31 s ago") == true)
        #expect(reply.error?.contains("service.request_timeout_s (30 s)") == true)
        #expect(reply.object["transaction"]?.string == "t")
    }

    @Test("Within the timeout, from the future, or without sent_at, the request is answered", arguments: [
        -29.5, 0, 600,
    ])
    func fresh(offset: Double) throws {
        let reply = try reply(#"{"value":1,"from":"in","to":"mm","sent_at":\#(now + offset)}"#, now: now)
        #expect(reply.status == "ok")
    }

    @Test func withoutSentAtOrWithoutAClockEveryRequestIsAnswered() throws {
        #expect(try reply(#"{"value":1,"from":"in","to":"mm"}"#, now: now).status == "ok")
        #expect(try reply(#"{"value":1,"from":"in","to":"mm","sent_at":1}"#, now: nil).status == "ok")
    }

    @Test("A sent_at that is no positive number is a bad request", arguments: [#""soon""#, "0", "-1", "true"])
    func badSentAt(value: String) throws {
        let reply = try reply(#"{"value":1,"from":"in","to":"mm","sent_at":\#(value)}"#, now: now)
        #expect(reply.code == "bad_request")
        #expect(reply.error?.contains("Unix seconds") == true)
    }
}
