import BrokerHarness
import Foundation
import MQTT

/// Messages over the 1 MiB maximum packet size the agent announces. mosquitto drops
/// each one for the agent ("Dropping too large outgoing PUBLISH for <client id>" in its log), so
/// the agent never sees them; and it never gives back the unit of the agent's Receive Maximum
/// that a QoS 1 or 2 one took. That many such drops stall the agent's inbound QoS 1/2 path.
enum OversizeTraffic {
    /// One byte over 1 MiB: with the topic and the header, over the agent's maximum packet.
    static let payloadBytes = 1024 * 1024 + 1
    /// One buffer, shared by every message (arrays copy on write).
    static let payload = [UInt8](repeating: UInt8(ascii: "x"), count: payloadBytes)
    /// What an observer announces to be treated as the agent is: the broker drops these for it too.
    static let maximumPacketSize = 1024 * 1024
    /// The QoS levels, in turn.
    static let levels: [MQTTQoS] = [.atMostOnce, .atLeastOnce, .exactlyOnce]

    /// Every kind of topic the agent subscribes to (its probe aside): the bulk config, a key's
    /// config, a stray under `P/config/`, a command, a request, Home Assistant's status.
    static func topics(prefix: String) -> [String] {
        [prefix + "/config/set", prefix + "/config/name/set", prefix + "/config/a/b/c/set",
         prefix + "/command/calibrate_reversal", prefix + "/request/ruler", "homeassistant/status"]
    }

    /// The `index`th: the topics in turn, and each time round them the next QoS, so any 18 in a
    /// row cover every topic at every QoS. `qos1or2Only` skips QoS 0.
    static func message(_ index: Int, prefix: String, qos1or2Only: Bool = false) -> HostileMessage {
        let topics = topics(prefix: prefix)
        let qos = qos1or2Only ? levels[1 + (index / topics.count) % 2] : levels[(index / topics.count) % levels.count]
        var message = HostileMessage(topic: topics[index % topics.count], payload: payload, kind: .oversize,
                                     label: "oversize")
        message.qos = qos
        if message.topic.hasSuffix("/request/ruler") {
            // A request in form, with somewhere to answer: it still never reaches the agent.
            message.responseTopic = "chaos/oversize/\(index)"
            message.correlationData = Array("oversize-\(index)".utf8)
        }
        return message
    }
}

/// Valid desired configs sent at QoS 1 among hostile traffic, each checked: every one must be
/// applied, once. Each sets `name` to a value of its own (`ctl-<n>`), so the `config_applied`
/// naming it is its own; they go in turn as the whole object on `P/config/set` and as the bare
/// value on `P/config/name/set`, unstamped (no `written_at`), so none can pass for a later one.
struct ControlWrites {
    let prefix: String
    /// Each write's marker and when it was sent.
    private(set) var sent: [(marker: String, time: Date)] = []

    init(prefix: String) { self.prefix = prefix }

    /// The next write, recorded as sent now.
    mutating func next() -> HostileMessage {
        let marker = "ctl-\(sent.count)"
        sent.append((marker, Date()))
        let effect: [String: ConfigValue] = ["name": .text(marker)]
        if sent.count % 2 == 1 {
            return HostileMessage(topic: prefix + "/config/set", payload: Array("{\"name\": \"\(marker)\"}".utf8),
                                  kind: .config(valid: true, effect: effect), label: "control")
        }
        return HostileMessage(topic: prefix + "/config/name/set", payload: Array(marker.utf8),
                              kind: .config(valid: true, effect: effect), label: "control")
    }

    /// What became of the writes: the markers never applied, those applied more than once, and
    /// the longest a write took from sent to its `config_applied` at the observer.
    func outcome(_ observer: Observer) -> (missing: [String], repeated: [String], slowest: Double) {
        var applied: [String: [Date]] = [:]
        for arrival in observer.arrivals(on: prefix + "/event") {
            guard let object = json(arrival.message), object["type"] as? String == "config_applied",
                  let name = (object["changes"] as? [String: Any])?["name"] as? String, name.hasPrefix("ctl-")
            else { continue }
            applied[name, default: []].append(arrival.time)
        }
        let missing = sent.filter { applied[$0.marker] == nil }.map(\.marker)
        let repeated = sent.filter { (applied[$0.marker]?.count ?? 0) > 1 }.map(\.marker)
        let slowest = sent.compactMap { write in applied[write.marker]?.first?.timeIntervalSince(write.time) }.max() ?? 0
        return (missing, repeated, slowest)
    }

    /// Waits until every write is applied, or `timeout` seconds after the last was sent.
    func waitUntilApplied(_ observer: Observer, timeout: Double) async throws {
        let deadline = (sent.last?.time ?? Date()).addingTimeInterval(timeout)
        while !outcome(observer).missing.isEmpty && Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}

/// What the agent and its broker say about the inbound path.
enum InboundPath {
    /// The agent's warning, once per stall it found.
    static let stallWarning = "the broker stopped delivering QoS 1 and 2 messages"
    /// The agent's warning when the probe went unanswered on a fresh connection too.
    /// The start of the warning for a probe that cannot be answered, refused or unanswered.
    static let probeUnanswered = "a stalled inbound path cannot be detected"

    /// Lines of the agent's log holding `text`.
    static func lines(_ log: String, containing text: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// How many messages the broker dropped for `clientID` as over its maximum packet size.
    static func brokerDrops(_ broker: MosquittoBroker, clientID: String) -> Int {
        lines(broker.logContents(), containing: "Dropping too large outgoing PUBLISH for \(clientID) ")
    }
}
