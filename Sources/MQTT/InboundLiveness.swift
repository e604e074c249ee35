/// Whether the broker still delivers QoS 1 and 2 messages to us: the decisions of the inbound
/// probe, as a value with no I/O. The network thread feeds it and carries out what it says.
///
/// Why a probe at all: a broker hands a client at most its Receive Maximum of QoS 1/2 messages in
/// flight, and mosquitto (2.0.11 to 2.0.22 at least) never gives a unit back for a message it
/// drops as larger than the client's maximum packet size. After that many drops it holds every
/// further QoS 1/2 message for us, while QoS 0 and our own publishing go on: the client looks
/// healthy and is deaf. Nothing on the wire says so; only a QoS 1 message of our own that does
/// not come back does.
///
/// The rules:
/// - After ``InboundProbeSettings/silence`` without any QoS 1/2 delivery, send a probe (any
///   delivery in between proves the path and restarts the wait, so a busy client sends none).
/// - A probe unanswered for ``InboundProbeSettings/timeout`` is a stall: reconnect, keeping the
///   session. The broker resets the count of messages in flight at a reconnect.
/// - On the new connection, probe at once. Its echo confirms the repair; silence there, where
///   nothing can be in flight yet, means the probe cannot be answered at all (an ACL that denies
///   the probe topic, say): probing stops until the next connection instead of reconnecting for
///   ever.
public struct InboundLiveness: Sendable, Equatable {
    public let settings: InboundProbeSettings

    /// Where the check stands on the current connection.
    public enum Phase: Sendable, Equatable {
        /// Not connected.
        case offline
        /// Connected; the path last proved itself at `since`.
        case listening(since: ContinuousClock.Instant)
        /// A probe with `nonce` went out at `sentAt`; `verifying` when it is the first probe after a
        /// reconnect that repaired a stall.
        case probing(nonce: String, sentAt: ContinuousClock.Instant, verifying: Bool)
        /// The probe went unanswered on a fresh connection: no more probes until the next one.
        case unanswerable
    }

    /// What the network thread must do now.
    public enum Action: Sendable, Equatable {
        /// Publish `nonce` at QoS 1 to the probe topic.
        case sendProbe(nonce: String)
        /// The path is stalled: report it, then reconnect keeping the session.
        case reconnect(InboundStall)
        /// The probe cannot be answered even on a fresh connection: report it; probing is off.
        case giveUp(waited: Duration)
    }

    public private(set) var phase = Phase.offline
    /// Set by a stall: the next connection's first probe is the check of the repair.
    private var repairing = false
    private var probes = 0

    public init(settings: InboundProbeSettings) {
        self.settings = settings
    }

    /// A connection was accepted (and the subscriptions sent) at `now`.
    public mutating func connected(at now: ContinuousClock.Instant) {
        phase = .listening(since: now)
    }

    /// The connection ended.
    public mutating func disconnected() {
        phase = .offline
    }

    /// A QoS 1 or 2 message arrived; `probeNonce` is its payload when it came on the probe topic.
    /// Returns whether the message was one of our probes, which the receiver must not see.
    @discardableResult
    public mutating func delivered(probeNonce: String?, at now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .probing(let nonce, _, let verifying) where probeNonce == nonce:
            if verifying { repairing = false }
            phase = .listening(since: now)
            return true
        case .listening:
            // Only our own probe's nonce is ours; anything else proves the path all the same.
            phase = .listening(since: now)
            return probeNonce != nil
        case .offline, .unanswerable, .probing:
            return probeNonce != nil
        }
    }

    /// What to do at `now`, called at every turn of the network loop. `makeNonce` gives an
    /// unpredictable token, so nobody else's message can pass for our probe.
    public mutating func check(at now: ContinuousClock.Instant, makeNonce: () -> String) -> Action? {
        switch phase {
        case .offline, .unanswerable:
            return nil
        case .listening(let since):
            // Right after the reconnect that repaired a stall: check the repair at once.
            guard repairing || now - since >= settings.silence else { return nil }
            probes += 1
            let nonce = makeNonce() + "-\(probes)"
            phase = .probing(nonce: nonce, sentAt: now, verifying: repairing)
            return .sendProbe(nonce: nonce)
        case .probing(_, let sentAt, let verifying):
            guard now - sentAt >= settings.timeout else { return nil }
            if verifying {
                repairing = false
                phase = .unanswerable
                return .giveUp(waited: now - sentAt)
            }
            repairing = true
            phase = .offline
            return .reconnect(InboundStall(waited: now - sentAt))
        }
    }
}

/// When to probe the inbound path, and how long to wait for the echo.
public struct InboundProbeSettings: Sendable, Equatable {
    /// The topic the probe goes to and comes back on: one the client may publish and subscribe
    /// to, and nobody else's (the client subscribes to it at QoS 1 itself).
    public var topic: String
    /// How long without any QoS 1/2 delivery before a probe goes out.
    public var silence: Duration
    /// How long a probe may go unanswered before the path counts as stalled.
    public var timeout: Duration

    public init(topic: String, silence: Duration, timeout: Duration) {
        self.topic = topic
        self.silence = silence
        self.timeout = timeout
    }

    /// The longest a stall can last before it is found: a stall that begins just after a delivery
    /// is probed after ``silence`` and declared after ``timeout`` more.
    public var worstDetection: Duration { silence + timeout }
}

/// A probe that went unanswered: the broker holds our QoS 1/2 messages.
public struct InboundStall: Sendable, Equatable {
    /// How long the probe waited.
    public var waited: Duration

    public init(waited: Duration) {
        self.waited = waited
    }
}
