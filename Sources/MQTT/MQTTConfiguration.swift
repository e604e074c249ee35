/// Everything a ``MosquittoClient`` needs to connect: nested `Sendable` values, fixed at start.
public struct MQTTConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The brokers to connect to, in order of preference; never empty. The client starts with the
    /// first, moves to the next after a failed attempt or a lost connection (with the
    /// ``reconnectDelay`` backoff), and while on another one returns to the first as soon as it
    /// answers (checked at most every ``failbackInterval``). All share the client id, credentials,
    /// TLS settings and will.
    public var brokers: [Broker]
    /// The first broker's host name or IP address ("" when ``brokers`` was emptied).
    public var host: String {
        get { brokers.first?.host ?? "" }
        set {
            if brokers.isEmpty { brokers = [Broker(host: newValue, port: tls == nil ? 1883 : 8883)] }
            brokers[0].host = newValue
        }
    }
    /// The first broker's TCP port: 1883 by default, 8883 with TLS (0 when ``brokers`` was
    /// emptied).
    public var port: Int {
        get { brokers.first?.port ?? 0 }
        set {
            if brokers.isEmpty { brokers = [Broker(host: "", port: newValue)] }
            brokers[0].port = newValue
        }
    }
    /// While connected to a broker other than the first, how often at most to check whether the
    /// first accepts connections again (with a throwaway client id, so the check never takes the
    /// session over). Positive.
    public var failbackInterval: Duration
    /// How long the broker keeps the session (subscriptions and the QoS 1/2 messages that arrive
    /// for them) after the connection ends, when ``cleanSession`` is false. Sent as MQTT 5's
    /// session expiry interval, 0…4294967295 s (the largest means never); an MQTT 3.1.1 broker
    /// applies its own limit (mosquitto's `persistent_client_expiration`).
    public var sessionExpiry: Duration
    /// The MQTT client identifier. Must be unique per broker: a second client with the same id
    /// takes the session over. Empty lets the broker assign one (clean sessions only).
    public var clientID: String
    /// Keep-alive interval in seconds: 0 (off) or 5…65535. The broker drops us after 1.5× this
    /// without traffic; the client pings as needed.
    public var keepAlive: Int
    /// Start each connection with a fresh session. Subscriptions are re-sent on every connect
    /// either way. False keeps a persistent session for ``sessionExpiry`` (MQTT 5 `clean_start`
    /// false, MQTT 3.1.1 `clean_session` false): the broker keeps what arrives while we are away
    /// and delivers it, in order, at the next connect. Needs a client id.
    public var cleanSession: Bool
    /// User name; nil for anonymous.
    public var username: String?
    /// Password, read by the caller from a file or the environment, never the command line.
    public var password: String?
    /// The message the broker publishes if we vanish without a clean DISCONNECT.
    public var will: MQTTWill?
    /// TLS settings; nil for plain TCP.
    public var tls: TLS?
    /// The protocol to try first. With ``MQTTProtocolVersion/v5``, a broker that answers
    /// "unsupported protocol version" makes the client fall back to 3.1.1 for good (reported in
    /// ``MQTTConnection/protocolVersion``).
    public var protocolVersion: MQTTProtocolVersion
    /// Backoff between connection attempts.
    public var reconnectDelay: ReconnectDelay
    /// The largest packet the broker may send us, bytes, announced in an MQTT 5 CONNECT (the
    /// broker drops larger messages for this client); nil announces none. It bounds what
    /// libmosquitto allocates for one incoming message. 3.1.1 has no such announcement.
    public var maximumPacketSize: Int?
    /// Incoming payloads longer than this are cut to this many bytes plus one at receipt, so a
    /// flood of large messages waiting for the receiver holds at most this much each; the
    /// ``MQTTMessage/payloadLength`` keeps the length as sent. nil keeps every payload whole.
    public var maximumIncomingPayload: Int?
    /// The Receive Maximum announced in an MQTT 5 CONNECT: how many QoS 1/2 messages the broker
    /// may have in flight to us at once, 1…65535; nil leaves libmosquitto's 20. mosquitto never
    /// gives back a unit for a message it drops as larger than ``maximumPacketSize``: this many
    /// such drops silence us (see ``InboundLiveness``). MQTT 3.1.1 has no such announcement.
    public var receiveMaximum: Int?
    /// The check that QoS 1/2 messages still reach us, with a reconnect (session kept) when they
    /// do not; nil for none. See ``InboundLiveness``.
    public var inboundProbe: InboundProbeSettings?

    /// TLS settings. Peer verification is on unless turned off explicitly.
    public struct TLS: Sendable, Equatable {
        /// PEM file of the CA(s) that signed the broker's certificate.
        public var caFile: String?
        /// Directory of hashed CA certificates. With neither this nor ``caFile``, the system store
        /// (`/etc/ssl/certs`) is used.
        public var caPath: String?
        /// PEM client certificate, for brokers that set `require_certificate`.
        public var certFile: String?
        /// PEM private key of ``certFile``, unencrypted.
        public var keyFile: String?
        /// Verify the broker's certificate chain. Turning this off makes TLS useless against an
        /// attacker; it exists for first bring-up only.
        public var verifyPeer: Bool
        /// Skip the check that the certificate names ``MQTTConfiguration/host``. Off by default.
        public var insecure: Bool

        public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil,
                    verifyPeer: Bool = true, insecure: Bool = false) {
            self.caFile = caFile
            self.caPath = caPath
            self.certFile = certFile
            self.keyFile = keyFile
            self.verifyPeer = verifyPeer
            self.insecure = insecure
        }
    }

    /// One broker's address.
    public struct Broker: Sendable, Hashable, CustomStringConvertible {
        /// Host name or IP address (IPv6 without brackets).
        public var host: String
        /// TCP port.
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`, an IPv6 host in brackets.
        public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
    }

    /// The wait between connection attempts: ``minimum`` after the first failure (and after a lost
    /// connection), doubling after each further failure up to ``maximum``.
    public struct ReconnectDelay: Sendable, Equatable {
        public var minimum: Duration
        public var maximum: Duration

        public init(minimum: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
            self.minimum = minimum
            self.maximum = max(minimum, maximum)
        }
    }

    /// - Parameters:
    ///   - port: nil picks 8883 when `tls` is set, else 1883.
    ///   - failoverBrokers: the brokers to try after `host`, in order (see ``brokers``).
    public init(host: String = "127.0.0.1", port: Int? = nil, failoverBrokers: [Broker] = [], clientID: String,
                keepAlive: Int = 30, cleanSession: Bool = true, sessionExpiry: Duration = .seconds(86_400),
                username: String? = nil, password: String? = nil, will: MQTTWill? = nil, tls: TLS? = nil,
                protocolVersion: MQTTProtocolVersion = .v5, reconnectDelay: ReconnectDelay = ReconnectDelay(),
                failbackInterval: Duration = .seconds(60), maximumPacketSize: Int? = nil,
                maximumIncomingPayload: Int? = nil, receiveMaximum: Int? = nil,
                inboundProbe: InboundProbeSettings? = nil) {
        brokers = [Broker(host: host, port: port ?? (tls == nil ? 1883 : 8883))] + failoverBrokers
        self.failbackInterval = failbackInterval
        self.sessionExpiry = sessionExpiry
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.cleanSession = cleanSession
        self.username = username
        self.password = password
        self.will = will
        self.tls = tls
        self.protocolVersion = protocolVersion
        self.reconnectDelay = reconnectDelay
        self.maximumPacketSize = maximumPacketSize
        self.maximumIncomingPayload = maximumIncomingPayload
        self.receiveMaximum = receiveMaximum
        self.inboundProbe = inboundProbe
    }

    /// A configuration for `mqtt://host[:port]` or `mqtts://host[:port]` (TLS with the system CA
    /// store and verification on); IPv6 hosts go in brackets. Everything else takes its default.
    /// - Throws: ``MQTTError/Code/invalidConfiguration`` for another scheme, a missing host, a port
    ///   outside 1…65535, credentials in the URL, or a path.
    public static func parse(url: String, clientID: String = "") throws(MQTTError) -> MQTTConfiguration {
        func problem(_ why: String) -> MQTTError {
            MQTTError(code: .invalidConfiguration, reason: "\"\(url)\" is not a broker URL: \(why)",
                      advice: "Write it as mqtt://host:port, or mqtts://host:port for TLS.")
        }
        guard let schemeEnd = url.firstRange(of: "://") else { throw problem("it has no scheme") }
        let tls: TLS?
        switch url[..<schemeEnd.lowerBound].lowercased() {
        case "mqtt": tls = nil
        case "mqtts": tls = TLS()
        case let other: throw problem("the scheme \"\(other)\" is neither mqtt nor mqtts")
        }
        var rest = url[schemeEnd.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("@") else {
            throw problem("it holds credentials; set username and password_file instead")
        }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw problem("a broker URL has no path")
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw problem("the IPv6 address has no closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw problem("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw problem("the host is missing") }
        var port: Int?
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value), portText.allSatisfy(\.isASCII) else {
                throw problem("the port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = value
        }
        return MQTTConfiguration(host: String(host), port: port, clientID: clientID, tls: tls)
    }

    /// The settings for logs, with the password hidden.
    public var description: String {
        let scheme = tls == nil ? "mqtt" : "mqtts"
        var parts = [brokers.map { "\(scheme)://\($0)" }.joined(separator: " then "), "client id \"\(clientID)\"",
                     "MQTT \(protocolVersion)", "keep-alive \(keepAlive) s"]
        if let username { parts.append("user \"\(username)\"\(password == nil ? "" : " with password")") }
        if let will { parts.append("will on \(will.topic)") }
        if !cleanSession { parts.append("persistent session") }
        return parts.joined(separator: ", ")
    }
}

/// The last will: what the broker publishes for us when we disappear without a clean DISCONNECT
/// (crash, power cut, network loss beyond 1.5× keep-alive).
public struct MQTTWill: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// A will with a UTF-8 text payload, such as `offline`.
    public init(topic: String, payload: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.init(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain)
    }
}
