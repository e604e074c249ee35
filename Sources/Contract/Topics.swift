/// Every topic of one device, under `P = <base_topic>/<device_id>`. The README's topic table is
/// the contract these names follow.
public struct Topics: Sendable, Hashable {
    /// `P`.
    public let prefix: String

    public init(baseTopic: String, deviceID: String) {
        prefix = baseTopic + "/" + deviceID
    }

    /// `P/status`: `online`/`offline`, retained; the will and the birth message.
    public var status: String { prefix + "/status" }
    /// `P/state`: the reading as JSON, retained.
    public var state: String { prefix + "/state" }
    /// `P/level`: `ON`/`OFF`, retained.
    public var level: String { prefix + "/level" }
    /// `P/event`: JSON events, QoS 1, not retained.
    public var event: String { prefix + "/event" }
    /// `P/config`: the effective config as JSON, retained.
    public var config: String { prefix + "/config" }
    /// `P/config/set`: a JSON object of settings, partial or full.
    public var configSet: String { prefix + "/config/set" }
    /// `P/config/+/set`: one raw value per key.
    public var configKeySetFilter: String { prefix + "/config/+/set" }
    /// `P/config/#`: the whole config namespace, which the agent subscribes to, so that a message
    /// on a topic there that is not the contract's (`P/config//set`, `P/config/a/b/set`) is
    /// refused with a reason and, when retained, cleared rather than left on the broker.
    public var configFilter: String { prefix + "/config/#" }
    /// `P/command/+`: every ``Command``.
    public var commandFilter: String { prefix + "/command/+" }
    /// `P/calibration`: the calibration in force as JSON (`method` null for none), retained.
    public var calibration: String { prefix + "/calibration" }
    /// `P/health`: counters as JSON, retained, every 60 s.
    public var health: String { prefix + "/health" }

    /// `P/vibration`: the vibration figures of the latest analysis window as JSON, retained
    /// (``VibrationKey`` names its keys).
    public var vibration: String { prefix + "/vibration" }

    /// `P/bubble`: the bubble-level picture as SVG, retained, at most once a second.
    public var bubble: String { prefix + "/bubble" }
    /// `P/request/+`: ruler-service requests, one per ``RulerServiceName``.
    public var requestFilter: String { prefix + "/request/+" }

    /// `P/request/<service>`.
    public func request(_ service: RulerServiceName) -> String { prefix + "/request/" + service.rawValue }

    /// `P/response/<service>`: where replies go when the request gave no MQTT 5 response topic.
    /// Takes the name as it came in, which may be no service at all: its error reply goes there.
    public func response(_ service: String) -> String { prefix + "/response/" + service }

    /// The service level of a `P/request/<service>` topic, or nil for any other topic. Any name,
    /// not only a ``RulerServiceName``: an unknown one is answered with an error.
    public func requestService(of topic: String) -> String? {
        lastLevel(of: topic, under: prefix + "/request/")
    }

    /// `P/config/<key>/set`.
    public func configSet(key: String) -> String { prefix + "/config/" + key + "/set" }

    /// `P/command/<name>`.
    public func command(_ command: Command) -> String { prefix + "/command/" + command.rawValue }

    /// The key of a `P/config/<key>/set` topic, or nil for any other topic.
    public func configKey(ofSetTopic topic: String) -> String? {
        let head = prefix + "/config/"
        guard topic.hasPrefix(head), topic.hasSuffix("/set"), topic != configSet else { return nil }
        let key = topic.dropFirst(head.count).dropLast("/set".count)
        guard !key.isEmpty, !key.contains("/") else { return nil }
        return String(key)
    }

    /// Whether `topic` lies under `P/config/` (`P/config` itself, the effective config, does not).
    public func isUnderConfig(_ topic: String) -> Bool {
        topic.hasPrefix(prefix + "/config/")
    }

    /// The name level of a `P/command/<name>` topic, or nil for any other topic. Any name, not
    /// only a ``Command``: an unknown one is logged with the list of commands.
    public func commandName(of topic: String) -> String? {
        lastLevel(of: topic, under: prefix + "/command/")
    }

    /// The single topic level after `head`, or nil when there is none or more than one.
    private func lastLevel(of topic: String, under head: String) -> String? {
        guard topic.hasPrefix(head) else { return nil }
        let name = topic.dropFirst(head.count)
        guard !name.isEmpty, !name.contains("/") else { return nil }
        return String(name)
    }
}
