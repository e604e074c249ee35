/// Every topic of one device, under `P = <base_topic>/<device_id>`. ``ContractTopic`` documents
/// each for the topic table of docs/reference/mqtt.md, and a test checks it has them all.
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
    /// `P/config/+/+/+/#`: topics three or more levels under `P/config/` (`P/config/a/b/set`),
    /// which are never the contract's: the agent subscribes to it beside ``configSet`` and
    /// ``configKeySetFilter`` (which also brings `P/config//set`), so such a stray is refused with
    /// a reason and, when retained, cleared rather than left on the broker.
    ///
    /// Not `P/config/#`: it overlaps the two contract filters, and an MQTT 5 broker delivers a
    /// message once per matching subscription (mosquitto does), so each desired config would
    /// arrive twice. And the exact ``configSet`` is what RabbitMQ 3.10, which delivers retained
    /// messages to exact subscriptions only, needs to hand a retained desired config over.
    public var configStrayFilter: String { prefix + "/config/+/+/+/#" }

    /// The filters of the config namespace the agent subscribes to, which no topic matches twice.
    public var configFilters: [String] { [configSet, configKeySetFilter, configStrayFilter] }
    /// `P/command/+`: every ``Command``.
    public var commandFilter: String { prefix + "/command/+" }
    /// `P/calibration`: the calibration in force as JSON (`method` null for none), retained.
    public var calibration: String { prefix + "/calibration" }
    /// `P/health`: counters as JSON, retained, every 60 s.
    public var health: String { prefix + "/health" }

    /// `P/vibration`: the vibration figures of the latest analysis window as JSON, retained
    /// (``VibrationKey`` names its keys).
    public var vibration: String { prefix + "/vibration" }

    /// `P/result`: the answer to the latest command or setting, one sentence as JSON, retained,
    /// QoS 1 (Home Assistant's "Last result").
    public var result: String { prefix + "/result" }

    /// `P/bubble`: the bubble-level picture as PNG, retained, at most once a second.
    public var bubble: String { prefix + "/bubble" }
    /// `P/probe`: the agent's own check that the broker still delivers QoS 1/2 messages to it.
    /// The agent publishes a random token there at QoS 1 after a silence and subscribes to it;
    /// when the token does not come back it reconnects, keeping the session. Nobody else needs
    /// it; the agent must be allowed to read and write it.
    public var inboundProbe: String { prefix + "/probe" }
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
