import Contract
import Geometry
import Ruler
import RulerService
import Testing

@Suite("The ruler and convert services")
struct RulerRequestTests {
    let handler = RulerRequestHandler()

    private func data(_ service: String, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let reply = try DecodedReply(handler.reply(service: service, payload: payload(json), reading: nil))
        #expect(reply.status == "ok", "\(reply.error ?? "")", sourceLocation: sourceLocation)
        return try #require(reply.data, sourceLocation: sourceLocation)
    }

    @Test("ruler: the classic 30 cm with an indicator at 412 px")
    func rulerHappyPath() throws {
        let data = try self.data("ruler", #"{"length":30,"unit":"cm","style":"metric","px_per_unit":80,"indicator_px":412,"transaction":"t1"}"#)
        #expect(data["unit"]?.string == "cm")
        #expect(data["style"]?.string == "metric")
        #expect(data["px_per_unit"]?.number == 80)
        #expect(data["width_px"]?.number == 2400)
        #expect(data["tick_count"]?.number == 301)
        #expect(data["length"]?["mm"]?.number == 300)
        #expect(data["length"]?["m"]?.number == 0.3)
        #expect(data["length"]?["in"]?.number == 11.811024)
        #expect(data["length"]?["ft"]?.number == 0.984252)
        let ticks = try #require(data["ticks"]?.array)
        #expect(ticks.count == 301)
        #expect(ticks[0] == .object(["at": .number(0), "px": .number(0), "rank": .number(0), "height": .number(1),
                                     "label": .string("0")]))
        #expect(ticks[5] == .object(["at": .number(0.5), "px": .number(40), "rank": .number(1), "height": .number(0.75),
                                     "label": .null]))
        #expect(ticks[300]["label"]?.string == "30")
        let indicator = try #require(data["indicator"])
        #expect(indicator["px"]?.number == 412)
        #expect(indicator["at"]?.number == 5.15)
        #expect(indicator["length"]?["mm"]?.number == 51.5)
    }

    @Test("ruler: a length with its unit, defaults for style and density, no indicator unless asked",
          arguments: [(#"{"length":"1 3/16in","style":"fractional"}"#, "in", "fractional", 200.0, 20),
                      (#"{"length":"30cm"}"#, "cm", "metric", 80, 301),
                      (#"{"length":"30","unit":"CM"}"#, "cm", "metric", 80, 301),
                      (#"{"length":12,"unit":"in"}"#, "in", "decimal", 200, 121),
                      (#"{"length":"1.2 m","unit":"m"}"#, "m", "metric", 8000, 13)])
    func rulerDefaults(json: String, unit: String, style: String, pixelsPerUnit: Double, ticks: Int) throws {
        let data = try self.data("ruler", json)
        #expect(data["unit"]?.string == unit)
        #expect(data["style"]?.string == style)
        #expect(data["px_per_unit"]?.number == pixelsPerUnit)
        #expect(data["tick_count"]?.number == Double(ticks))
        #expect(data["ticks"]?.array?.count == ticks)
        #expect(data["indicator"] == nil)
    }

    @Test("ruler: more than 20,000 ticks is too_large, checked before building them")
    func rulerTooLarge() throws {
        let reply = try DecodedReply(handler.reply(service: "ruler", payload: payload(#"{"length":30,"unit":"m","transaction":"big"}"#),
                                                   reading: nil))
        // 30 m in the default metric style is 301 ticks: fine. In mm it is 300,001.
        #expect(reply.status == "ok")
        let tooMany = try DecodedReply(handler.reply(service: "ruler", payload: payload(#"{"length":30000,"unit":"mm","transaction":"big"}"#),
                                                     reading: nil))
        #expect(tooMany.code == "too_large")
        #expect(tooMany.transaction == "big")
        #expect(tooMany.error?.contains("300,001 ticks; the limit is 20,000: give the length in m") == true)
    }

    @Test("ruler: bad requests say what to fix",
          arguments: [
              (#"{"length":30}"#, "has no unit; give \"unit\""),
              (#"{"unit":"cm"}"#, "needs \"length\""),
              (#"{"length":"30cm","unit":"in"}"#, "written in cm but \"unit\" says in"),
              (#"{"length":"412px"}"#, "px is not one"),
              (#"{"length":30,"unit":"px"}"#, "px is not a length"),
              (#"{"length":30,"unit":"furlongs"}"#, "\"furlongs\" is not a unit; give one of mm, cm, m, in, ft, px"),
              (#"{"length":-30,"unit":"cm"}"#, "must be greater than 0"),
              (#"{"length":0,"unit":"cm"}"#, "must be greater than 0"),
              (#"{"length":2,"unit":"km"}"#, "\"km\" is not a unit"),
              (#"{"length":1001,"unit":"m"}"#, "at most 1000 m"),
              (#"{"length":"3/0in"}"#, "cannot have 0 below the line"),
              (#"{"length":30,"unit":"cm","style":"fractional"}"#, "fractional graduations are for inches; use metric for cm"),
              (#"{"length":30,"unit":"cm","style":"gothic"}"#, "give metric, decimal, fractional"),
              (#"{"length":30,"unit":"cm","px_per_unit":0}"#, "greater than 0"),
              (#"{"length":30,"unit":"cm","indicator_px":2401}"#, "off the ruler"),
              (#"{"length":30,"unit":"cm","indicator_px":"412"}"#, "\"indicator_px\" must be a number, such as 412; got a string"),
              (#"{"length":true,"unit":"cm"}"#, "\"length\" must be a number or a text with its unit"),
              (#"{"length":30,"unit":"cm","colour":"red"}"#, "no key \"colour\"; the accepted keys are \"length\", \"unit\", \"style\", \"px_per_unit\", \"indicator_px\", \"transaction\""),
          ])
    func rulerBadRequests(json: String, message: String) throws {
        let reply = try DecodedReply(handler.reply(service: "ruler", payload: payload(json), reading: nil))
        #expect(reply.status == "error")
        #expect(reply.code == "bad_request")
        #expect(reply.error?.contains(message) == true, "\(reply.error ?? "")")
    }

    @Test("convert: lengths, fractions and pixels",
          arguments: [
              (#"{"value":12,"from":"in","to":"cm"}"#, 30.48, true),
              (#"{"value":"1 3/16in","to":"mm"}"#, 30.1625, true),
              (#"{"value":1,"from":"ft","to":"mm"}"#, 304.8, true),
              (#"{"value":12,"from":"in","to":"ft"}"#, 1, true),
              (#"{"value":1,"from":"in","to":"ft"}"#, 0.083333, false),
              (#"{"value":1,"from":"mm","to":"in"}"#, 0.03937, false),
              (#"{"value":-2.5,"from":"m","to":"cm"}"#, -250, true),
              (#"{"value":412,"from":"px","to":"cm"}"#, 5.15, true),
              (#"{"value":"412px","to":"mm"}"#, 51.5, true),
              (#"{"value":1,"from":"in","to":"px"}"#, 200, true),
              (#"{"value":1,"from":"mm","to":"px","px_unit":"in"}"#, 7.874016, false),
              (#"{"value":1,"from":"in","to":"px","px_per_unit":96}"#, 96, true),
              (#"{"value":10,"from":"px","to":"in","px_per_unit":96}"#, 0.104167, false),
              (#"{"value":37.5,"from":"px","to":"cm","px_per_unit":37.5}"#, 1, true),
              (#"{"value":300,"from":"px","to":"px"}"#, 300, true),
              (#"{"value":0,"from":"ft","to":"mm"}"#, 0, true),
          ])
    func convert(json: String, result: Double, exact: Bool) throws {
        let data = try self.data("convert", json)
        #expect(data["result"]?.number == result)
        #expect(data["exact"] == .bool(exact))
    }

    @Test("convert: the reply names the value, units and density")
    func convertReply() throws {
        let data = try self.data("convert", #"{"value":"1 3/16in","to":"px","px_per_unit":96,"transaction":"c"}"#)
        #expect(data == .object(["value": .number(1.1875), "from": .string("in"), "to": .string("px"), "result": .number(114),
                                 "exact": .bool(true), "px_per_unit": .number(96), "px_unit": .string("in")]))
    }

    @Test("convert: bad requests say what to fix",
          arguments: [
              (#"{"value":12,"to":"cm"}"#, "has no unit; give \"from\""),
              (#"{"from":"in","to":"cm"}"#, "needs \"value\""),
              (#"{"value":12,"from":"in"}"#, "needs \"to\""),
              (#"{"value":"12in","from":"cm","to":"mm"}"#, "written in in but \"from\" says cm"),
              (#"{"value":12,"from":"in","to":"cm","px_per_unit":80}"#, "apply only when \"from\" or \"to\" is px"),
              (#"{"value":12,"from":"px","to":"cm","px_per_unit":-1}"#, "\"px_per_unit\" must be greater than 0"),
              (#"{"value":12,"from":"px","to":"cm","px_unit":"px"}"#, "\"px_unit\" must be a length unit"),
              (#"{"value":1001,"from":"m","to":"cm"}"#, "outside ±1000 m"),
              (#"{"value":-1001,"from":"m","to":"cm"}"#, "outside ±1000 m"),
              (#"{"value":9000000,"from":"px","to":"m"}"#, "outside ±1000 m"),
              (#"{"value":"abc","to":"cm"}"#, "\"value\": \"abc\" is not a length"),
              (#"{"value":12,"from":"in","to":7}"#, "\"to\" must be a string"),
              (#"{"value":[12],"from":"in","to":"cm"}"#, "got an array"),
          ])
    func convertBadRequests(json: String, message: String) throws {
        let reply = try DecodedReply(handler.reply(service: "convert", payload: payload(json), reading: nil))
        #expect(reply.code == "bad_request")
        #expect(reply.error?.contains(message) == true, "\(reply.error ?? "")")
    }
}
