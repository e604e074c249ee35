import Accelerometers
import Contract
import Geometry
import I2C
import Settings
import Thermal

extension AgentConfiguration {
    /// Reads a config file's text. Reads no file and no environment: `mqtt.password` stays nil
    /// and the files it names are not checked (``load(path:environment:hostname:)`` does both).
    ///
    /// Empty text, or only comments, gives every default. Absent and null values (`key:` with
    /// nothing after it) both mean "use the default".
    ///
    /// - Parameters:
    ///   - source: the file's name, for messages.
    ///   - hostname: the host name the default device id comes from.
    /// - Throws: ``ConfigurationError`` for a YAML syntax error, an unknown or duplicate key, a
    ///   wrong type, a value out of range, or settings that conflict; the message names the key
    ///   path, line and column.
    public static func parse(yaml: String, source: String,
                             hostname: String = systemHostname()) throws(ConfigurationError) -> AgentConfiguration {
        try decode(Array(yaml.utf8), source: source, hostname: hostname).configuration
    }

    /// The config and where its keys are, for the checks `load` makes after parsing.
    static func decode(_ bytes: [UInt8], source: String,
                       hostname: String) throws(ConfigurationError) -> (configuration: AgentConfiguration, marks: [String: YAMLMark]) {
        let root = try YAMLSection(YAMLReader.read(bytes, source: source), path: "",
                                   keys: FileKey.names(in: ""),
                                   hints: liveHints, source: source)
        var marks: [String: YAMLMark] = [:]
        let device = try root.section("device", keys: FileKey.names(in: "device"))
        var configuration = AgentConfiguration(deviceID: deviceID(fromHostname: hostname))
        try configuration.readDevice(device)
        try configuration.readMQTT(root.section("mqtt", keys: FileKey.names(in: "mqtt"), hints: [
            "password": "The password is never written in the config file: put it in a file only plumb can read"
                + " and name that file in mqtt.password_file, or set PLUMB_MQTT_PASSWORD.",
        ]), marks: &marks)
        let sensor = try root.section("sensor", keys: FileKey.names(in: "sensor"))
        try configuration.readSensor(sensor)
        try configuration.readService(root.section("service", keys: FileKey.names(in: "service")))
        try configuration.readControl(root.section("control", keys: FileKey.names(in: "control")))
        if let directory = try root.path("state_dir") { configuration.stateDirectory = directory }
        if let level = try root.choice("log_level", from: LogLevel.allCases.map(\.rawValue)) {
            configuration.logLevel = LogLevel(rawValue: level)!
        }
        let level = try root.section("level", keys: FileKey.names(in: "level"), hints: liveHints)
        let vibration = try Self.vibrationSection(root, hints: liveHints)
        try configuration.readLive(level: level, vibration: vibration, sensor: sensor, device: device)
        return (configuration, marks)
    }

    /// The `vibration:` section. A bare `vibration: false` at the top is a natural slip (the
    /// on/off key shares the section's name), so it gets a message saying how to write it.
    private static func vibrationSection(_ root: YAMLSection,
                                         hints: [String: String]) throws(ConfigurationError) -> YAMLSection {
        if case .scalar(let scalar)? = root.node("vibration"), case .bool(let value) = YAMLValue(scalar) {
            throw root.error(.wrongType, "vibration", "vibration is a section; to turn the analysis \(value ? "on" : "off"),"
                + " write the key inside it: vibration: {vibration: \(value)}, or \"vibration:\" and on the next line,"
                + " indented, \"vibration: \(value)\".")
        }
        return try root.section("vibration", keys: FileKey.names(in: "vibration"), hints: hints)
    }

    /// The most brokers `mqtt.brokers` may list.
    static let maximumBrokers = 16
    static let tlsKeys = FileKey.names(in: "mqtt.tls")
    /// Each live key has one home; written in another section, the message says where it goes.
    static let liveHints = Dictionary(uniqueKeysWithValues: LiveKey.allCases.map {
        ($0.rawValue, "This live setting is written as \(livePath($0)).")
    })

    /// The live keys of the `vibration:` section: the analysis and the running state.
    static let vibrationKeys = LiveKey.vibrationKeys
    /// The live keys of the `level:` section: all but the vibration keys and the two that have a
    /// home elsewhere.
    static let levelKeys = LiveKey.allCases.filter { $0 != .sampleRateHz && $0 != .name && !vibrationKeys.contains($0) }

