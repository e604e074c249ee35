import BrokerHarness
import Foundation
import MQTT
import PlumbSync
import Testing

/// A subscriber to `plumb/#` on the test broker that keeps every message, so a test can wait
/// for the one it expects.
final class Observer: Sendable {
    let client: MosquittoClient
    private let received = Locked<[MQTTMessage]>([])
    private let arrivalTimes = Locked<[Date]>([])
    private let connections = Locked(0)

    /// - Parameter persistentSession: keep the session (and QoS 1 messages queued for it) across
    ///   a broker restart, given a broker with persistence.
    /// - Parameters:
    ///   - login: a user name and password, for a broker with a password file.
    ///   - caFile: the CA to trust, for a TLS broker.
    ///   - moreFilters: subscribed as well as `filter`.
    ///   - maximumPacketSize: announced (MQTT 5), so the broker drops larger messages for the
    ///     observer as it does for the agent; with it, pass a large `receiveMaximum`, since
    ///     mosquitto never gives back the unit of a QoS 1/2 message it drops so (the inbound stall).
    ///   - maximumIncomingPayload: payloads kept cut to this many bytes and one (a long run's memory).
    init(port: Int, filter: String = "plumb/#", moreFilters: [String] = [], persistentSession: Bool = false,
         version: MQTTProtocolVersion? = nil, login: (user: String, password: String)? = nil,
         caFile: String? = nil, reconnectDelay: MQTTConfiguration.ReconnectDelay = .init(),
         maximumPacketSize: Int? = nil, receiveMaximum: Int? = nil, maximumIncomingPayload: Int? = nil) async throws {
        client = MosquittoClient(configuration: MQTTConfiguration(
            host: "127.0.0.1", port: port, clientID: "observer-" + UUID().uuidString.prefix(8),
            cleanSession: !persistentSession, username: login?.user, password: login?.password,
            tls: caFile.map { MQTTConfiguration.TLS(caFile: $0) },
            // MQTT 5 ends even a non-clean session at disconnect unless a session expiry is sent;
            // 3.1.1 keeps it, which is what a persistent observer needs.
            protocolVersion: version ?? (persistentSession ? .v311 : .v5), reconnectDelay: reconnectDelay,
            maximumPacketSize: maximumPacketSize, maximumIncomingPayload: maximumIncomingPayload,
            receiveMaximum: receiveMaximum))
        try client.subscribe([filter] + moreFilters, qos: .atLeastOnce)
        let events = client.events
        let received = received
        let arrivalTimes = arrivalTimes
        let connections = connections
        // On the harness's threads: tests blocking the cooperative pool must not stall the intake.
        Task(executorPreference: HarnessExecutor.shared) {
            for await event in events {
                switch event {
                case .message(let message):
                    // One lock order (messages, then times) keeps the two lists aligned.
                    received.withLock { list in
                        list.append(message)
                        arrivalTimes.withLock { $0.append(Date()) }
                    }
                case .connected: connections.withLock { $0 += 1 }
                default: break
                }
            }
        }
        try client.start()
        // Up to 20 s, ending as soon as it connects: with the whole suite running on two cores a
        // connect can take seconds, and a subscriber that isn't there yet sees nothing.
        try await withTaskExecutorPreference(HarnessExecutor.shared) {
            let deadline = Date().addingTimeInterval(TestTimeScale.scaled(20))
            while connections.withLock({ $0 }) == 0 && Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    var messages: [MQTTMessage] { received.withLock { $0 } }

    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// When each message on `topic` arrived, in order.
    func arrivals(on topic: String) -> [(time: Date, message: MQTTMessage)] {
        received.withLock { list in
            let times = arrivalTimes.withLock { $0 }
            return zip(times, list).filter { $0.1.topic == topic }.map { (time: $0.0, message: $0.1) }
        }
    }

    /// Waits for a message on `topic` (after the first `skipping` of them) that satisfies
    /// `predicate`; records an issue and returns nil on timeout.
    @discardableResult
    func waitFor(_ topic: String, after skipped: Int = 0, timeout: Double = 10,
                 sourceLocation: SourceLocation = #_sourceLocation,
                 where predicate: (MQTTMessage) -> Bool = { _ in true }) async -> MQTTMessage? {
        let deadline = Date().addingTimeInterval(TestTimeScale.scaled(timeout))
        // Polled on the harness's threads, so the time-out is the agent's and not the pool's.
        // Looks once more after the deadline: what arrived during the last sleep counts.
        let found: MQTTMessage? = await withTaskExecutorPreference(HarnessExecutor.shared) {
            while true {
                let recent = messages.dropFirst(skipped)
                if let found = recent.first(where: { $0.topic == topic && predicate($0) }) { return found }
                guard Date() < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        if let found { return found }
        Issue.record("nothing matching on \(topic) within \(timeout) s; got \(messages(on: topic).map { $0.payloadString ?? "" })",
                     sourceLocation: sourceLocation)
        return nil
    }

    /// Waits for a JSON message on `topic` satisfying `predicate`, and returns it parsed.
    @discardableResult
    func waitForJSON(_ topic: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
                     where predicate: ([String: Any]) -> Bool = { _ in true }) async -> [String: Any]? {
        let message = await waitFor(topic, timeout: timeout, sourceLocation: sourceLocation) { message in
            guard let object = json(message) else { return false }
            return predicate(object)
        }
        return message.flatMap(json)
    }

    /// Events of `type` on `P/event`.
    func events(_ type: String, prefix: String) -> [[String: Any]] {
        messages(on: prefix + "/event").compactMap(json).filter { $0["type"] as? String == type }
    }

    func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
        try client.publish(topic, payload: Array(payload.utf8), qos: .atLeastOnce, retain: retain)
    }

    func stop() async { await client.disconnect() }

    /// What the broker holds retained under `filter`: a fresh subscriber's view, collected for
    /// a second after it connects.
    static func retained(port: Int, filter: String, login: (user: String, password: String)? = nil,
                         caFile: String? = nil) async throws -> [MQTTMessage] {
        let fresh = try await Observer(port: port, filter: filter, login: login, caFile: caFile)
        try await Task.sleep(for: .seconds(1))
        await fresh.stop()
        return fresh.messages.filter(\.retain)
    }
}

func json(_ message: MQTTMessage) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]
}
