import CMosquitto

#if canImport(Glibc)
import Glibc
#endif

/// Turning libmosquitto's return codes, errno and MQTT reason codes into ``MQTTError``s.
extension MQTTError {
    /// When the code was returned: it decides between "cannot connect" and "lost the connection",
    /// and between "bad topic" and "bad configuration" for `MOSQ_ERR_INVAL`.
    enum Phase {
        /// Before CONNACK.
        case connecting
        /// After CONNACK: the connection broke.
        case connected
        /// In publish or subscribe.
        case publishing
    }

    /// What the messages name: the broker, and the TLS files to check.
    struct Context: Sendable {
        var broker: String
        var tls: MQTTConfiguration.TLS?

        init(_ configuration: MQTTConfiguration) {
            self.init(configuration, broker: configuration.brokers.first ?? .init(host: "", port: 0))
        }

        /// The context of an attempt on `broker`, one of the configuration's brokers.
        init(_ configuration: MQTTConfiguration, broker: MQTTConfiguration.Broker) {
            self.broker = "\(broker.host):\(broker.port)"
            tls = configuration.tls
        }

        /// The TLS advice, naming the files actually configured.
        var tlsAdvice: String {
            guard let tls else { return "" }
            let ca = tls.caFile.map { "the CA file \($0)" } ?? tls.caPath.map { "the CA directory \($0)" }
                ?? "the system CA store"
            let host = broker.split(separator: ":").dropLast().joined(separator: ":")
            var advice = "Check that \(ca) holds the CA that signed the broker's certificate, and that the "
                + "certificate names \(host) (subjectAltName)"
            if let certFile = tls.certFile, let keyFile = tls.keyFile {
                advice += "; the broker may also reject the client certificate \(certFile) (key \(keyFile))"
            } else {
                advice += "; if the broker sets require_certificate, configure a client certificate and key"
            }
            return advice + ". The client keeps retrying."
        }
    }

    /// Classifies a libmosquitto return code. For `MOSQ_ERR_ERRNO` and `MOSQ_ERR_EAI`, `errno`
    /// must have been read right after the call: later, `mosquitto_strerror` says "Success".
    init(mosquitto rc: Int32, errno value: Int32, phase: Phase, context: Context, tlsDetail: String? = nil) {
        let broker = context.broker
        let text = String(cString: mosquitto_strerror(rc))
        switch mosq_err_t(rawValue: rc) {
        case MOSQ_ERR_ERRNO:
            self.init(errno: value, phase: phase, context: context, tlsDetail: tlsDetail)
        case MOSQ_ERR_EAI:
            let cause = String(cString: gai_strerror(value))
            self.init(code: .connectionRefused, reason: "cannot resolve the host name (\(cause))", broker: broker,
                      advice: "Check the broker host name, and DNS on this machine; the client keeps retrying.")
        case MOSQ_ERR_NO_CONN where phase == .publishing:
            self.init(code: .noConnection, reason: text, broker: broker)
        case MOSQ_ERR_NO_CONN, MOSQ_ERR_CONN_LOST, MOSQ_ERR_KEEPALIVE:
            if phase == .connecting, context.tls != nil {
                // A TLS broker that rejects our certificate (or lack of one) just closes the
                // connection after the handshake; nothing else tells us why.
                self.init(code: .tls, reason: tlsDetail ?? "the broker closed the connection during or right after "
                    + "the TLS handshake, before accepting it", broker: broker, advice: context.tlsAdvice)
            } else if phase == .connecting {
                self.init(code: .brokerRefused, reason: "the broker closed the connection before accepting it (\(text))",
                          broker: broker)
            } else {
                self.init(code: .connectionLost, reason: text, broker: broker)
            }
        case MOSQ_ERR_CONN_REFUSED:
            self.init(code: .brokerRefused, reason: text, broker: broker)
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE, MOSQ_ERR_OCSP:
            self.init(code: .tls, reason: tlsDetail ?? text, broker: broker, advice: context.tlsAdvice)
        case MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_OVERSIZE_PACKET:
            self.init(code: .payloadTooLarge, reason: text, broker: broker)
        case MOSQ_ERR_AUTH, MOSQ_ERR_ACL_DENIED:
            self.init(code: .notAuthorized, reason: text, broker: broker)
        case MOSQ_ERR_INVAL, MOSQ_ERR_MALFORMED_UTF8:
            self.init(code: phase == .publishing ? .invalidTopic : .invalidConfiguration, reason: text,
                      broker: broker)
        case MOSQ_ERR_PROTOCOL, MOSQ_ERR_MALFORMED_PACKET, MOSQ_ERR_DUPLICATE_PROPERTY, MOSQ_ERR_NOT_SUPPORTED,
             MOSQ_ERR_QOS_NOT_SUPPORTED, MOSQ_ERR_RETAIN_NOT_SUPPORTED, MOSQ_ERR_TOPIC_ALIAS_INVALID:
            self.init(code: .protocol, reason: text, broker: broker)
        default:
            self.init(code: .other, reason: "\(text) (libmosquitto error \(rc))", broker: broker)
        }
    }

