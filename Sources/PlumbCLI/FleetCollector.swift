import Fleet
#if canImport(Glibc)
import Glibc
#endif
import MQTT
import PlumbSync

/// The MQTT side of `plumb fleet`: one connection subscribed to `<base>/#`, feeding every message
/// into a ``Fleet`` as it arrives (payloads are read there and dropped, never kept).
///
/// When is the retained burst complete? The broker sends a new subscription's retained messages
/// before anything published after the subscription, on the same connection. So once connected
/// the collector publishes one message of its own (QoS 0, not retained) on a topic nobody else
/// uses, `<base>/plumb-fleet-<pid>-<random>` (one level under the base: no device's topic, and
/// no agent subscribes to it), and the burst is complete when that marker comes back. A broker
/// whose ACL does not let this user publish drops the marker; then the burst counts as complete
/// after ``quietSeconds`` without a message, and at the latest ``limitSeconds`` after connecting.
final class FleetCollector: Sendable {
    /// Without the marker: the burst is over after this long without a message.
    static let quietSeconds = 2.0
    /// Without the marker: the burst is over this long after connecting, however busy the broker.
    static let limitSeconds = 30.0

    private let client: MosquittoClient
    private let markerTopic: String
    private let state: Locked<State>

    /// What the event task has seen, read by the command's loop.
    private struct State {
        var fleet: Fleet
        /// Counts changes to ``fleet``, so a watcher redraws only when something came.
        var generation = 0
        /// The first answer from the broker: success, or why it could not connect.
        var firstAnswer: Result<Void, CommandFailure>?
        /// Whether the connection is up now (for the watch's header).
        var connected = false
        /// The last connection problem, while not connected.
        var problem: String?
        var markerSeen = false
        var lastMessage = ContinuousClock.now
    }

    init(connection: MQTTConfiguration, baseTopic: String) {
        client = MosquittoClient(configuration: connection)
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        markerTopic = baseTopic + "/plumb-fleet-\(getpid())-" + random
        state = Locked(State(fleet: Fleet(baseTopic: baseTopic)))
    }

    /// Subscribes, connects, and waits for the broker's first answer (10 s at most).
    ///
    /// - Throws: ``CommandFailure`` (exit 1) with the MQTT error's message when the broker
    ///   refuses us or cannot be reached.
    func connect() async throws(CommandFailure) {
        let baseTopic = state.withLock { $0.fleet.baseTopic }
        do {
            try client.subscribe([baseTopic + "/#"], qos: .atMostOnce)
        } catch {
            throw CommandFailure("\(error)")
        }
        let events = client.events
        let state = state
        let marker = markerTopic
        Task {
            for await event in events {
                state.withLock { state in
                    switch event {
                    case .connected:
                        state.connected = true
                        state.problem = nil
                        if state.firstAnswer == nil { state.firstAnswer = .success(()) }
                        state.lastMessage = .now
                    case .connectionFailed(let error):
                        state.problem = "\(error)"
                        if state.firstAnswer == nil { state.firstAnswer = .failure(CommandFailure("\(error)")) }
                    case .disconnected(let error):
                        state.connected = false
                        state.problem = error.map { "\($0)" }
                    case .message(let message):
                        state.lastMessage = .now
                        if message.topic == marker {
                            state.markerSeen = true
                        } else if state.fleet.receive(topic: message.topic, payload: message.payload) {
                            state.generation += 1
                        }
                    }
                }
            }
        }
        do {
            try client.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            switch state.withLock({ $0.firstAnswer }) {
            case .success?: return
            case .failure(let failure)?: throw failure
            case nil: try? await Task.sleep(for: .milliseconds(10))
            }
        }
        throw CommandFailure("no answer from the broker at \(client.configuration.host):\(client.configuration.port)"
            + " within 10 s; check --broker and that the broker runs.")
    }

    /// Waits until the broker has sent every retained message (see the type's comment).
    /// - Returns: false when it stopped at ``limitSeconds`` rather than on the marker or a quiet spell.
    func awaitRetainedBurst() async -> Bool {
        // Not retained, QoS 0: it only has to pass through the broker once, behind the burst.
        try? client.publish(markerTopic, payload: [], qos: .atMostOnce, retain: false)
        let start = ContinuousClock.now
        while true {
            let (seen, last) = state.withLock { ($0.markerSeen, $0.lastMessage) }
            let now = ContinuousClock.now
            if seen || now - last >= .seconds(Self.quietSeconds) { return true }
            if now - start >= .seconds(Self.limitSeconds) { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The fleet as received so far and its generation.
    func snapshot() -> (fleet: Fleet, generation: Int) {
        state.withLock { ($0.fleet, $0.generation) }
    }

    /// Whether the connection is up, and the last problem while it is not.
    var connection: (connected: Bool, problem: String?) {
        state.withLock { ($0.connected, $0.problem) }
    }

    func disconnect() async {
        await client.disconnect()
    }
}
