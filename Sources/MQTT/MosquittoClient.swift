/// The real ``MQTTClient``: libmosquitto 2.0 driven by a network thread of its own.
///
/// ```swift
/// let client = MosquittoClient(configuration: .init(host: "broker.local", clientID: "plumb-bench"))
/// try client.subscribe(["plumb/bench/config/set"], qos: .atLeastOnce)
/// try client.start()
/// for await event in client.events { … }   // .connected, .message, .disconnected, …
/// await client.disconnect()
/// ```
///
/// Behaviour worth knowing:
/// - ``start()`` returns at once; the client then connects and reconnects for ever, waiting
///   ``MQTTConfiguration/ReconnectDelay/minimum`` after the first failure and doubling up to
///   ``MQTTConfiguration/ReconnectDelay/maximum``. Every failed attempt is a
///   ``MQTTEvent/connectionFailed(_:)`` event, including bad credentials and TLS failures, which
///   are retried too (the broker's configuration may be fixed while we wait).
/// - With several ``MQTTConfiguration/brokers``, each failed attempt or lost connection moves to
///   the next (the backoff above still applies). While on any but the first, a throwaway
///   connection checks the first at most every ``MQTTConfiguration/failbackInterval``; when it
///   answers, the client publishes the will's message on the broker it is on (a clean DISCONNECT
///   fires no will), disconnects cleanly (``MQTTEvent/disconnected(_:)`` with nil) and connects to
///   the first. ``MQTTConnection/broker`` says where each connection is.
/// - Subscriptions are re-sent on every connect, before ``MQTTEvent/connected(_:)`` is delivered;
///   on a persistent MQTT 5 session they ask for retained messages only where the subscription is
///   new, so a resumed session's queued messages are not followed by retained copies.
/// - An MQTT 5 attempt refused with "unsupported protocol version", or closed by the broker
///   without any CONNACK (RabbitMQ before 3.13), is retried at once with 3.1.1, which is then kept
///   for that broker for the life of the client once it connects.
/// - With ``MQTTConfiguration/inboundProbe``, a QoS 1 message of its own checks, after a silence,
///   that the broker still delivers QoS 1/2 messages; when it does not come back, the client
///   reports ``MQTTEvent/inboundStalled(_:)``, disconnects cleanly and connects again to the same
///   broker at once, keeping the session (see ``InboundLiveness``).
/// - Nothing is queued while disconnected: ``publish(_:payload:qos:retain:properties:)`` throws
///   ``MQTTError/Code/noConnection``.
/// - Releasing the client without ``disconnect()`` also disconnects cleanly, in the background.
/// - The network thread blocks SIGPIPE for itself only; the process's signal handling is untouched.
public final class MosquittoClient: MQTTClient {
    private let session: MosquittoSession

    /// Creates a client; nothing happens on the network until ``start()``.
    public init(configuration: MQTTConfiguration) {
        session = MosquittoSession(configuration: configuration)
    }

    deinit {
        session.requestStop()
    }

    /// The configuration the client was created with.
    public var configuration: MQTTConfiguration { session.configuration }

    public var events: AsyncStream<MQTTEvent> { session.events }

    public func start() throws(MQTTError) {
        try session.start()
    }

    public func publish(_ topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                        properties: MQTTPublishProperties) throws(MQTTError) {
        try session.publish(topic, payload: payload, qos: qos, retain: retain, properties: properties)
    }

    public func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) throws(MQTTError) {
        try session.subscribe(filters, qos: qos, retainAsPublished: retainAsPublished)
    }

    public func disconnect() async {
        await session.disconnect()
    }

    /// Test hook: closes the TCP connection without DISCONNECT, as a crash or a pulled cable would,
    /// so the broker publishes the will. The client then reconnects as after any loss.
    func simulateAbruptDrop() {
        session.requestAbruptDrop()
    }
}
