import Accelerometers
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import I2C
import Settings
import Thermal

/// Everything the agent is configured with: the config file, validated, with the command line's
/// overrides applied.
///
/// Connection, device and sensor settings come only from the file and the command line; MQTT
/// can never change them. ``level`` holds the file's defaults for the ``LiveSettings``, which
/// MQTT can change while the agent runs.
///
/// A value is always valid: the only ways to one are ``load(path:environment:hostname:)``,
/// ``parse(yaml:source:hostname:)`` and ``apply(overrides:)``, which check everything.
public struct AgentConfiguration: Sendable, Equatable {
    /// `/etc/plumb/plumb.yaml`.
    public static let defaultPath = "/etc/plumb/plumb.yaml"
    /// `PLUMB_MQTT_PASSWORD`: when set, the MQTT password, overriding `mqtt.password_file`.
    public static let passwordEnvironmentVariable = "PLUMB_MQTT_PASSWORD"

    /// How much the agent logs. Named inside this type so it never clashes with a logger's own.
    public enum LogLevel: String, Sendable, CaseIterable {
        case debug, info, warning, error
    }

    /// `mqtt.tls`: present exactly when the connection uses TLS.
    public struct TLSSettings: Sendable, Equatable {
        /// The CA certificate file (PEM) to verify the broker with; nil for the system's trust
        /// store.
        public internal(set) var caFile: String?
        /// The client certificate (PEM) for mutual TLS; set together with ``keyFile``.
        public internal(set) var certFile: String?
        /// The client certificate's private key (PEM); set together with ``certFile``.
        public internal(set) var keyFile: String?
        /// When true, the broker's certificate and host name are not verified. False by default:
        /// verification on.
        public internal(set) var insecure = false

        init() {}
    }

    /// One broker of `mqtt.brokers` (or the one `mqtt.url`, or `mqtt.host` and `mqtt.port`, give).
    public struct BrokerSettings: Sendable, Equatable {
        /// The broker's host name or IP address (IPv6 without brackets).
        public internal(set) var host: String
        /// The broker's TCP port: 1883 by default, 8883 with TLS.
        public internal(set) var port: Int
    }

    /// `mqtt`: the broker and the topics.
    public struct MQTTSettings: Sendable, Equatable {
        /// The brokers in order of preference: the agent connects to the first, moves to the next
        /// on a failed connect or a lost connection, and returns to the first while connected
        /// elsewhere (see ``failbackS``). Never empty; one (`localhost:1883`) by default.
        /// Every broker shares ``tls``, the credentials and the client id.
        public internal(set) var brokers = [BrokerSettings(host: "localhost", port: 1883)]
        /// The first broker's host name or IP address (IPv6 without brackets): the broker to use
        /// for a single connection.
        public internal(set) var host: String {
            get { brokers[0].host }
            set { brokers[0].host = newValue }
        }
        /// The first broker's TCP port: 1883 by default, 8883 with TLS.
        public internal(set) var port: Int {
            get { brokers[0].port }
            set { brokers[0].port = newValue }
        }
        /// `mqtt.failback_s`: while on a later broker, check at most this often (seconds, 5 to
        /// 86400; 60 by default) whether the first accepts connections again, and go back to it.
        public internal(set) var failbackS = 60
        /// `mqtt.session_expiry_s`: how long a broker keeps the agent's persistent session
        /// (its subscriptions and the QoS 1 messages that arrive for it) while the agent is
        /// away, in seconds, 0 to 4294967295; one day (86400) by default. 0 turns persistent
        /// sessions off: every connection starts clean, and what arrives while away is lost.
        public internal(set) var sessionExpiryS = 86_400
        /// `mqtt.receive_maximum`: how many QoS 1/2 messages the broker may have in flight to the
        /// agent at once (MQTT 5's Receive Maximum), 1 to 65535; 65535 by default. mosquitto
        /// loses one for good with every message it drops as larger than the agent's 1 MiB
        /// maximum packet size: at the default that takes 64 GiB of hostile traffic, and the
        /// inbound probe repairs it anyway. Lower it only for a broker that needs it.
        public internal(set) var receiveMaximum = 65_535
        /// `mqtt.inbound_probe_s`: seconds without any QoS 1/2 delivery before the agent checks,
        /// with a QoS 1 message to `P/probe`, that the broker still delivers to it; 2 to 50, 30 by
        /// default. The probe waits at most 10 s (or this, if less) before the agent reconnects,
        /// so a stall is found within 40 s at the default, 60 s at most.
        public internal(set) var inboundProbeS = 30
        /// TLS settings, or nil for a plain TCP connection.
        public internal(set) var tls: TLSSettings?
        /// The MQTT client identifier; `plumb-<device id>` by default.
        public internal(set) var clientID: String
        /// Seconds between keep-alive pings, 5 to 3600; 60 by default.
        public internal(set) var keepalive = 60
        /// The user name, or nil to connect anonymously.
        public internal(set) var username: String?
        /// The file holding the password (first line; one trailing newline is dropped).
        public internal(set) var passwordFile: String?
        /// The password, resolved by ``AgentConfiguration/load(path:environment:hostname:)`` from
        /// `PLUMB_MQTT_PASSWORD` or ``passwordFile``; nil when there is none, and always nil
        /// after ``AgentConfiguration/parse(yaml:source:hostname:)``, which reads no file.
        /// Never log it.
        public internal(set) var password: String?
        /// The first topic level: topics are `<base_topic>/<device id>/…`. `plumb` by default.
        public internal(set) var baseTopic = "plumb"
        /// Home Assistant's discovery prefix, `homeassistant` by default.
        public internal(set) var discoveryPrefix = "homeassistant"
        /// Whether to publish Home Assistant discovery; true by default.
        public internal(set) var discovery = true

