import Accelerometers
import Settings

/// One key that only `plumb.yaml` sets (the live settings have their own rules, in `Settings`):
/// its place, what it takes, its default and what it does. The parser takes each section's
/// accepted keys and each number's range from here, and `make docs` writes the configuration
/// reference from here, so the reference cannot name a key the parser refuses, nor give a range
/// it does not check.
public struct FileKey: Sendable {
    /// What a key takes.
    public enum Value: Sendable {
        /// A whole number in a range, in a unit (nil for a count).
        case integer(ClosedRange<Int>, unit: String?)
        /// Text, with what is accepted in words.
        case text(String)
        /// An absolute path.
        case path
        /// `true` or `false`.
        case boolean
        /// One of these words.
        case choice([String])
        /// A mapping of keys of its own.
        case section
        /// Something a sentence describes (a list, a URL, an address).
        case other(String)
    }

    /// Where it is written: `mqtt.failback_s`, `state_dir`.
    public let path: String
    /// What it takes.
    public let value: Value
    /// The default as the reference shows it, from a default configuration.
    public let defaultText: @Sendable (AgentConfiguration) -> String
    /// What it does, one cell of the reference.
    public let summary: String
    /// How a number's error message names it ("the keep-alive in seconds").
    let what: String

    init(_ path: String, _ value: Value, default defaultText: @escaping @Sendable (AgentConfiguration) -> String,
         what: String = "", _ summary: String) {
        self.path = path
        self.value = value
        self.defaultText = defaultText
        self.what = what
        self.summary = summary
    }

    /// The key within its section.
    public var name: String { path.split(separator: ".").last.map(String.init) ?? path }
    /// The section it belongs to: `mqtt`, `mqtt.tls`, or `""` at the top.
    public var section: String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }

    var range: ClosedRange<Int> {
        if case .integer(let range, _) = value { return range }
        preconditionFailure("\(path) is not a number")
    }
}

extension FileKey {
    private static func quoted(_ text: String) -> String { "`" + text + "`" }
    private static let none: @Sendable (AgentConfiguration) -> String = { _ in "none" }

    // MARK: mqtt