    /// Where a live key is written in the file. Always under its live name, so that the file,
    /// `P/config` and `P/config/<key>/set` use one name for each setting.
    static func livePath(_ key: LiveKey) -> String {
        switch key {
        case .sampleRateHz: "sensor.sample_rate_hz"
        case .name: "device.name"
        case _ where vibrationKeys.contains(key): "vibration." + key.rawValue
        default: "level." + key.rawValue
        }
    }

    private mutating func readDevice(_ section: YAMLSection) throws(ConfigurationError) {
        if let id = try section.string("id") {
            if let problem = Self.deviceIDProblem(id) { throw section.error(.invalidValue, "id", problem) }
            self = AgentConfiguration(deviceID: id)
        }
        if let name = try section.string("name") {
            do {
                device.name = try LiveSettings.checkName(name)
            } catch {
                throw section.error(.invalidValue, "name", error.reason)
            }
            level.name = device.name
            derived.deviceName = false
        }
        if let url = try section.string("configuration_url") {
            if let problem = Self.configurationURLProblem(url) { throw section.error(.invalidValue, "configuration_url", problem) }
            device.configurationURL = url
        }
    }

    private mutating func readMQTT(_ section: YAMLSection, marks: inout [String: YAMLMark]) throws(ConfigurationError) {
        let tlsSection = try section.section("tls", keys: Self.tlsKeys)
        // With host and port, a tls section (even `tls: {}`) is what turns TLS on.
        var usesTLS = section.node("tls") != nil
        let explicitPort = try section.int(FileKey.port)
        if section.node("brokers") != nil {
            if let other = ["url", "host", "port"].first(where: { section.node($0) != nil }) {
                throw section.error(.conflict, "brokers", "mqtt.brokers and mqtt.\(other) are both set; list every"
                    + " broker in mqtt.brokers (the first is the preferred one) and remove mqtt.\(other).")
            }
            let addresses = try Self.readBrokers(section)
            let secure = addresses.filter(\.usesTLS).count
            if secure != 0 && secure != addresses.count {
                throw section.error(.conflict, "brokers", "mqtt.brokers mixes mqtt:// and mqtts://; every broker shares"
                    + " one TLS setting, so write all of them with mqtts:// (with the tls section) or all with mqtt://.")
            }
            if usesTLS && secure == 0 {
                throw section.error(.conflict, "brokers", "mqtt.tls is set but the brokers use mqtt://, which is never"
                    + " encrypted; use mqtts:// or remove the tls section.")
            }
            usesTLS = secure != 0
            mqtt.brokers = addresses.map { BrokerSettings(host: $0.host, port: $0.port ?? (usesTLS ? 8883 : 1883)) }
        } else if let url = try section.string("url") {
            if let other = ["host", "port"].first(where: { section.node($0) != nil }) {
                throw section.error(.conflict, "url", "mqtt.url and mqtt.\(other) are both set; give the broker"
                    + " either as mqtt.url or as mqtt.host and mqtt.port, not both.")
            }
            let address: BrokerAddress
            switch BrokerAddress.parse(url) {
            case .success(let parsed): address = parsed
            case .failure(let problem): throw section.error(.invalidValue, "url", problem.reason)
            }
            if usesTLS && !address.usesTLS {
                throw section.error(.conflict, "url", "mqtt.tls is set but the URL uses mqtt://, which is never"
                    + " encrypted; use mqtts:// or remove the tls section.")
            }
            usesTLS = address.usesTLS
            mqtt.host = address.host
            mqtt.port = address.port ?? (usesTLS ? 8883 : 1883)
        } else {
            if let host = try section.string("host") {
                if let problem = BrokerAddress.hostProblem(host) {
                    throw section.error(.invalidValue, "host", "\"\(host.truncatedForMessage)\" is not a host: \(problem).")
                }
                if host.filter({ $0 == ":" }).count == 1 {
                    throw section.error(.invalidValue, "host", "the port goes in mqtt.port, not after the host.")
                }
                mqtt.host = host
            }
            mqtt.port = explicitPort ?? (usesTLS ? 8883 : 1883)
        }
        mqtt.failbackS = try section.int(FileKey.failbackS) ?? mqtt.failbackS
        mqtt.sessionExpiryS = try section.int(FileKey.sessionExpiryS) ?? mqtt.sessionExpiryS
        mqtt.receiveMaximum = try section.int(FileKey.receiveMaximum) ?? mqtt.receiveMaximum
        mqtt.inboundProbeS = try section.int(FileKey.inboundProbeS) ?? mqtt.inboundProbeS
        if usesTLS { mqtt.tls = try Self.readTLS(tlsSection, marks: &marks) }
        if let clientID = try section.string("client_id") {
            if let problem = Self.clientIDProblem(clientID) { throw section.error(.invalidValue, "client_id", problem) }
            mqtt.clientID = clientID
            derived.clientID = false
        }
        mqtt.keepalive = try section.int(FileKey.keepalive) ?? mqtt.keepalive
        if let username = try section.string("username") {
            if username.isEmpty || username.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw section.error(.invalidValue, "username", "a user name is not empty and has no control characters.")
            }
            mqtt.username = username
            marks["mqtt.username"] = section.mark("username")
        }
        if let file = try section.path("password_file") {
            guard mqtt.username != nil else {
                throw section.error(.conflict, "password_file", "a password needs mqtt.username: MQTT sends no"
                    + " password without a user name.")
            }
            mqtt.passwordFile = file
            marks["mqtt.password_file"] = section.mark("password_file")
        }
        for (key, keyPath) in [("base_topic", \MQTTSettings.baseTopic), ("discovery_prefix", \.discoveryPrefix)] {
            guard let topic = try section.string(key) else { continue }
            if let problem = Self.topicProblem(topic) { throw section.error(.invalidValue, key, problem) }
            mqtt[keyPath: keyPath] = topic
        }
        mqtt.discovery = try section.bool("discovery") ?? mqtt.discovery
    }

    /// `mqtt.brokers`: a list of 1 to ``maximumBrokers`` broker URLs, none twice.
    private static func readBrokers(_ section: YAMLSection) throws(ConfigurationError) -> [BrokerAddress] {
        let form = "mqtt.brokers is a list of broker URLs, the preferred first: on the next lines, indented,"
            + " \"- mqtt://broker-a.lan:1883\" and \"- mqtt://broker-b.lan:1883\", or [mqtt://a:1883, mqtt://b:1883]"
        guard case .sequence(let items, _)? = section.node("brokers") else {
            let found = section.node("brokers")?.kindDescription ?? "nothing"
            throw section.error(.wrongType, "brokers", "\(form); found \(found).")
        }
        guard !items.isEmpty else {
            throw section.error(.invalidValue, "brokers", "the list is empty; \(form).")
        }
        guard items.count <= maximumBrokers else {
            throw section.error(.invalidValue, "brokers", "\(items.count) brokers is too many; list at most"
                + " \(maximumBrokers).")
        }
        var addresses: [BrokerAddress] = []
        for (index, item) in items.enumerated() {
            let keyPath = "\(section.keyPath("brokers"))[\(index)]"
            guard case .scalar(let scalar) = item else {
                throw ConfigurationError(code: .wrongType, source: section.source, keyPath: keyPath, mark: item.mark,
                                         reason: "a broker is a URL such as mqtt://broker.lan:1883, not \(item.kindDescription).")
            }
            let address: BrokerAddress
            switch BrokerAddress.parse(scalar.text) {
            case .success(let parsed): address = parsed
            case .failure(let problem):
                throw ConfigurationError(code: .invalidValue, source: section.source, keyPath: keyPath, mark: item.mark,
                                         reason: problem.reason)
            }
            if let earlier = addresses.firstIndex(where: { $0.sameBroker(as: address) }) {
                throw ConfigurationError(code: .invalidValue, source: section.source, keyPath: keyPath, mark: item.mark,
                                         reason: "\"\(scalar.text.truncatedForMessage)\" is the broker of"
                                            + " mqtt.brokers[\(earlier)] again; list each broker once.")
            }
            addresses.append(address)
        }
        return addresses
    }

    private static func readTLS(_ section: YAMLSection, marks: inout [String: YAMLMark]) throws(ConfigurationError) -> TLSSettings {
        var tls = TLSSettings()
        tls.caFile = try section.path("ca_file")
        tls.certFile = try section.path("cert_file")
        tls.keyFile = try section.path("key_file")
        tls.insecure = try section.bool("insecure") ?? false
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            let given = tls.certFile == nil ? "key_file" : "cert_file"
            let missing = tls.certFile == nil ? "cert_file" : "key_file"
            throw section.error(.conflict, given, "a client certificate needs both cert_file and key_file;"
                + " add mqtt.tls.\(missing) or remove mqtt.tls.\(given).")
        }
        for key in tlsKeys where section.node(key) != nil {
            marks["mqtt.tls." + key] = section.mark(key)
        }
        return tls
    }

    static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    private mutating func readControl(_ section: YAMLSection) throws(ConfigurationError) {
        guard let text = try section.string("socket") else { return }
        if text == "off" {
            control.socket = nil
            return
        }
        guard let path = try section.path("socket") else { return }
        // sockaddr_un's sun_path holds 107 bytes and the NUL.
        guard path.utf8.count <= 107 else {
            throw section.error(.invalidValue, "socket", "a Unix socket's path is at most 107 bytes; this one is"
                + " \(path.utf8.count). Choose a shorter path, or off.")
        }
        control.socket = path
    }

    private mutating func readService(_ section: YAMLSection) throws(ConfigurationError) {
        service.requestsPerSecond = try section.int(FileKey.requestsPerS) ?? service.requestsPerSecond
        service.burst = try section.int(FileKey.burst) ?? service.burst
        service.requestTimeoutS = try section.int(FileKey.requestTimeoutS) ?? service.requestTimeoutS
    }

    /// Why `url` cannot be Home Assistant's `configuration_url`, or nil.
    static func configurationURLProblem(_ url: String) -> String? {
        let schemes = ["http://", "https://"]
        guard let scheme = schemes.first(where: { url.lowercased().hasPrefix($0) }), url.count > scheme.count else {
            return "\"\(url.truncatedForMessage)\" is not a web address; write one such as http://pi-workshop.lan:8123/."
        }
        if url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return "a web address has no spaces or control characters."
        }
        return nil
    }

    /// The live settings' defaults, from the `level:` and `vibration:` sections,
    /// `sensor.sample_rate_hz` and `device.name` (read before).
    private mutating func readLive(level section: YAMLSection, vibration: YAMLSection, sensor: YAMLSection,
                                   device: YAMLSection) throws(ConfigurationError) {
        var changed = Set<LiveKey>()
        let sources = [(LiveKey.sampleRateHz, sensor, "sample_rate_hz")] + Self.levelKeys.map { ($0, section, $0.rawValue) }
            + Self.vibrationKeys.map { ($0, vibration, $0.rawValue) }
        for (key, owner, name) in sources {
            guard let input = owner.settingInput(name) else { continue }
            do {
                try level.set(key, input)
            } catch {
                throw owner.error(error.isWrongType ? .wrongType : .invalidValue, name, error.reason)
            }
            changed.insert(key)
        }
        if device.node("name") != nil { changed.insert(.name) }
        do {
            try level.checkCombination(changed: changed)
        } catch {
            let key = error.key.flatMap(LiveKey.init(rawValue:)) ?? .alarmThreshold
            let (owner, name): (YAMLSection, String) = switch key {
            case .sampleRateHz: (sensor, "sample_rate_hz")
            case .name: (device, "name")
            case _ where Self.vibrationKeys.contains(key): (vibration, key.rawValue)
            default: (section, key.rawValue)
            }
            throw ConfigurationError(code: .conflict, source: owner.source, keyPath: Self.livePath(key),
                                     mark: owner.mark(name) ?? section.mark, reason: error.reason)
        }
    }

    /// Why `topic` cannot be a topic prefix (`base_topic`, `discovery_prefix`), or nil.
    static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty { return "a topic prefix cannot be empty." }
        if topic.contains(where: { $0 == "+" || $0 == "#" }) {
            return "\"\(topic)\" contains a wildcard (+ or #), which cannot be published to."
        }
        if topic.hasPrefix("$") { return "topics starting with $ are reserved for the broker." }
        if topic.hasPrefix("/") || topic.hasSuffix("/") || topic.contains("//") {
            return "\"\(topic)\" has an empty level; no leading, trailing or doubled /."
        }
        if topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a topic has no control characters."
        }
        if topic.utf8.count > 128 { return "a topic prefix is at most 128 bytes." }
        return nil
    }

    /// Why `id` cannot be an MQTT client id, or nil.
    static func clientIDProblem(_ id: String) -> String? {
        if id.isEmpty || id.utf8.count > 128 { return "a client id has 1 to 128 bytes." }
        if id.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return "a client id has no spaces or control characters."
        }
        return nil
    }
}
