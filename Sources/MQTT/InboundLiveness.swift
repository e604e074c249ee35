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
///   session. The broker resets the count of messages in flight at a reconnect. A QoS 1/2
///   delivery while the probe is out restarts its deadline: a path that moves is not stalled.
/// - On the new connection, probe at once to check the repair. The session may still hold more
///   oversize messages than one Receive Maximum, which use it up again: an unanswered check
///   reconnects again (each round drains a Receive Maximum of them), up to
///   ``maximumRepairRounds`` rounds. Past that the probe cannot be answered at all (an ACL that
///   drops it, say): give up, and try again after ``retryAfterGivingUp``, rather than reconnect
///   for ever. A broker that refuses the probe outright (an MQTT 5 PUBACK with a failure reason,
///   as mosquitto answers a publish its ACL denies) gives up at once.
public struct InboundLiveness: Sendable, Equatable {
    public let settings: InboundProbeSettings

    /// Where the check stands on the current connection.
    public enum Phase: Sendable, Equatable {
        /// Not connected.
        case offline
        /// Connected; the path last proved itself at `since`.
        case listening(since: ContinuousClock.Instant)
        /// A probe with `nonce` went out; its deadline runs from `since` (its sending, or the last
        /// delivery since).
        case probing(nonce: String, since: ContinuousClock.Instant)
        /// The probe cannot be answered: none until `retryAt`.
        case gaveUp(retryAt: ContinuousClock.Instant)
    }

    /// What the network thread must do now.
    public enum Action: Sendable, Equatable {
        /// Publish `nonce` at QoS 1 to the probe topic.
        case sendProbe(nonce: String)
        /// The path is stalled: report it, then reconnect keeping the session.
        case reconnect(InboundStall)
        /// The probe cannot be answered: report it; no probe until ``retryAfterGivingUp``.
        case giveUp(InboundProbeFailure)
    }

    /// Reconnects that one stall may take before the probe counts as unanswerable: each drains a
    /// Receive Maximum of oversize messages from the session, so at 65535 five rounds clear more
    /// than 300,000 of them (over 300 GiB).
    public static let maximumRepairRounds = 5
    /// How long probing rests after it gave up.
    public static let retryAfterGivingUp: Duration = .seconds(3600)

    public private(set) var phase = Phase.offline
    /// Reconnects made for the stall being repaired; 0 when none is.
    private var repairRounds = 0
    private var probes = 0

    public init(settings: InboundProbeSettings) {
        self.settings = settings
    }

    /// A connection was accepted (and the subscriptions sent) at `now`.
    public mutating func connected(at now: ContinuousClock.Instant) {
        if case .gaveUp = phase { return }  // resting: a reconnect does not make the probe answerable
        phase = .listening(since: now)
    }

    /// The connection ended.
    public mutating func disconnected() {
        if case .gaveUp = phase { return }
        phase = .offline
    }

    /// A QoS 1 or 2 message arrived; `probeNonce` is its payload when it came on the probe topic.
    /// Returns whether the message was one of our probes, which the receiver must not see.
    @discardableResult
    public mutating func delivered(probeNonce: String?, at now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .probing(let nonce, _) where probeNonce == nonce:
            repairRounds = 0
            phase = .listening(since: now)
            return true
        case .probing(let nonce, _) where probeNonce == nil:
            // The path moves (a backlog flowing after a reconnect, say): the probe is behind it.
            phase = .probing(nonce: nonce, since: now)
            return false
        case .listening:
            // Only our own probe's nonce is ours; anything else proves the path all the same.
            phase = .listening(since: now)
            return probeNonce != nil
        case .offline, .gaveUp, .probing:
            return probeNonce != nil
        }
    }

    /// The broker refused the probe's publish (an MQTT 5 PUBACK reason of 0x80 or more): it will
    /// never come back. Returns what to report, once.
    public mutating func refused(reasonCode: Int, at now: ContinuousClock.Instant) -> Action? {
        guard case .probing = phase else { return nil }
        repairRounds = 0
        phase = .gaveUp(retryAt: now + Self.retryAfterGivingUp)
        return .giveUp(.refused(reasonCode: reasonCode))
    }

    /// What to do at `now`, called at every turn of the network loop. `makeNonce` gives an
    /// unpredictable token, so nobody else's message can pass for our probe.
    public mutating func check(at now: ContinuousClock.Instant, makeNonce: () -> String) -> Action? {
        switch phase {
        case .offline:
            return nil
        case .gaveUp(let retryAt):
            guard now >= retryAt else { return nil }
            return sendProbe(at: now, makeNonce: makeNonce)
        case .listening(let since):
            // Right after the reconnect that repaired a stall: check the repair at once.
            guard repairRounds > 0 || now - since >= settings.silence else { return nil }
            return sendProbe(at: now, makeNonce: makeNonce)
        case .probing(_, let since):
            guard now - since >= settings.timeout else { return nil }
            guard repairRounds < Self.maximumRepairRounds else {
                repairRounds = 0
                phase = .gaveUp(retryAt: now + Self.retryAfterGivingUp)
                return .giveUp(.unanswered(rounds: Self.maximumRepairRounds))
            }
            repairRounds += 1
            phase = .offline
            return .reconnect(InboundStall(waited: now - since, round: repairRounds))
        }
    }

    private mutating func sendProbe(at now: ContinuousClock.Instant, makeNonce: () -> String) -> Action {
        probes += 1
        let nonce = makeNonce() + "-\(probes)"
        phase = .probing(nonce: nonce, since: now)
        return .sendProbe(nonce: nonce)
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
    /// How long the probe waited (since it was sent, or since the last delivery).
    public var waited: Duration
    /// 1 for a stall just found; 2 and more for the reconnects that follow when the check of the
    /// repair went unanswered too (the session held more oversize messages than one round clears).
    public var round: Int

    public init(waited: Duration, round: Int = 1) {
        self.waited = waited
        self.round = round
    }
}

/// Why the probe cannot be answered.
public enum InboundProbeFailure: Sendable, Equatable {
    /// The broker refused to take the probe (MQTT 5 PUBACK reason code, such as 0x87 not
    /// authorized: an ACL that denies the client the probe topic).
    case refused(reasonCode: Int)
    /// The checks after this many reconnects went unanswered too.
    case unanswered(rounds: Int)
}
