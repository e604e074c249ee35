import Geometry

/// A failed MQTT operation or connection attempt: what went wrong, with which broker, and what a
/// person should do about it.
///
/// Shaped like swift-service-lifecycle's errors: a struct around a private code, so new causes can
/// be added without breaking callers that compare ``code`` (`error.code == .badCredentials`).
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. Compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String, Sendable {
            case noConnection, connectionRefused, connectionLost, notAuthorized, badCredentials
            case brokerRefused, tls, `protocol`, payloadTooLarge, invalidTopic, invalidConfiguration, other
        }
        fileprivate let kind: Kind

        /// Not connected right now: the message was not sent and nothing was queued.
        public static let noConnection = Code(kind: .noConnection)
        /// The broker could not be reached: nothing listens on the port, the host is unknown or
        /// unreachable.
        public static let connectionRefused = Code(kind: .connectionRefused)
        /// An established connection broke (reset, keep-alive timeout, the broker went away).
        public static let connectionLost = Code(kind: .connectionLost)
        /// The broker refused us: not authorized (CONNACK 5, MQTT 5 reason 0x87). Mosquitto
        /// answers this to a wrong password too.
        public static let notAuthorized = Code(kind: .notAuthorized)
        /// The broker refused the user name or password (CONNACK 4, MQTT 5 reason 0x86).
        public static let badCredentials = Code(kind: .badCredentials)
        /// The broker refused the connection for another reason (unavailable, busy, banned, client
        /// identifier rejected); ``MQTTError/reason`` names it.
        public static let brokerRefused = Code(kind: .brokerRefused)
        /// TLS failed: the certificate did not verify, a file is unreadable, the handshake broke.
        public static let tls = Code(kind: .tls)
        /// The broker or the library broke the MQTT protocol (including an unsupported version).
        public static let `protocol` = Code(kind: .protocol)
        /// The payload is larger than MQTT (256 MB) or the broker's maximum packet size allows.
        public static let payloadTooLarge = Code(kind: .payloadTooLarge)
        /// A topic to publish to, or a filter to subscribe to, is malformed.
        public static let invalidTopic = Code(kind: .invalidTopic)
        /// The configuration can never work: a bad URL, a keep-alive out of range, a reused client.
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        /// Anything else.
        public static let other = Code(kind: .other)

        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in the library's, the kernel's or the broker's words:
    /// `ECONNREFUSED`, `CONNACK 0x87 (not authorized)`, an OpenSSL error line.
    public let reason: String
    /// The broker as `host:port`, when the failure concerns one.
    public let broker: String?
    /// What a person should do about it: one or two sentences.
    public let advice: String

    /// Builds an error; `advice` defaults to the usual advice for `code`.
    public init(code: Code, reason: String, broker: String? = nil, advice: String? = nil) {
        self.code = code
        self.reason = reason
        self.broker = broker
        self.advice = advice ?? Self.defaultAdvice(code, broker: broker)
    }

    /// One paragraph: the failure, then what to do.
    public var description: String {
        let at = broker.map { " (broker \($0))" } ?? ""
        return Sentences.join("\(Self.summary(code))\(at): \(reason)", advice)
    }

    private static func summary(_ code: Code) -> String {
        switch code.kind {
        case .noConnection: "not connected to the MQTT broker"
        case .connectionRefused: "cannot connect to the MQTT broker"
        case .connectionLost: "lost the connection to the MQTT broker"
        case .notAuthorized: "the MQTT broker refused the connection: not authorized"
        case .badCredentials: "the MQTT broker refused the user name or password"
        case .brokerRefused: "the MQTT broker refused the connection"
        case .tls: "TLS with the MQTT broker failed"
        case .protocol: "MQTT protocol error"
        case .payloadTooLarge: "the MQTT payload is too large"
        case .invalidTopic: "invalid MQTT topic"
        case .invalidConfiguration: "invalid MQTT configuration"
        case .other: "MQTT failure"
        }
    }

    private static func defaultAdvice(_ code: Code, broker: String?) -> String {
        let target = broker ?? "the configured host and port"
        switch code.kind {
        case .noConnection:
            return "Nothing was sent; the client reconnects by itself. Keep what must be sent and publish it "
                + "after the next connected event."
        case .connectionRefused:
            return "Is mosquitto running on \(target)? Check the broker host and port (`systemctl status mosquitto` "
                + "on the broker's machine) and any firewall between; the client keeps retrying."
        case .connectionLost:
            return "The client reconnects by itself with backoff. If this repeats, check the network and the "
                + "broker's log."
        case .notAuthorized, .badCredentials:
            return "Check username and password_file (or PLUMB_MQTT_PASSWORD) against the broker's password file "
                + "(mosquitto_passwd), and the broker's acl_file and allow_anonymous; the client keeps retrying."
        case .brokerRefused:
            return "Check the broker's log for why; the client keeps retrying."
        case .tls:
            return "Check that the CA file is the one that signed the broker's certificate, that the certificate "
                + "names the host you connect to, and, if the broker requires client certificates, the client "
                + "certificate and key files."
        case .protocol:
            return "Check that \(target) is an MQTT broker (not another service) speaking MQTT 5 or 3.1.1."
        case .payloadTooLarge:
            return "Send less, or raise the broker's message_size_limit / max_packet_size."
        case .invalidTopic:
            return "A topic to publish to must be non-empty UTF-8 without `+`, `#` or NUL; a filter may use `+` "
                + "for a whole level and `#` only as the whole last level."
        case .invalidConfiguration:
            return "Fix the MQTT settings and start again."
        case .other:
            return "Check the broker's log; the client keeps retrying."
        }
    }
}