    static let mqtt = FileKey("mqtt", .section, default: { _ in "" }, "how the agent reaches the broker")
    static let url = FileKey("mqtt.url", .other("`mqtt://HOST:PORT` or `mqtts://HOST:PORT` (TLS), the port optional; IPv6 in brackets"),
                             default: { quoted($0.mqtt.url) },
                             "the broker; instead of `host` and `port`, or of `brokers`. `--broker` overrides it")
    static let brokers = FileKey("mqtt.brokers", .other("a list of 1 to \(AgentConfiguration.maximumBrokers) URLs, each once, all `mqtt://` or all `mqtts://`"),
                                 default: none,
                                 "the brokers to fail over between, the preferred first: [Failover](../guides/brokers-and-failover.md#failover-and-persistent-sessions)")
    static let host = FileKey("mqtt.host", .text("a host name or an IP address"), default: { quoted($0.mqtt.host) },
                              "the broker's host, with `port`; a `tls` section turns TLS on")
    static let port = FileKey("mqtt.port", .integer(1...65_535, unit: nil), default: { _ in "1883, or 8883 with `tls`" },
                              what: "a TCP port", "the broker's port, with `host`")
    static let failbackS = FileKey("mqtt.failback_s", .integer(5...86_400, unit: "s"), default: { "\($0.mqtt.failbackS)" },
                                   what: "the seconds between checks of the first broker",
                                   "how often at most the agent checks the first of `brokers` while on another")
    static let sessionExpiryS = FileKey("mqtt.session_expiry_s", .integer(0...4_294_967_295, unit: "s"),
                                        default: { "\($0.mqtt.sessionExpiryS)" },
                                        what: "the seconds a broker keeps the session (0: none)",
                                        "how long a broker keeps the agent's session while it is away, so what is sent at QoS 1 meanwhile is delivered at its return; 0 starts every connection clean")
    static let receiveMaximum = FileKey("mqtt.receive_maximum", .integer(1...65_535, unit: nil),
                                        default: { "\($0.mqtt.receiveMaximum)" },
                                        what: "the QoS 1/2 messages the broker may have in flight to the agent",
                                        "MQTT 5's Receive Maximum: the QoS 1/2 messages the broker may have in flight to the agent ([Inbound stalls](../guides/brokers-and-failover.md#reliability-inbound-stalls-and-what-a-client-with-publish-rights-can-do))")
    static let inboundProbeS = FileKey("mqtt.inbound_probe_s", .integer(2...50, unit: "s"),
                                       default: { "\($0.mqtt.inboundProbeS)" },
                                       what: "the seconds of silence before the inbound probe",
                                       "seconds without a QoS 1/2 delivery before the agent checks on `P/probe` that the broker still delivers to it")
    static let clientID = FileKey("mqtt.client_id", .text("1 to 128 bytes, no spaces or control characters"),
                                  default: { _ in "`plumb-<device id>`" }, "the MQTT client identifier")
    static let keepalive = FileKey("mqtt.keepalive", .integer(5...3600, unit: "s"), default: { "\($0.mqtt.keepalive)" },
                                   what: "the keep-alive in seconds", "seconds between keep-alive pings")
    static let username = FileKey("mqtt.username", .text("not empty, no control characters"), default: { _ in "none: anonymous" },
                                  "the broker account's user name")
    static let passwordFile = FileKey("mqtt.password_file", .path, default: none,
                                      "a file only plumb can read whose first line is the password; needs `username`. `PLUMB_MQTT_PASSWORD` overrides it. The password itself is never written in the file")
    static let tls = FileKey("mqtt.tls", .section, default: { _ in "none: TLS off" },
                             "present (even as `tls: {}`), the connection is encrypted; with `url` or `brokers`, use `mqtts://`")
    static let caFile = FileKey("mqtt.tls.ca_file", .path, default: { _ in "the system's trust store" },
                                "the CA certificate (PEM) the broker is verified with")
    static let certFile = FileKey("mqtt.tls.cert_file", .path, default: none,
                                  "a client certificate (PEM), for a broker that asks for one; with `key_file`")
    static let keyFile = FileKey("mqtt.tls.key_file", .path, default: none, "the client certificate's key (PEM); with `cert_file`")
    static let insecure = FileKey("mqtt.tls.insecure", .boolean, default: { _ in "`false`" },
                                  "`true` skips checking the broker's certificate and name: for testing only")
    static let baseTopic = FileKey("mqtt.base_topic", .text("a topic prefix: no wildcards, no empty level, not starting with `$`, at most 128 bytes"),
                                   default: { quoted($0.mqtt.baseTopic) }, "topics are `<base_topic>/<device id>/…`")
    static let discoveryPrefix = FileKey("mqtt.discovery_prefix", .text("a topic prefix, as `base_topic`"),
                                         default: { quoted($0.mqtt.discoveryPrefix) },
                                         "the prefix Home Assistant's MQTT discovery listens on")
    static let discovery = FileKey("mqtt.discovery", .boolean, default: { quoted("\($0.mqtt.discovery)") },
                                   "publish Home Assistant discovery and the bubble picture; `false` sends neither, about an eighth of the bytes")

    // MARK: device

    static let device = FileKey("device", .section, default: { _ in "" }, "who the device is")
    static let deviceID = FileKey("device.id", .text("1 to 64 of lower-case letters, digits, `_` and `-`"),
                                  default: { _ in "the host name, lower-cased, other characters replaced by `_`" },
                                  "the id in topics and in Home Assistant. `--device-id` overrides it")
    static let configurationURL = FileKey("device.configuration_url", .other("an `http://` or `https://` address"), default: none,
                                          "Home Assistant's \"Visit\" link on the device")

    // MARK: sensor

    static let sensor = FileKey("sensor", .section, default: { _ in "" }, "the chip and the temperature source")
    static let kind = FileKey("sensor.kind", .choice(SensorKind.names), default: { _ in "`auto`" },
                              "which chip to read: `auto` reads the one supported chip that answers on the bus, and scans again each time it opens the chip (at start and after a sensor fault), so a chip swapped for another is read as itself; none or several found is a sensor fault, retried, naming what it saw. `sim` is the simulated chip. `--sensor` overrides it")
    static let bus = FileKey("sensor.bus", .path, default: { quoted($0.sensor.bus) }, "the I²C bus's device file")
    static let address = FileKey("sensor.address", .other("an address the chip answers at, as `0x53`, `83` or `\"0x53\"`"),
                                 default: { _ in "the chip's first, or where `auto`'s scan finds it" },
                                 "the chip's I²C address: [Hardware](../hardware/README.md)")
    static let range = FileKey("sensor.range", .other("a range in g the chip offers"), default: { _ in "the chip's own" },
                               "the measurement range: " + ChipCatalog.all.map { "\($0.model) \($0.rangeList) (default \($0.defaultRangeG))" }
                                   .joined(separator: "; "))
    static let temperature = FileKey("sensor.temperature", .other("`auto`, `chip`, `mqtt:<topic>`, `thermal_zone:<N>` or `none`"),
                                     default: { _ in "`auto`: `chip` where the chip has a sensor, else `none`" },
                                     "where the temperature comes from, to correct the drift and bound the uncertainty: [Temperature](../guides/temperature.md)")
    static let temperatureStaleS = FileKey("sensor.temperature_stale_s", .integer(AgentConfiguration.SensorSettings.temperatureStaleRange, unit: "s"),
                                           default: { "\($0.sensor.temperatureStaleS)" },
                                           what: "the seconds without a temperature after which it is stale",
                                           "a source silent this long is stale: the uncertainty widens and `P/health` says so")
    static let learnDriftMinimumS = FileKey("sensor.learn_drift_minimum_s", .integer(AgentConfiguration.SensorSettings.learnDriftMinimumRange, unit: "s"),
                                            default: { "\($0.sensor.learnDriftMinimumS)" },
                                            what: "the seconds learn_drift must run before it may fit",
                                            "the shortest `learn_drift` session that `stop` fits")
    static let learnDriftBucketS = FileKey("sensor.learn_drift_bucket_s", .integer(AgentConfiguration.SensorSettings.learnDriftBucketRange, unit: "s"),
                                           default: { "\($0.sensor.learnDriftBucketS)" },
                                           what: "the seconds of readings learn_drift averages into one point",
                                           "the seconds of readings `learn_drift` averages into one point")

