import MQTT
import PlumbSync

/// An in-memory ``MQTTClient`` for tests: it records every publication, and the test plays the
/// broker (connect, disconnect, deliver messages).
///
/// It behaves like ``MosquittoClient`` where the agent can tell: publishing while disconnected
/// throws ``MQTTError/Code/noConnection``, topics and filters are validated the same way, MQTT 5
/// properties are dropped on a 3.1.1 connection, and only messages matching a subscription are
/// delivered. Thread-safe; events are delivered in the order the test caused them.
public final class MQTTRecorder: MQTTClient {
    /// One recorded publish, as it would go on the wire.
    public struct Publication: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: MQTTQoS
        public var retain: Bool
        /// Empty on a 3.1.1 connection, like the real client.
        public var properties: MQTTPublishProperties

        public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                    properties: MQTTPublishProperties = MQTTPublishProperties()) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.properties = properties
        }

        /// The payload as UTF-8 text, or nil when it is not valid UTF-8.
        public var payloadString: String? { String(validating: payload, as: UTF8.self) }
    }

    private struct State {
        var connected = false
        var started = false
        var finished = false
        var protocolVersion: MQTTProtocolVersion
        var publishFailsWhenDisconnected = true
        var publications: [Publication] = []
        var subscriptions: [(filter: String, qos: MQTTQoS)] = []
    }

    public let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let state: Locked<State>
    private let connectsOnStart: Bool

    /// - Parameters:
    ///   - protocolVersion: what ``simulateConnect(sessionPresent:protocolVersion:)`` reports by default.
    ///   - connectsOnStart: when true, ``start()`` connects at once (as a reachable broker would).
    public init(protocolVersion: MQTTProtocolVersion = .v5, connectsOnStart: Bool = false) {
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
        state = Locked(State(protocolVersion: protocolVersion))
        self.connectsOnStart = connectsOnStart
    }

    // MARK: MQTTClient

    public func start() throws(MQTTError) {
        let connect = try state.withLock { (state) throws(MQTTError) -> Bool in
            guard !state.finished else {
                throw MQTTError(code: .invalidConfiguration, reason: "start() after disconnect()")
            }
            defer { state.started = true }
            return connectsOnStart && !state.started
        }
        if connect { simulateConnect() }
    }

    public func publish(_ topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                        properties: MQTTPublishProperties) throws(MQTTError) {
        guard isValidTopicName(topic) else { throw .invalidTopicName(topic) }
        try state.withLock { (state) throws(MQTTError) in
            guard state.connected || !state.publishFailsWhenDisconnected else { throw .notConnected() }
            let sent = state.protocolVersion == .v5 ? properties : MQTTPublishProperties()
            state.publications.append(Publication(topic: topic, payload: payload, qos: qos, retain: retain,
                                                  properties: sent))
        }
    }

    public func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) throws(MQTTError) {
        if let bad = filters.first(where: { !isValidTopicFilter($0) }) { throw .invalidTopicFilter(bad) }
        state.withLock { state in
            for filter in filters {
                if let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) {
                    state.subscriptions[index].qos = qos
                } else {
                    state.subscriptions.append((filter, qos))
                }
            }
        }
    }

    public func disconnect() async {
        state.withLock { state in
            guard !state.finished else { return }
            if state.connected { continuation.yield(.disconnected(nil)) }
            state.connected = false
            state.finished = true
            continuation.finish()
        }
    }

    // MARK: Playing the broker

    /// Whether ``publish(_:payload:qos:retain:properties:)`` throws `.noConnection` while
    /// disconnected (the real client's behaviour, the default). Turn it off to record regardless.
    public var publishFailsWhenDisconnected: Bool {
        get { state.withLock { $0.publishFailsWhenDisconnected } }
        set { state.withLock { $0.publishFailsWhenDisconnected = newValue } }
    }

    /// Connects: sends ``MQTTEvent/connected(_:)``. `protocolVersion` nil keeps the recorder's.
    public func simulateConnect(sessionPresent: Bool = false, protocolVersion: MQTTProtocolVersion? = nil) {
        state.withLock { state in
            guard !state.finished else { return }
            if let protocolVersion { state.protocolVersion = protocolVersion }
            state.connected = true
            continuation.yield(.connected(MQTTConnection(protocolVersion: state.protocolVersion,
                                                         sessionPresent: sessionPresent)))
        }
    }

    /// Loses the connection: sends ``MQTTEvent/disconnected(_:)`` with `error` (a lost
    /// connection by default; nil means "we asked").
    public func simulateDisconnect(error: MQTTError? = MQTTError(code: .connectionLost, reason: "simulated")) {
        state.withLock { state in
            guard !state.finished, state.connected else { return }
            state.connected = false
            continuation.yield(.disconnected(error))
        }
    }

    /// Reports a failed connection attempt: sends ``MQTTEvent/connectionFailed(_:)``.
    public func simulateConnectionFailure(_ error: MQTTError) {
        state.withLock { state in
            guard !state.finished else { return }
            state.connected = false
            continuation.yield(.connectionFailed(error))
        }
    }

    /// Delivers `message` as the broker would: only while connected and only when it matches a
    /// subscription (with `+`/`#` wildcards). Returns whether it was delivered.
    @discardableResult
    public func deliver(_ message: MQTTMessage) -> Bool {
        state.withLock { state in
            guard !state.finished, state.connected,
                  state.subscriptions.contains(where: { topicMatches(filter: $0.filter, topic: message.topic) })
            else { return false }
            continuation.yield(.message(message))
            return true
        }
    }

    /// Delivers a UTF-8 text message; see ``deliver(_:)``.
    @discardableResult
    public func deliver(topic: String, payload: String, retain: Bool = false) -> Bool {
        deliver(MQTTMessage(topic: topic, payload: Array(payload.utf8), retain: retain))
    }

    // MARK: Queries

    /// Every publication since the start or the last ``clear()``, in order.
    public var publications: [Publication] { state.withLock { $0.publications } }

    /// The publications on exactly `topic`, in order.
    public func published(on topic: String) -> [Publication] {
        publications.filter { $0.topic == topic }
    }

    /// What a broker would now hold as the retained message on `topic`: the last retained
    /// publication, or nil when there was none or the last one was empty (a deletion).
    public func lastRetained(on topic: String) -> Publication? {
        guard let last = published(on: topic).last(where: \.retain), !last.payload.isEmpty else { return nil }
        return last
    }

    /// The subscribed filters, in the order first subscribed.
    public var subscriptions: [String] { state.withLock { $0.subscriptions.map(\.filter) } }

    /// Whether the recorder is connected.
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Forgets the recorded publications (subscriptions and connection stay).
    public func clear() {
        state.withLock { $0.publications.removeAll() }
    }
}
