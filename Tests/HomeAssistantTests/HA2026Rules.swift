import Contract
import Foundation
import Settings

/// Rules of Home Assistant 2026.11, the newest release, that Plumb's discovery must follow.
/// That release needs a newer Python than this machine has, so the conformance check in
/// Tests/HAConformance (2025.4.4 at best) cannot run it; these rules are written down from its
/// release notes and schemas instead, and `HA2026RulesTests` applies them to every message.
/// Each rule has a control message that breaks it, so a rule that cannot fire fails its test.
struct HA2026Rule: Sendable {
    var name: String
    /// What is wrong with the entity, or nil if it follows the rule.
    var violation: @Sendable (HA2026Config) -> String?
    /// A discovery message that breaks the rule.
    var control: (topic: String, payload: String)
}

/// A discovery config with Home Assistant's abbreviations expanded, for the keys the rules read.
struct HA2026Config {
    var component: String
    var options: [String: JSONValue]

    /// The abbreviations of the keys these rules read (homeassistant/components/mqtt/abbreviations.py).
    static let abbreviations = [
        "obj_id": "object_id", "ent_cat": "entity_category", "cont_type": "content_type", "img_t": "image_topic",
    ]

    init(topic: String, payload: [UInt8]) throws {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 4 else { throw TestSetupError(description: "not a discovery topic: \(topic)") }
        component = String(levels[1])
        guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(payload)) else {
            throw TestSetupError(description: "payload of \(topic) is not a JSON object")
        }
        options = Dictionary(object.map { (Self.abbreviations[$0.key] ?? $0.key, $0.value) }) { first, _ in first }
    }

    func string(_ key: String) -> String? {
        if case .string(let value)? = options[key] { value } else { nil }
    }

    func number(_ key: String) -> Double? {
        switch options[key] {
        case .number(let value)?: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }
}

enum HA2026Rules {
    static let all: [HA2026Rule] = [
        HA2026Rule(
            name: "no object_id (removed in 2026.4 and ignored)",
            // 2026.4 ignores object_id, so an entity id that relied on it changes; Plumb lets
            // Home Assistant derive entity ids and must not publish the key at all.
            violation: { $0.options["object_id"] != nil ? "publishes object_id, which 2026.4 removed and ignores" : nil },
            control: ("homeassistant/sensor/plumb_control/tilt/config",
                      #"{"name":"Tilt","state_topic":"plumb/control/state","unique_id":"plumb_control_tilt","obj_id":"tilt"}"#)),
        HA2026Rule(
            name: "a number's step is at least 0.001",
            violation: { config in
                guard config.component == "number", let step = config.number("step") else { return nil }
                return step >= 0.001 ? nil : "number step \(step) is below 0.001"
            },
            control: ("homeassistant/number/plumb_control/tolerance/config",
                      #"{"name":"Tolerance","command_topic":"plumb/control/set","unique_id":"plumb_control_tolerance","step":0.0005}"#)),
        HA2026Rule(
            name: "no sensor or binary sensor with entity_category config",
            violation: { config in
                guard ["sensor", "binary_sensor"].contains(config.component),
                      config.string("entity_category") == "config" else { return nil }
                return "\(config.component) with entity_category config, which is refused"
            },
            control: ("homeassistant/binary_sensor/plumb_control/level/config",
                      #"{"name":"Level","state_topic":"plumb/control/level","unique_id":"plumb_control_level","ent_cat":"config"}"#)),
        HA2026Rule(
            name: "content_type only with image_topic",
            // content_type describes the bytes on image_topic; with url_topic it means nothing
            // and 2026.11 rejects the config.
            violation: { config in
                guard config.options["content_type"] != nil, config.options["image_topic"] == nil else { return nil }
                return "content_type without image_topic"
            },
            control: ("homeassistant/image/plumb_control/bubble/config",
                      #"{"name":"Bubble","url_topic":"plumb/control/bubble_url","unique_id":"plumb_control_bubble","content_type":"image/svg+xml"}"#)),
    ]

    /// Every rule a message breaks, as "<topic>: <what>".
    static func violations(topic: String, payload: [UInt8]) throws -> [String] {
        let config = try HA2026Config(topic: topic, payload: payload)
        return all.compactMap { rule in rule.violation(config).map { "\(topic): \($0)" } }
    }
}
