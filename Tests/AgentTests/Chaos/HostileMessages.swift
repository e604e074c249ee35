import Foundation
import Geometry
import MQTT

/// A setting's value as `P/config` reports it, for comparing effective configs.
enum ConfigValue: Equatable, CustomStringConvertible {
    case number(Double)
    case text(String)

    init?(_ any: Any?) {
        switch any {
        case let number as NSNumber: self = .number(number.doubleValue)
        case let text as String: self = .text(text)
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .number(let value): "\(value)"
        case .text(let text): text.debugDescription
        }
    }
}

/// One message a hostile client publishes, labelled by construction with what it must do.
struct HostileMessage {
    enum Kind {
        /// A desired config: `effect` is the keys it sets when `valid`; an invalid one must change nothing.
        case config(valid: Bool, effect: [String: ConfigValue])
        /// A ruler request, answered exactly once; `forbidden` when its response topic is one the
        /// agent must refuse (the reply then goes to `P/response/<service>`).
        case request(id: String, forbidden: Bool)
        case command
        case homeAssistantStatus
        /// Over the agent's 1 MiB maximum packet size: the broker drops it for the agent, which
        /// never sees it (``OversizeTraffic``).
        case oversize
    }

    var topic: String
    var payload: [UInt8]
    var kind: Kind
    var responseTopic: String?
    var correlationData: [UInt8]?
    /// What makes an invalid config invalid, for the report.
    var label = ""
    var qos = MQTTQoS.atLeastOnce
}

/// Seeded hostile traffic for one device: desired configs valid and not, ruler requests with
/// allowed and forbidden response topics, commands with hostile names and payloads, Home
/// Assistant status, large payloads and lines that try to forge the log.
///
/// Validity is decided by construction, from the contract (docs/reference/agent-behaviour.md, Settings): strict JSON (no
/// trailing comma, no duplicate key), all or nothing, ranges, 64 KiB for a config message.
struct HostileTraffic {
    let prefix: String
    /// Where an allowed reply goes: the requester's own topic.
    let replyPrefix: String
    private var random: SeededGenerator
    private var requests = 0

    /// The settings valid messages touch, which the check compares; chosen so that no
    /// combination of their values breaks a combination rule.
    static let touchedKeys = ["angle_unit", "length_unit", "level_dwell_s", "publish_deadband_deg", "filter", "name",
                              "min_interval_s"]

    init(prefix: String, replyPrefix: String, seed: UInt64) {
        self.prefix = prefix
        self.replyPrefix = replyPrefix
        random = SeededGenerator(seed: seed)
    }

    /// Topics a reply must never be published to: this device's and another's, Home Assistant's.
    func forbiddenTopics() -> [String] {
        [prefix + "/command/clear_calibration", prefix + "/status", "plumb/chaos-other/config/set",
         "homeassistant/sensor/plumb_chaos/config", prefix + "/config"]
    }

