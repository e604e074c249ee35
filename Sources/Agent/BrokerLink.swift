import MQTT

/// What the agent knows of its link to the broker: the connection it is on, what the broker
/// agreed to, and the counters `P/health` reports. A value with no I/O; ``AgentCore`` feeds it
/// the client's events.
struct BrokerLink: Sendable, Equatable {
    /// Where the link stands: whether anything may be published now.
    enum Phase: Sendable, Equatable {
        /// Not connected (not yet, or the connection was lost: the client is reconnecting).
        case offline
        /// Connected: publications go out.
        case online
        /// Shutting down: `offline` is (being) published and nothing may follow it, whatever
        /// the connection does.
        case stopping
    }

    private(set) var phase = Phase.offline
    /// Whether a publication may go out now: connected, and not stopping.
    var canPublish: Bool { phase == .online }
    var isStopping: Bool { phase == .stopping }
    /// Connections accepted since start; `reconnects` is one less.
    private(set) var connections = 0
    /// The broker of the current (or last) connection, for `P/health` and the switch log line.
    private(set) var broker: MQTTConfiguration.Broker?
    /// Whether the broker resumed our persistent session at the last connect.
    private(set) var sessionResumed = false
    /// The protocol of the current (or last) connection: on 3.1.1 no subscription keeps the
    /// publisher's retain flag, so a live message never says whether it was retained.
    private(set) var protocolVersion = MQTTProtocolVersion.v5
    /// Inbound stalls found (and repaired by a reconnect) since start.
    private(set) var inboundStalls = 0

    /// `reconnects` for `P/health`.
    var reconnects: Int { max(0, connections - 1) }

    /// Whether `message.retain` is the publisher's flag even for a message forwarded live, on a
    /// subscription made with retain-as-published.
    var retainFlagIsAsPublished: Bool { protocolVersion == .v5 }

    /// Records an accepted connection; returns the log line that says where we are, or nil when
    /// stopping (a late CONNACK changes nothing then).
    mutating func connected(_ connection: MQTTConnection) -> String? {
        guard phase != .stopping else { return nil }
        phase = .online
        connections += 1
        let session = connection.sessionPresent ? ", session resumed" : ""
        let line: String
        if let new = connection.broker, let old = broker, new != old {
            line = "switched broker: now on \(new) (MQTT \(connection.protocolVersion)\(session)), was on \(old)"
        } else {
            let at = connection.broker.map { " at \($0)" } ?? ""
            line = "connected to the broker (MQTT \(connection.protocolVersion))\(at)\(session)"
        }
        broker = connection.broker ?? broker
        sessionResumed = connection.sessionPresent
        protocolVersion = connection.protocolVersion
        return line
    }

    /// The connection ended, or an attempt failed.
    mutating func lost() {
        if phase == .online { phase = .offline }
    }

    /// The agent shuts down: nothing is published from now on.
    mutating func stop() {
        phase = .stopping
    }

    /// Records a stall's reconnect; returns the line to log and whether it is a new stall (its
    /// first round: a warning, counted) rather than another round of the same repair (info).
    mutating func stalled(_ stall: InboundStall, probeTopic: String) -> (line: String, isNew: Bool) {
        let waited = Int((Double(stall.waited.components.seconds)
                          + Double(stall.waited.components.attoseconds) / 1e18).rounded())
        guard stall.round == 1 else {
            return ("the inbound path is still stalled after reconnecting (the check on \(probeTopic) went unanswered"
                + " for \(waited) s: the session held more oversize messages); reconnecting again, round \(stall.round)"
                + " of at most \(InboundLiveness.maximumRepairRounds).", false)
        }
        inboundStalls += 1
        return ("the broker stopped delivering QoS 1 and 2 messages to the agent (config writes, commands, requests):"
            + " its probe on \(probeTopic) went unanswered for \(waited) s. Reconnecting at once, keeping the session,"
            + " so what the broker held is delivered. A usual cause is messages over 1 MiB sent to the agent's"
            + " topics: set max_packet_size 1048576 on the broker (docs/guides/brokers-and-failover.md, Reliability).", true)
    }

    /// The warning for a probe that cannot be answered.
    static func probeFailed(_ failure: InboundProbeFailure, probeTopic: String) -> String {
        let why = switch failure {
        case .refused(let code):
            "the broker refused the inbound probe on \(probeTopic) (reason 0x\(String(code, radix: 16)))"
        case .unanswered(let rounds):
            "the inbound probe on \(probeTopic) went unanswered after \(rounds) reconnects too, so the broker never"
                + " delivers it"
        }
        return why + ": a stalled inbound path cannot be detected; the agent tries again in an hour. Let this client"
            + " publish and subscribe to \(probeTopic) (deploy/mosquitto/plumb-acl grants it)."
    }
}
