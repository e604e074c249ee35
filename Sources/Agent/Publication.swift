import Configuration
import Contract
import Geometry
import HomeAssistant
import MQTT
import Persistence

/// Why `P/state` goes out: the publish policy's decision on a reading or a tick, or an event of
/// the agent's own that a subscriber must see at once.
enum PublishReason: Sendable, Hashable, CustomStringConvertible {
    /// ``PublishPolicy`` decided (first, flipped, forced, moved, heartbeat).
    case policy(PublishDecision)
    /// The sensor failed: the state says `sensor: fault`.
    case fault
    /// New settings are in force.
    case config
    /// The (re)connect's birth.
    case birth
    /// Home Assistant came online and asked for everything again.
    case homeAssistant
    /// A zero was taken.
    case zeroed
    /// The zero was cleared.
    case zeroCleared

    /// Whether it is only a heartbeat, which keeps the bubble picture as it was.
    var isHeartbeat: Bool { self == .policy(.heartbeat) }

    /// The reason's name, for the log.
    var description: String {
        switch self {
        case .policy(let decision): decision.rawValue
        case .fault: "fault"
        case .config: "config"
        case .birth: "birth"
        case .homeAssistant: "home assistant"
        case .zeroed: "zeroed"
        case .zeroCleared: "zero cleared"
        }
    }
}

/// One message the agent publishes, as a typed value: it knows its topic, its payload, whether
/// it is retained and at which QoS, in this one place. ``AgentCore/send(_:)`` is the only road
/// from a publication to the broker.
///
/// State-like topics are retained and republished in full at the next connect, so a state
/// publication missed while away needs no queue; events have ``EventQueue``.
enum Publication {
    /// `P/status`: `online` or `offline`.
    case status(online: Bool)
    /// `P/state`.
    case state(StatePayload, reason: PublishReason)
    /// `P/level`: `ON` or `OFF`.
    case level(Bool)
    /// `P/config`: the effective settings, encoded.
    case config([UInt8])
    /// `P/calibration`: the calibration in force; nil for none.
    case calibration(CalibrationRecord?)
    /// `P/health`.
    case health([HealthKey: JSONValue])
    /// `P/event`.
    case event(AgentEvent)
    /// `P/result`: the answer to the latest command.
    case result(CommandResult)
    /// `P/bubble`: the picture, PNG.
    case bubble(png: [UInt8])
    /// `P/vibration`: a window's figures; nil clears the retained one.
    case vibration(VibrationPayload?)
    /// A Home Assistant discovery config (empty payload: a removal).
    case discovery(DiscoveryMessage)
    /// Deletes the retained message on `topic` (a desired config, once applied or refused).
    case clear(topic: String)

    /// The topic it goes to.
    func topic(in topics: Topics) -> String {
        switch self {
        case .status: topics.status
        case .state: topics.state
        case .level: topics.level
        case .config: topics.config
        case .calibration: topics.calibration
        case .health: topics.health
        case .event: topics.event
        case .result: topics.result
        case .bubble: topics.bubble
        case .vibration: topics.vibration
        case .discovery(let message): message.topic
        case .clear(let topic): topic
        }
    }

    /// The bytes it carries.
    var payload: [UInt8] {
        switch self {
        case .status(let online): Array((online ? "online" : "offline").utf8)
        case .state(let payload, _): encodeJSON(payload)
        case .level(let level): Array((level ? "ON" : "OFF").utf8)
        case .config(let bytes): bytes
        case .calibration(let record): CalibrationPayload(record).json.bytes
        case .health(let figures):
            JSONValue.object(Dictionary(uniqueKeysWithValues: figures.map { ($0.key.rawValue, $0.value) })).bytes
        case .event(let event): event.payload
        case .result(let result): result.payload
        case .bubble(let png): png
        case .vibration(let payload): payload?.bytes ?? []
        case .discovery(let message): message.payload
        case .clear: []
        }
    }

    /// Whether the broker keeps it for later subscribers: everything but events.
    var retain: Bool {
        if case .event = self { return false }
        return true
    }

    /// At least once for what must not be lost or whose loss would mislead (status, events,
    /// the calibration, discovery, deletions); at most once for what the next one replaces.
    var qos: MQTTQoS {
        switch self {
        case .status, .event, .result, .calibration, .discovery, .clear: .atLeastOnce
        case .state, .level, .config, .health, .bubble, .vibration: .atMostOnce
        }
    }
}