    /// The next message of the paced run.
    mutating func next() -> HostileMessage {
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<30: return config()
        case 30..<45: return configKey()
        case 45..<85: return request()
        case 85..<98: return command()
        default: return homeAssistantStatus()
        }
    }

    /// A burst for the flood: requests, configs and large payloads, as fast as the client sends.
    mutating func flood(_ index: Int) -> HostileMessage {
        switch index % 10 {
        case 0: return large()
        case 1, 2, 3: return config()
        default: return request()
        }
    }

    // MARK: Config

    private mutating func validEntry() -> (key: String, json: String, raw: String, value: ConfigValue) {
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            let unit = ["deg", "percent", "mm_per_m", "in_per_ft"].randomElement(using: &random)!
            return ("angle_unit", "\"\(unit)\"", unit, .text(unit))
        case 1:
            let unit = ["mm", "cm", "m", "in", "ft"].randomElement(using: &random)!
            return ("length_unit", "\"\(unit)\"", "\"\(unit)\"", .text(unit))
        case 2:
            let dwell = Double(Int.random(in: 0...3600, using: &random)) / [1, 2, 4].randomElement(using: &random)!
            return ("level_dwell_s", "\(dwell)", "\(dwell)", .number(dwell))
        case 3:
            let band = [0.001, 0.01, 0.05, 0.1, 0.5, 2, 10].randomElement(using: &random)!
            return ("publish_deadband_deg", "\(band)", " \(band)\n", .number(band))
        case 4:
            let filter = ["mean", "median"].randomElement(using: &random)!
            return ("filter", "\"\(filter)\"", filter, .text(filter))
        case 5:
            let name = "chaos \(Int.random(in: 0...99_999, using: &random)) ünï"
            return ("name", "\"\(name)\"", name, .text(name))
        default:
            let interval = [0, 0.25, 0.5, 1, 2].randomElement(using: &random)!
            return ("min_interval_s", "\(interval)", "\(interval)", .number(interval))
        }
    }

    /// Invalid JSON bodies for `P/config/set`, each refused whole by the contract, and why.
    private mutating func invalidJSON() -> (text: String, label: String) {
        let valid = validEntry()
        let forged = "\\n<3>plumb: \(LogForgery.marker)"
        return switch Int.random(in: 0..<16, using: &random) {
        case 0: ("{\"chaos_unknown\": 1}", "unknown key")
        case 1: ("{\"level_dwell_s\": 99999}", "out of range")
        case 2: ("{\"level_dwell_s\": \"5\"}", "wrong type")
        case 3: ("{\"level_dwell_s\": NaN}", "NaN")
        case 4: ("{\"level_dwell_s\": 1e999}", "1e999")
        case 5: ("{\"\(valid.key)\": \(valid.json), \"level_tolerance\": -1}", "one bad key of two")
        // Strict JSON: a trailing comma and a duplicate key are refused.
        case 6: ("{\"\(valid.key)\": \(valid.json),}", "trailing comma")
        case 7: ("{\"\(valid.key)\": \(valid.json), \"\(valid.key)\": \(valid.json)}", "duplicate key")
        case 8: (["[1,2]", "\"x\"", "42", "null", "true", "{}x", ""].randomElement(using: &random)!, "not one object")
        case 9: ("{\"name\": \"a\\u0007b\"}", "control character")
        case 10: ("{\"name\": \"\(String(repeating: "n", count: 65))\"}", "name too long")
        case 11: ("{\"name\": \"x\(forged)\", \"chaos_unknown\": 0}", "forged line in a name")
        case 12: ("{\"chaos\(forged)\": 1}", "forged line in a key")
        case 13: (String(repeating: "[", count: Int.random(in: 1000...60_000, using: &random)), "deep nesting")
        case 14: ("{\"\(valid.key)\": \(valid.json)", "unterminated")
        default: ("{\"level_dwell_s\": 1, \"alarm_threshold\": 0.001}", "out of range")
        }
    }

    private mutating func config() -> HostileMessage {
        let topic = prefix + "/config/set"
        if Bool.random(using: &random) {
            var effect: [String: ConfigValue] = [:]
            var members: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let entry = validEntry()
                // One key once: a duplicate is invalid.
                guard effect[entry.key] == nil else { continue }
                effect[entry.key] = entry.value
                members.append("\"\(entry.key)\": \(entry.json)")
            }
            let text = "{" + members.joined(separator: ", ") + "}"
            return HostileMessage(topic: topic, payload: Array(text.utf8), kind: .config(valid: true, effect: effect))
        }
        var (text, label) = invalidJSON()
        var payload = Array(text.utf8)
        if payload.isEmpty { payload = [0] }
        if Int.random(in: 0..<20, using: &random) == 0 {
            // Random bytes: not UTF-8, NULs, anything.
            payload = (0..<Int.random(in: 1...512, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            label = "random bytes"
        }
        return HostileMessage(topic: topic, payload: payload, kind: .config(valid: false, effect: [:]), label: label)
    }

    private mutating func configKey() -> HostileMessage {
        if Bool.random(using: &random) {
            let entry = validEntry()
            return HostileMessage(topic: prefix + "/config/\(entry.key)/set", payload: Array(entry.raw.utf8),
                                  kind: .config(valid: true, effect: [entry.key: entry.value]))
        }
        let forged = "\n<3>plumb: \(LogForgery.marker)"
        let (key, raw): (String, String) = switch Int.random(in: 0..<9, using: &random) {
        case 0: ("chaos_unknown", "1")
        case 1: ("level_dwell_s", "-1")
        case 2: ("level_dwell_s", "nan")
        case 3: ("angle_unit", "furlongs\(forged)")
        case 4: ("name", "x\u{1B}[31mred\u{0}")
        case 5: ("name", "\"unterminated")
        case 6: ("length_unit", String(repeating: "m", count: 70_000))
        case 7: ("filter", "\r\(forged)")
        default: ("level_tolerance", "100 furlongs")
        }
        return HostileMessage(topic: prefix + "/config/\(key)/set", payload: Array(raw.utf8),
                              kind: .config(valid: false, effect: [:]), label: "bad \(key) value")
    }

    // MARK: Requests

    private mutating func requestBody() -> [UInt8] {
        let transaction = "\"transaction\": \"t\(requests)\""
        let text: String = switch Int.random(in: 0..<10, using: &random) {
        case 0: "{\"length\": 30, \"unit\": \"cm\", \(transaction)}"
        case 1: "{\"value\": 12, \"from\": \"in\", \"to\": \"cm\", \(transaction)}"
        case 2: "{\"span\": 1.2, \"unit\": \"m\", \(transaction)}"
        case 3: "{\"feet\": [[0, 0]], \(transaction)}"
        case 4: "{\"length\": 1000, \"unit\": \"m\", \"style\": \"metric\", \(transaction)}"
        case 5: "{\"length\": 30,, \(transaction)}"
        case 6: "{\"transaction\": \"a\\u0000b\\n<3>plumb: \(LogForgery.marker)\"}"
        case 7: String(repeating: "{\"a\":", count: Int.random(in: 100...3000, using: &random))
        case 8: "{\(transaction), \"value\": 1e999, \"to\": \"mm\"}"
        default: ""
        }
        return Array(text.utf8)
    }

    private mutating func request() -> HostileMessage {
        requests += 1
        let id = "r\(requests)"
        let service = ["ruler", "convert", "rise", "shim", "ruler", "convert", "nope\u{7F}",
                       "x<3>plumb: \(LogForgery.marker)"].randomElement(using: &random)!
        var message = HostileMessage(topic: prefix + "/request/" + service, payload: requestBody(),
                                     kind: .request(id: id, forbidden: false), correlationData: Array(id.utf8))
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            message.responseTopic = replyPrefix + id
        case 4, 5:
            message.responseTopic = forbiddenTopics().randomElement(using: &random)!
            message.kind = .request(id: id, forbidden: true)
        default:
            break  // no response topic: the reply goes to P/response/<service>
        }
        return message
    }

    // MARK: Commands, Home Assistant, large payloads

    private mutating func command() -> HostileMessage {
        let forged = "\n<3>plumb: \(LogForgery.marker)"
        let (name, payload): (String, String) = switch Int.random(in: 0..<8, using: &random) {
        case 0: ("calibrate_reversal", "third\(forged)")
        case 1: ("calibrate_reversal", String(repeating: "z", count: 20_000))
        case 2: ("clear_zero", "PRESS")
        case 3: ("bogus\u{1B}[2J", "x")
        case 4: ("x<3>plumb: \(LogForgery.marker)", "")
        case 5: ("Zero", "PRESS")
        case 6: (String(repeating: "c", count: 2000), "PRESS")
        default: ("calibrate_reversal", "\u{0}\u{1}\u{2}")
        }
        return HostileMessage(topic: prefix + "/command/" + name, payload: Array(payload.utf8), kind: .command)
    }

    private mutating func homeAssistantStatus() -> HostileMessage {
        let payload = ["offline", "garbage\(LogForgery.marker)", "", "ONLINE", "online"]
            .randomElement(using: &random)!
        return HostileMessage(topic: "homeassistant/status", payload: Array(payload.utf8), kind: .homeAssistantStatus)
    }

    /// 256 KiB to 1 MB (under the agent's 1 MiB maximum packet) on a config, config key, request or command topic: over every limit.
    private mutating func large() -> HostileMessage {
        let size = Int.random(in: 256 * 1024...1_000_000, using: &random)
        let payload = [UInt8](repeating: UInt8(ascii: "{"), count: size)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return HostileMessage(topic: prefix + "/config/set", payload: payload,
                                      kind: .config(valid: false, effect: [:]), label: "oversize")
        case 1: return HostileMessage(topic: prefix + "/config/name/set", payload: payload,
                                      kind: .config(valid: false, effect: [:]), label: "oversize")
        case 2: return HostileMessage(topic: prefix + "/command/calibrate_reversal", payload: payload, kind: .command)
        default:
            var message = request()
            message.payload = payload
            return message
        }
    }
}