    /// Classifies an errno from a socket call made by libmosquitto.
    init(errno value: Int32, phase: Phase, context: Context, tlsDetail: String? = nil) {
        let broker = context.broker
        let cause = "\(Self.errnoName(value)): \(String(cString: strerror(value)))"
        switch value {
        case EPROTO:
            // libmosquitto sets EPROTO when OpenSSL fails mid-stream, e.g. the broker rejecting our
            // client certificate after a TLS 1.3 handshake.
            self.init(code: .tls, reason: tlsDetail ?? cause, broker: broker, advice: context.tlsAdvice)
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL:
            self.init(code: phase == .connected ? .connectionLost : .connectionRefused, reason: cause, broker: broker)
        case ECONNRESET, EPIPE, ECONNABORTED:
            if phase == .connecting, context.tls != nil {
                // A TLS broker that dislikes our certificate may just reset the connection.
                self.init(code: .tls, reason: tlsDetail ?? cause, broker: broker, advice: context.tlsAdvice)
            } else {
                self.init(code: .connectionLost, reason: cause, broker: broker)
            }
        default:
            self.init(code: .other, reason: cause, broker: broker)
        }
    }

    /// Classifies a refused CONNACK; nil when `reason` is a success. In MQTT 5 every reason code
    /// below 0x80 is a success; in 3.1.1 only 0 is.
    init?(connack reason: Int32, version: MQTTProtocolVersion, context: Context) {
        let broker = context.broker
        switch version {
        case .v311:
            guard reason != 0 else { return nil }
            let text = "CONNACK \(reason) (\(String(cString: mosquitto_connack_string(reason))))"
            switch UInt32(reason) {
            case CONNACK_REFUSED_PROTOCOL_VERSION.rawValue: self.init(code: .protocol, reason: text, broker: broker)
            case CONNACK_REFUSED_BAD_USERNAME_PASSWORD.rawValue:
                self.init(code: .badCredentials, reason: text, broker: broker)
            case CONNACK_REFUSED_NOT_AUTHORIZED.rawValue: self.init(code: .notAuthorized, reason: text, broker: broker)
            default: self.init(code: .brokerRefused, reason: text, broker: broker)
            }
        case .v5:
            guard reason >= 0x80 else { return nil }
            self.init(reasonCode: reason, packet: "CONNACK", context: context, otherwise: .brokerRefused)
        }
    }

    /// Classifies the reason code of a DISCONNECT the broker sent us (MQTT 5 only).
    init(disconnectReason reason: Int32, context: Context) {
        self.init(reasonCode: reason, packet: "DISCONNECT", context: context, otherwise: .connectionLost)
    }

    private init(reasonCode reason: Int32, packet: String, context: Context, otherwise: Code) {
        let broker = context.broker
        let text = "\(packet) reason 0x\(String(reason, radix: 16, uppercase: true)) "
            + "(\(String(cString: mosquitto_reason_string(reason))))"
        switch UInt32(reason) {
        case MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue:
            self.init(code: .badCredentials, reason: text, broker: broker)
        case MQTT_RC_NOT_AUTHORIZED.rawValue, MQTT_RC_BAD_AUTHENTICATION_METHOD.rawValue:
            self.init(code: .notAuthorized, reason: text, broker: broker)
        case MQTT_RC_MALFORMED_PACKET.rawValue, MQTT_RC_PROTOCOL_ERROR.rawValue,
             MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue:
            self.init(code: .protocol, reason: text, broker: broker)
        case MQTT_RC_PACKET_TOO_LARGE.rawValue:
            self.init(code: .payloadTooLarge, reason: text, broker: broker)
        case MQTT_RC_SESSION_TAKEN_OVER.rawValue:
            self.init(code: .connectionLost, reason: text, broker: broker,
                      advice: "Another client connected with the same client id: give each device its own id.")
        case MQTT_RC_CLIENTID_NOT_VALID.rawValue:
            self.init(code: .brokerRefused, reason: text, broker: broker,
                      advice: "Use a client id of letters, digits and dashes, at most 23 characters for old brokers.")
        default:
            self.init(code: otherwise, reason: text, broker: broker)
        }
    }

    static func errnoName(_ value: Int32) -> String {
        let names: [Int32: String] = [
            ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH", ENETUNREACH: "ENETUNREACH",
            ETIMEDOUT: "ETIMEDOUT", EHOSTDOWN: "EHOSTDOWN", ENETDOWN: "ENETDOWN", EADDRNOTAVAIL: "EADDRNOTAVAIL",
            ECONNRESET: "ECONNRESET", EPIPE: "EPIPE", ECONNABORTED: "ECONNABORTED", EPROTO: "EPROTO",
            ENOENT: "ENOENT", EACCES: "EACCES",
        ]
        return names[value] ?? "errno \(value)"
    }
}