        init(clientID: String) {
            self.clientID = clientID
        }

        /// The first broker as a URL, for logs: `mqtts://broker.lan:8883`.
        public var url: String { urls[0] }

        /// Every broker as a URL, in order.
        public var urls: [String] {
            brokers.map { broker in
                let shownHost = broker.host.contains(":") ? "[\(broker.host)]" : broker.host
                return (tls == nil ? "mqtt" : "mqtts") + "://\(shownHost):\(broker.port)"
            }
        }
    }

    /// `device`: who this agent is.
    public struct DeviceSettings: Sendable, Equatable {
        /// `[a-z0-9_-]`, 1 to 64 characters: the topic level and Home Assistant's unique id.
        /// Defaults to the host name, sanitised (see ``AgentConfiguration/deviceID(fromHostname:)``).
        public internal(set) var id: String
        /// The display name, 1 to 64 printable characters; `Plumb <id>` by default.
        public internal(set) var name: String
        /// A web page about the device (`http://` or `https://`), shown by Home Assistant as the
        /// device's "Visit" link; nil by default.
        public internal(set) var configurationURL: String?
    }

    /// `service`: the ruler service's limits.
    public struct ServiceSettings: Sendable, Equatable {
        /// Requests answered per second on average before `busy`; 200 by default.
        public internal(set) var requestsPerSecond = 200
        /// Requests that may arrive at once after a quiet spell; 50 by default.
        public internal(set) var burst = 50
        /// `service.request_timeout_s`: a request stamped with `sent_at` longer ago than this
        /// (seconds, 1 to 86400; 30 by default) is answered `stale` instead of late.
        public internal(set) var requestTimeoutS = 30

        init() {}
    }

    /// `control`: the local control socket the command line reaches the agent through.
    public struct ControlSettings: Sendable, Equatable {
        /// `control.socket`: an absolute path, `/run/plumb/control.sock` by default (the unit's
        /// RuntimeDirectory=plumb makes its directory); nil for `off`, no socket.
        public internal(set) var socket: String? = ControlSettings.defaultSocket

        /// Where the unit's `RuntimeDirectory=plumb` puts it.
        public static let defaultSocket = "/run/plumb/control.sock"

        init() {}
    }

    /// `sensor`: what to read and how. The sample rate is a live setting: `sensor.sample_rate_hz`
    /// in the file is ``LiveSettings/sampleRateHz`` of ``AgentConfiguration/level``.
    public struct SensorSettings: Sendable, Equatable {
        /// `auto` by default: the one supported chip found on the bus.
        public internal(set) var kind = SensorKind.auto
        /// The I²C bus device file, `/dev/i2c-1` by default.
        public internal(set) var bus = "/dev/i2c-1"
        /// The chip's address; nil for its default (the first of its description's), or, with
        /// `auto`, any address a supported chip can have.
        public internal(set) var address: I2CAddress?
        /// The measurement range in g; nil for the chip's default (±16 g on the ADXL345, ±2 g on
        /// the ADXL355 and the MPU-6050).
        public internal(set) var range: Int?
        /// `sensor.temperature`: where the temperature comes from; `auto` (the chip's own sensor
        /// where it has one, else none) by default.
        public internal(set) var temperature = TemperatureSource.automatic
        /// `sensor.temperature_stale_s`: seconds without a temperature after which the source is
        /// stale (health says so and the uncertainty widens). Default 600.
        public internal(set) var temperatureStaleS = SensorSettings.defaultTemperatureStaleS

