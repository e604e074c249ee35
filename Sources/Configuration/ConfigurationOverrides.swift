import Accelerometers
import Contract
import Settings
/// What the command line overrides in the config file. Nil leaves the file's value.
///
/// Only start-up settings: the simulated pose belongs to the command line itself, and live
/// settings change over MQTT.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// `sensor.kind`.
    public var sensorKind: SensorKind?
    /// The broker as a URL, `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; replaces the file's
    /// `mqtt.url`, `mqtt.host`/`mqtt.port` or the whole `mqtt.brokers` list (no failover then).
    public var broker: String?
    /// `device.id`, `[a-z0-9_-]`, 1 to 64 characters.
    public var deviceID: String?
    /// `state_dir`.
    public var stateDirectory: String?

    public init(sensorKind: SensorKind? = nil, broker: String? = nil, deviceID: String? = nil,
                stateDirectory: String? = nil) {
        self.sensorKind = sensorKind
        self.broker = broker
        self.deviceID = deviceID
        self.stateDirectory = stateDirectory
    }
}

extension AgentConfiguration {
    /// The source named in an override's error.
    public static let commandLineSource = "command line"

    /// Applies the command line's overrides; on error nothing changes.
    ///
    /// A new device id carries the defaults derived from it: a client id, device name and
    /// display name the file did not set follow the new id (`plumb-<id>`, `Plumb <id>`).
    ///
    /// - Throws: ``ConfigurationError`` with code `.invalidOverride` and source `command line`
    ///   for a broker that is not a URL, a mqtt:// broker when the file configures TLS, an
    ///   invalid device id, or an empty state directory.
    public mutating func apply(overrides: ConfigurationOverrides) throws(ConfigurationError) {
        func failure(_ keyPath: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(code: .invalidOverride, source: Self.commandLineSource, keyPath: keyPath, reason: reason)
        }
        var result = self
        if let kind = overrides.sensorKind { result.sensor.kind = kind }
        if let broker = overrides.broker {
            let address: BrokerAddress
            switch BrokerAddress.parse(broker) {
            case .success(let parsed): address = parsed
            case .failure(let problem): throw failure("mqtt.url", problem.reason)
            }
            if !address.usesTLS, let tls = result.mqtt.tls,
               tls.caFile != nil || tls.certFile != nil || tls.insecure {
                throw failure("mqtt.url", "the broker \(broker) uses mqtt://, which is never encrypted, but the config"
                    + " file sets mqtt.tls; use mqtts:// or remove the tls section.")
            }
            result.mqtt.brokers = [BrokerSettings(host: address.host, port: address.effectivePort)]
            if address.usesTLS {
                result.mqtt.tls = result.mqtt.tls ?? TLSSettings()
            } else {
                result.mqtt.tls = nil
            }
        }
        if let id = overrides.deviceID {
            if let problem = Self.deviceIDProblem(id) { throw failure("device.id", problem) }
            result.device.id = id
            if result.derived.clientID { result.mqtt.clientID = Self.defaultClientID(forDeviceID: id) }
            if result.derived.deviceName {
                result.device.name = Self.defaultName(forDeviceID: id)
                result.level.name = result.device.name
            }
        }
        if let directory = overrides.stateDirectory {
            guard !directory.isEmpty else { throw failure("state_dir", "the state directory cannot be empty.") }
            result.stateDirectory = directory
        }
        self = result
    }
}
