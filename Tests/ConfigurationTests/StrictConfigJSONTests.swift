import Configuration
import Foundation
import Geometry
import Settings
import Testing

/// Config messages are strict RFC 8259 JSON: what a lenient parser would have half-applied is
/// rejected whole, the reason naming the problem.
@Suite("Config over MQTT: strict JSON, rejected whole")
struct StrictConfigJSONTests {
    static let before = #"{"heartbeat_s": 30, "level_tolerance": 0.2, "name": "Before"}"#

    @Test("The two attack payloads are rejected whole, with a reason naming the problem, and nothing changes",
          arguments: [
              (#"{"heartbeat_s": 45,}"#, "the message is not JSON (line 1, column 20): a comma before a closing bracket;"
                  + " remove the comma after the last item; nothing was applied."),
              (#"{"level_tolerance": 0.3, "level_tolerance": 99}"#, "the message is not JSON (line 1, column 42):"
                  + #" duplicate object key "level_tolerance"; send each key once; nothing was applied."#),
          ])
    func attackPayloads(payload: String, reason: String) throws {
        let settings = try applying(Self.before)
        let rejection = try #require(rejected(payload, to: settings))
        #expect(rejection.key == nil)
        #expect(rejection.value == payload)
        #expect(rejection.reason.hasPrefix(reason), "\(rejection.reason)")
        #expect(rejection.reason.hasSuffix(#"Send one JSON object such as {"level_tolerance": 0.1}."#))
        #expect(settings.heartbeatS == 30)
        #expect(settings.levelTolerance == Angle(degrees: 0.2))
        #expect(settings == (try applying(Self.before)), "the receiver is unchanged")
    }

    @Test("Every other lenient form is refused whole, each with its own reason", arguments: [
        ("{\"heartbeat_s\": 45 /* s */}", "JSON has no comments"),
        (#"{"heartbeat_s": NaN}"#, "NaN and Infinity are not JSON numbers"),
        (#"{"heartbeat_s": -Infinity}"#, "NaN and Infinity are not JSON numbers"),
        (#"{"heartbeat_s": 045}"#, "without leading zeros"),
        (#"{"heartbeat_s": 0x2D}"#, "without leading zeros"),
        (#"{'heartbeat_s': 45}"#, "double quotes"),
        (#"{"name": "a\u0000b"}"#, #"\u0000 (NUL), which no setting or request accepts"#),
        (#"{"heartbeat_s": 45} {"heartbeat_s": 46}"#, "nothing after it"),
        (#"{"heartbeat_s": 99999999999999999999}"#, "a number is out of range"),
        (#"{"heartbeat_s": 1e999}"#, "a number is out of range"),
    ])
    func lenientForms(payload: String, reason: String) throws {
        let rejection = try #require(rejected(payload))
        #expect(rejection.key == nil)
        #expect(rejection.reason.hasPrefix("the message is not JSON (line 1, column "), "\(rejection.reason)")
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test("Invalid UTF-8 in a string is refused whole")
    func invalidUTF8() throws {
        let payload = Array(#"{"name": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
        do {
            let applied = try LiveSettings().applying(json: payload)
            Issue.record("applied: \(applied.effective)")
        } catch {
            #expect(error.reason.contains("a byte sequence is not UTF-8"), "\(error.reason)")
        }
    }

    @Test("Strict JSON that is valid is applied: integers and reals, escapes, whitespace")
    func validForms() throws {
        let settings = try applying("{\r\n\t\"heartbeat_s\": 45,\n \"level_tolerance\": 2.5e-1, \"name\": \"Drill \\u00e9\"\n}")
        #expect(settings.heartbeatS == 45)
        #expect(settings.levelTolerance == Angle(degrees: 0.25))
        #expect(settings.name == "Drill é")
    }

    @Test("A per-key value in quotes is one strict JSON string: NUL, trailing text and bad escapes are refused",
          arguments: [
              ("name", #""a\u0000b""#, #"is not JSON (line 1, column 10): a string contains \u0000"#),
              ("name", #""Drill" press"#, "there is more after the value"),
              ("mount", #""fl\at""#, "an invalid escape"),
              ("mount", #""flat"#, "it ends before the value is complete"),
          ])
    func perKeyQuoted(key: String, raw: String, reason: String) throws {
        do {
            let applied = try LiveSettings().applying(key: key, rawValue: Array(raw.utf8))
            Issue.record("\(raw) was applied: \(applied.effective)")
        } catch {
            #expect(error.key == key)
            #expect(error.reason.hasPrefix("the value starts with a quote but "), "\(error.reason)")
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test("A bare per-key value keeps the existing contract: text, read as the key needs")
    func perKeyBare() throws {
        #expect(try applying("heartbeat_s", raw: "45").heartbeatS == 45)
        #expect(try applying("name", raw: #""Drill \"press\"""#).name == #"Drill "press""#)
        #expect(try applying("mount", raw: #""fl\u0061t""#).mount == (try applying("mount", raw: "flat")).mount)
    }
}