    // MARK: service, control, the rest

    static let service = FileKey("service", .section, default: { _ in "" }, "the ruler service's rate limit")
    static let requestsPerS = FileKey("service.requests_per_s", .integer(1...1_000_000, unit: "/s"),
                                      default: { "\($0.service.requestsPerSecond)" },
                                      what: "the ruler service's requests per second",
                                      "requests answered per second on average; beyond it the reply is `busy`")
    static let burst = FileKey("service.burst", .integer(1...1_000_000, unit: nil), default: { "\($0.service.burst)" },
                               what: "the requests a burst may hold", "requests that may arrive at once after a quiet spell")
    static let requestTimeoutS = FileKey("service.request_timeout_s", .integer(1...86_400, unit: "s"),
                                         default: { "\($0.service.requestTimeoutS)" },
                                         what: "the seconds after which a stamped request is stale",
                                         "a request stamped `sent_at` longer ago is answered `stale`")
    static let control = FileKey("control", .section, default: { _ in "" }, "the local control socket")
    static let socket = FileKey("control.socket", .other("an absolute path of at most 107 bytes, or `off`"),
                                default: { _ in quoted(AgentConfiguration.ControlSettings.defaultSocket) },
                                "the Unix socket the command line works through while the agent owns the chip (group `plumb`)")
    static let stateDir = FileKey("state_dir", .path, default: { quoted($0.stateDirectory) },
                                  "where `settings.json`, `zero.json` and `calibration.json` are kept: [State files](state-files.md). `--state-dir` overrides it")
    static let logLevel = FileKey("log_level", .choice(AgentConfiguration.LogLevel.allCases.map(\.rawValue)),
                                  default: { quoted($0.logLevel.rawValue) }, "how much goes to the journal")
    static let level = FileKey("level", .section, default: { _ in "" }, "the level's live settings, as defaults")
    static let vibration = FileKey("vibration", .section, default: { _ in "" }, "the vibration analysis's live settings, as defaults")

    /// Every key only the file sets, and every section, in the order of `config/plumb.yaml`.
    public static let all: [FileKey] = [
        mqtt, url, brokers, host, port, failbackS, sessionExpiryS, receiveMaximum, inboundProbeS, clientID, keepalive,
        username, passwordFile, tls, caFile, certFile, keyFile, insecure, baseTopic, discoveryPrefix, discovery,
        device, deviceID, configurationURL,
        sensor, kind, bus, address, range, temperature, temperatureStaleS, learnDriftMinimumS, learnDriftBucketS,
        service, requestsPerS, burst, requestTimeoutS, control, socket, stateDir, logLevel, level, vibration,
    ]

    /// The keys `section` accepts: its file keys, and the live keys written there.
    static func names(in section: String) -> [String] {
        all.filter { $0.section == section }.map(\.name)
            + LiveKey.allCases.map(AgentConfiguration.livePath).filter { livePathSection($0) == section }
                .map { String($0.split(separator: ".").last!) }
    }

    private static func livePathSection(_ path: String) -> String {
        path.split(separator: ".").dropLast().joined(separator: ".")
    }
}

extension YAMLSection {
    /// `key`'s whole number, in the range and with the words its ``FileKey`` gives.
    func int(_ key: FileKey) throws(ConfigurationError) -> Int? {
        try int(key.name, in: key.range, what: key.what)
    }
}
