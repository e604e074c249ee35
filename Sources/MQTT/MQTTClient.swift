/// The MQTT client the agent talks to: one small protocol, so tests can swap in the in-memory
/// `MQTTRecorder` and the agent never sees libmosquitto.
///
/// Threading: every method may be called from any thread or task. Events arrive on ``events`` in
/// the order they happened.
public protocol MQTTClient: AnyObject, Sendable {
    /// What happens to the connection, and the messages that arrive on subscribed topics.
    ///
    /// A single-consumer stream: iterate it from one task. It finishes after ``disconnect()``.
    var events: AsyncStream<MQTTEvent> { get }

    /// Begins connecting in the background and keeps reconnecting for ever, with backoff.
    ///
    /// Returns at once. A broker that is down or refuses us is not an error here: each failed
    /// attempt is a ``MQTTEvent/connectionFailed(_:)`` event and the client tries again.
    /// - Throws: only for a configuration that can never connect (an unreadable TLS file, a bad
    ///   will topic, a keep-alive out of range), or when the client was already disconnected.
    func start() throws(MQTTError)

    /// Publishes one message.
    ///
    /// The MQTT 5 `properties` are sent only on an MQTT 5 connection; on 3.1.1 they are dropped.
    /// - Throws: ``MQTTError/Code/noConnection`` when not connected. Nothing is queued while
    ///   offline: the caller keeps what it must send after the next ``MQTTEvent/connected(_:)``.
    ///   ``MQTTError/Code/invalidTopic`` for an empty topic or one with `+`/`#`,
    ///   ``MQTTError/Code/payloadTooLarge`` beyond what MQTT or the broker accepts.
    func publish(_ topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                 properties: MQTTPublishProperties) throws(MQTTError)

    /// Subscribes to `filters` (with `+` and `#` wildcards) now and after every reconnect.
    ///
    /// The client remembers the filters and sends them again each time it connects, because a
    /// clean session forgets them. Call it once, before or after ``start()``.
    /// - Throws: ``MQTTError/Code/invalidTopic`` for a malformed filter (nothing is remembered).
    ///
    /// With `retainAsPublished` (MQTT 5 only) the broker keeps the publisher's retain flag on
    /// messages it forwards live, so ``MQTTMessage/retain`` tells a retained message from a
    /// passing one whenever it arrives; otherwise a live message always arrives unretained.
    func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) throws(MQTTError)

    /// Sends a clean DISCONNECT (so the broker does not publish the will), stops the network
    /// thread and finishes ``events``.
    ///
    /// Idempotent and safe from any task. Returns within about a second even if the network
    /// thread is blocked in a DNS lookup or a TCP connect to an unreachable host; that thread then
    /// finishes on its own.
    func disconnect() async
}

extension MQTTClient {
    /// Subscribes without retain-as-published (see ``subscribe(_:qos:retainAsPublished:)``).
    public func subscribe(_ filters: [String], qos: MQTTQoS) throws(MQTTError) {
        try subscribe(filters, qos: qos, retainAsPublished: false)
    }

    /// Publishes a message with default QoS 0, no retain and no properties unless given.
    public func publish(_ topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false)
        throws(MQTTError) {
        try publish(topic, payload: payload, qos: qos, retain: retain, properties: MQTTPublishProperties())
    }

    /// Publishes a UTF-8 text payload.
    public func publish(_ topic: String, payload: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: MQTTPublishProperties = MQTTPublishProperties()) throws(MQTTError) {
        try publish(topic, payload: Array(payload.utf8), qos: qos, retain: retain, properties: properties)
    }
}