        /// `sensor.learn_drift_minimum_s`: how long `learn_drift` must run before `stop` may fit,
        /// in seconds. Default 3600: a drift is learned over hours, as the workshop warms and cools.
        public internal(set) var learnDriftMinimumS = 3600
        /// `sensor.learn_drift_bucket_s`: seconds of readings `learn_drift` averages into one
        /// point. Default 60; progress comes every ten points.
        public internal(set) var learnDriftBucketS = 60
        /// What `sensor.learn_drift_minimum_s` and `sensor.learn_drift_bucket_s` accept.
        public static let learnDriftMinimumRange = 10...604_800
        public static let learnDriftBucketRange = 1...600

        /// The default ``temperatureStaleS``: ten minutes, several of a thermometer's
        /// usual reporting intervals.
        public static let defaultTemperatureStaleS = 600
        /// What `sensor.temperature_stale_s` accepts.
        public static let temperatureStaleRange = 10...86_400

        /// The chip `kind` names, from its description; nil for `auto` (known once the bus is
        /// scanned) and `sim` (the command line picks the simulated chip).
        public var chip: ChipDescription? { kind.chip }

        /// Where the chip is: the address given, or the named chip's default; nil when a scan
        /// decides (`auto` without an address) or for `sim` without one.
        public var chipAddress: I2CAddress? { address ?? chip?.addresses.first }

        init() {}
    }

    /// `mqtt`.
    public internal(set) var mqtt: MQTTSettings
    /// `device`.
    public internal(set) var device: DeviceSettings
    /// `sensor`.
    public internal(set) var sensor: SensorSettings
    /// `service`.
    public internal(set) var service = ServiceSettings()
    /// `control`.
    public internal(set) var control = ControlSettings()
    /// `state_dir`: where the live settings and the zero reference persist; `/var/lib/plumb`.
    public internal(set) var stateDirectory = "/var/lib/plumb"
    /// `log_level`: `info` by default.
    public internal(set) var logLevel = LogLevel.info
    /// The file's live settings (the `level:` and `vibration:` sections, `sensor.sample_rate_hz`,
    /// `device.name`): the defaults in force until MQTT changes them.
    public internal(set) var level: LiveSettings

    /// Which defaults were derived from the device id, so an overridden id carries them along.
    var derived = DerivedDefaults()

    struct DerivedDefaults: Sendable {
        var clientID = true
        var deviceName = true
    }

    /// All defaults for device `id`.
    init(deviceID id: String) {
        let name = Self.defaultName(forDeviceID: id)
        mqtt = MQTTSettings(clientID: Self.defaultClientID(forDeviceID: id))
        device = DeviceSettings(id: id, name: name)
        sensor = SensorSettings()
        level = LiveSettings(name: name)
    }

    /// `Plumb <id>`, cut to the 64 characters a name may have.
    static func defaultName(forDeviceID id: String) -> String {
        String(("Plumb " + id).prefix(LiveSettings.maximumNameLength))
    }

    /// `plumb-<id>`.
    static func defaultClientID(forDeviceID id: String) -> String {
        "plumb-" + id
    }

    // Compares what the agent uses, not how each value came about.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.mqtt == rhs.mqtt && lhs.device == rhs.device && lhs.sensor == rhs.sensor && lhs.service == rhs.service
            && lhs.stateDirectory == rhs.stateDirectory && lhs.logLevel == rhs.logLevel && lhs.level == rhs.level
    }

    // MARK: Device id

    /// A device id from a host name: lower-cased, every character outside `[a-z0-9_-]` replaced
    /// by `_`, at most 64 characters, and `plumb` when nothing is left.
    ///
    /// `Pi.Workshop` gives `pi_workshop`; an empty host name gives `plumb`.
    public static func deviceID(fromHostname hostname: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        let sanitised = String(hostname.lowercased().map { allowed.contains($0) ? $0 : "_" }.prefix(64))
        return sanitised.isEmpty ? "plumb" : sanitised
    }

    /// Why `id` is not a valid device id, or nil when it is.
    static func deviceIDProblem(_ id: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        if id.isEmpty { return "a device id cannot be empty; use lower-case letters, digits, _ and -." }
        if id.count > 64 { return "a device id is at most 64 characters; this one has \(id.count)." }
        if let bad = id.first(where: { !allowed.contains($0) }) {
            return "\"\(bad)\" is not allowed in a device id; use only lower-case letters, digits, _ and -"
                + " (it becomes an MQTT topic level and Home Assistant's unique id)."
        }
        return nil
    }

    /// This machine's host name, or the empty string when it has none.
    public static func systemHostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
