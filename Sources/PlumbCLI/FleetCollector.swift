import Fleet
#if canImport(Glibc)
import Glibc
#endif
import MQTT
import PlumbSync

/// The MQTT side of `plumb fleet`: one connection feeding every message into a ``Fleet`` as it
/// arrives (payloads are read there and dropped, never kept).
///
/// Why not one subscription to `<base>/#`: a broker sends a new subscription's retained messages
/// in one go, and mosquitto drops QoS 0 messages for a client that already has
/// `max_queued_messages` (1000 by default) packets waiting to be written. 10,000 devices' retained
/// topics (75,000 messages with the bubble pictures) overflow that on any machine; measured, a
/// `<base>/#` subscriber got 5,000 to 55,000 of them. So the collector subscribes in rounds, one
/// topic name at a time (`status`, then `state`, …), each for a device id at depth 1 to
/// ``maxDepth`` under the base (`<base>/+/status`, `<base>/+/+/status`, …), and the bubble
/// pictures never. Each round's burst is one small message per device.
///
/// When is a round's burst complete? A broker handles one connection's packets in order and
/// sends a subscription's retained messages before it handles the next packet. So after each
/// round's SUBSCRIBE the collector sends something whose answer comes back behind the burst:
/// - it publishes a marker (QoS 0, not retained) on a topic of its own,
///   `<base>/plumb-fleet-<pid>-<random>` (one level under the base: no device's topic, and no
///   agent subscribes to it), to which it subscribes;
/// - from the second round on, it also subscribes again to the `P/status` of one device the first
///   round found, which makes the broker send that retained message again, behind the round's.
/// The round is complete when either comes back. The second needs no permission to publish: a
/// monitoring user whose ACL only lets it read still gets a complete listing without waiting.
/// With neither (no device has a status, and the marker is dropped), a round is complete after
/// ``quietSeconds`` without a message, and at the latest ``limitSeconds`` after it began.
final class FleetCollector: Sendable {
    /// Without the marker: a round is over after this long without a message.
    static let quietSeconds = 2.0
    /// Without the marker: a round is over this long after it began, however busy the broker.
    static let limitSeconds = 30.0
    /// The deepest device id found, in levels below the base: `<base>/<id>` is 1, and a site of
    /// up to five levels (`plumb/a/b/c/d/e/<id>` under `plumb`) is 6.
    static let maxDepth = 6

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
        /// The round being collected.
        var round = 0
        /// The last round whose marker or echo came back.
        var roundSeen = -1
        /// The `P/status` topic subscribed again in every round after the first, whose retained
        /// message then comes back behind the round's: the first device status received.
        var echoTopic: String?
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
        do {
            try client.subscribe([markerTopic], qos: .atMostOnce)
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
                    case .inboundStalled, .inboundProbeFailed:
                        break  // the collector asks for no inbound probe
                    case .message(let message):
                        state.lastMessage = .now
                        if message.topic == marker {
                            state.roundSeen = Int(String(decoding: message.payload, as: UTF8.self)) ?? state.roundSeen
                        } else if state.fleet.receive(topic: message.topic, payload: message.payload) {
                            state.generation += 1
                            if message.retain, message.topic == state.echoTopic, state.round > 0 {
                                state.roundSeen = max(state.roundSeen, state.round)
                            } else if state.echoTopic == nil, message.retain, message.topic.hasSuffix("/status") {
                                state.echoTopic = message.topic
                            }
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

    /// Subscribes to every device topic the fleet reads, round by round, each round waited for
    /// until the broker has sent its retained messages (see the type's comment).
    /// - Returns: false when a round stopped at ``limitSeconds`` rather than on the marker or a
    ///   quiet spell.
    func awaitRetainedBurst() async -> Bool {
        let baseTopic = state.withLock { $0.fleet.baseTopic }
        var complete = true
        for (round, leaf) in FleetLeaf.allCases.enumerated() {
            let filters = (1...Self.maxDepth).map { depth in
                baseTopic + String(repeating: "/+", count: depth) + "/" + leaf.rawValue
            }
            let echo = state.withLock { state in
                state.round = round
                return round > 0 ? state.echoTopic : nil
            }
            do {
                try client.subscribe(filters, qos: .atMostOnce)
                if let echo { try client.subscribe([echo], qos: .atMostOnce) }
                // Not retained, QoS 0: it only has to pass through the broker once, behind the burst.
                try client.publish(markerTopic, payload: Array(String(round).utf8), qos: .atMostOnce, retain: false)
            } catch {
                // Only a lost connection gets here: the client subscribes again when it is back.
            }
            complete = await awaitRound(round) && complete
        }
        return complete
    }

    private func awaitRound(_ round: Int) async -> Bool {
        let start = ContinuousClock.now
        state.withLock { $0.lastMessage = start }
        while true {
            let (seen, last) = state.withLock { ($0.roundSeen, $0.lastMessage) }
            let now = ContinuousClock.now
            if seen >= round || now - last >= .seconds(Self.quietSeconds) { return true }
            if now - start >= .seconds(Self.limitSeconds) { return false }
            try? await Task.sleep(for: .milliseconds(5))
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