/// Something that happened to an ``MQTTClient``.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection (CONNACK success). Subscriptions have been re-sent;
    /// publish birth messages now.
    case connected(MQTTConnection)
    /// An established connection ended. `nil` when we asked (``MQTTClient/disconnect()``), or
    /// when the client left a later broker for the first (failback; a `connected` follows);
    /// otherwise why, and the client is already reconnecting (to the next broker, if several).
    case disconnected(MQTTError?)
    /// One connection attempt failed (broker down, refused credentials, TLS). The client retries
    /// after the backoff delay; the error says what a person should check.
    case connectionFailed(MQTTError)
    /// A message arrived on a subscribed topic.
    case message(MQTTMessage)
    /// The inbound probe went unanswered: the broker holds our QoS 1/2 messages. The client
    /// disconnects cleanly and connects again at once, keeping the session (a `disconnected(nil)`
    /// and a `connected` follow), so what the broker held is delivered.
    case inboundStalled(InboundStall)
    /// The inbound probe cannot be answered: the broker refused it, or the checks after several
    /// reconnects went unanswered too (an ACL that drops it). No probe for an hour.
    case inboundProbeFailed(InboundProbeFailure)
}

/// What the broker agreed to when it accepted a connection.
public struct MQTTConnection: Sendable, Equatable {
    /// The protocol actually spoken: ``MQTTProtocolVersion/v311`` after a fallback from MQTT 5.
    public var protocolVersion: MQTTProtocolVersion
    /// Whether the broker kept a session from a previous connection (only with
    /// ``MQTTConfiguration/cleanSession`` false).
    public var sessionPresent: Bool
    /// The broker connected to, one of ``MQTTConfiguration/brokers``; nil from a test double
    /// that has none.
    public var broker: MQTTConfiguration.Broker?

    public init(protocolVersion: MQTTProtocolVersion, sessionPresent: Bool, broker: MQTTConfiguration.Broker? = nil) {
        self.protocolVersion = protocolVersion
        self.sessionPresent = sessionPresent
        self.broker = broker
    }
}

/// The MQTT protocol version on the wire.
public enum MQTTProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// MQTT 5.0: properties (response topic, correlation data) and reason codes.
    case v5
    /// MQTT 3.1.1: no properties.
    case v311

    public var description: String {
        switch self {
        case .v5: "5"
        case .v311: "3.1.1"
        }
    }
}

/// MQTT quality of service.
public enum MQTTQoS: Int, Sendable, Hashable, CaseIterable {
    /// QoS 0: sent once, may be lost.
    case atMostOnce = 0
    /// QoS 1: acknowledged and retried until the broker has it; may arrive twice.
    case atLeastOnce = 1
    /// QoS 2: delivered exactly once, with a four-packet handshake.
    case exactlyOnce = 2
}

/// MQTT 5 properties of a published message, for request/response. Omitted on MQTT 3.1.1.
public struct MQTTPublishProperties: Sendable, Equatable {
    /// The topic the receiver should reply to.
    public var responseTopic: String?
    /// Opaque bytes the receiver copies into its reply, so the requester can match it.
    public var correlationData: [UInt8]?

    public init(responseTopic: String? = nil, correlationData: [UInt8]? = nil) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// True when there is nothing to send.
    public var isEmpty: Bool { responseTopic == nil && correlationData == nil }
}

/// A message received on a subscription (or, in the recorder, injected by a test).
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// Set when the broker delivered a retained message because we just subscribed.
    public var retain: Bool
    /// MQTT 5 response topic, when the sender gave one.
    public var responseTopic: String?
    /// MQTT 5 correlation data, when the sender gave it.
    public var correlationData: [UInt8]?
    /// The payload's length as sent, bytes: more than `payload.count` when the client cut it
    /// (``MQTTConfiguration/maximumIncomingPayload``).
    public var payloadLength: Int

    /// - Parameter payloadLength: the length as sent; nil for `payload.count`.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                responseTopic: String? = nil, correlationData: [UInt8]? = nil, payloadLength: Int? = nil) {
        self.topic = topic
        self.payload = payload
        self.payloadLength = payloadLength ?? payload.count
        self.qos = qos
        self.retain = retain
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// The payload as UTF-8 text, or nil when it is not valid UTF-8.
    public var payloadString: String? { String(validating: payload, as: UTF8.self) }
}
