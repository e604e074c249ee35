import Foundation
import MQTT
import PlumbSync
import Testing

/// A subscriber to `plumb/#` on the test broker that keeps every message, so a test can wait
/// for the one it expects.
final class Observer: Sendable {
    let client: MosquittoClient
    private let received = Locked<[MQTTMessage]>([])
    private let connections = Locked(0)

    /// - Parameter persistentSession: keep the session (and QoS 1 messages queued for it) across
    ///   a broker restart, given a broker with persistence.
    init(port: Int, filter: String = "plumb/#", persistentSession: Bool = false) async throws {
        client = MosquittoClient(configuration: MQTTConfiguration(
            host: "127.0.0.1", port: port, clientID: "observer-" + UUID().uuidString.prefix(8),
            cleanSession: !persistentSession,
            // MQTT 5 ends even a non-clean session at disconnect unless a session expiry is sent;
            // 3.1.1 keeps it, which is what a persistent observer needs.
            protocolVersion: persistentSession ? .v311 : .v5))
        try client.subscribe([filter], qos: .atLeastOnce)
        let events = client.events
        let received = received
        let connections = connections
        Task {
            for await event in events {
                switch event {
                case .message(let message): received.withLock { $0.append(message) }
                case .connected: connections.withLock { $0 += 1 }
                default: break
                }
            }
        }
        try client.start()
        let deadline = Date().addingTimeInterval(5)
        while connections.withLock({ $0 }) == 0 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    var messages: [MQTTMessage] { received.withLock { $0 } }

    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Waits for a message on `topic` (after the first `skipping` of them) that satisfies
    /// `predicate`; records an issue and returns nil on timeout.
    @discardableResult
    func waitFor(_ topic: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
                 where predicate: (MQTTMessage) -> Bool = { _ in true }) async -> MQTTMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = messages(on: topic).first(where: predicate) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
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
    /// half a second after it connects.
    static func retained(port: Int, filter: String) async throws -> [MQTTMessage] {
        let fresh = try await Observer(port: port, filter: filter)
        try await Task.sleep(for: .milliseconds(500))
        await fresh.stop()
        return fresh.messages.filter(\.retain)
    }
}

func json(_ message: MQTTMessage) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]
}
