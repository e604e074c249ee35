import CMosquitto
import Dispatch
import PlumbSync
#if canImport(Glibc)
import Glibc
#endif

/// The network thread: connect attempts across the brokers with backoff and failback, the loop
/// that pumps libmosquitto, and the goodbye on a stop or a switch.
extension MosquittoSession {
    /// The thread's body, from ``start()`` until a stop: attempts, backoff, and the loop.
    func runNetworkThread() {
        // libmosquitto writes with send(…, 0): a write to a socket the broker reset raises SIGPIPE,
        // which kills the process. All writes happen on this thread (threaded mode), so blocking
        // the signal here turns it into EPIPE without touching the process's signal handling.
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeOnly, nil)

        let minimum = configuration.reconnectDelay.minimum
        var delay = minimum
        var rotation = BrokerRotation(count: configuration.brokers.count, failbackInterval: configuration.failbackInterval)
        while !state.withLock({ $0.stopRequested }) {
            switch runAttempt(&rotation) {
            case .stopped:
                break
            case .fallback:
                continue
            case .failedBack:
                // Left a working broker for the first, which just answered a check: at once.
                delay = minimum
            case .repairing:
                // Left a connection whose inbound path stalled: the same broker, at once, with
                // the session (the broker resets what it counts in flight at a reconnect).
                delay = minimum
            case .lost:
                rotation.advance()
                delay = minimum
                pause(delay)
                delay = min(delay * 2, configuration.reconnectDelay.maximum)
            case .failed:
                rotation.advance()
                pause(delay)
                delay = min(delay * 2, configuration.reconnectDelay.maximum)
            }
        }
        let waiters = state.withLock { (state) -> [CheckedContinuation<Void, Never>] in
            state.phase = .stopped
            state.connected = false
            defer { state.exitWaiters.removeAll() }
            return Array(state.exitWaiters.values)
        }
        continuation.finish()
        for waiter in waiters { waiter.resume() }
    }

    private func pause(_ delay: Duration) {
        guard !state.withLock({ $0.stopRequested }) else { return }
        _ = wake.wait(timeout: .now() + delay.dispatchInterval)
    }

    private enum Outcome { case stopped, fallback, failedBack, repairing, lost, failed }

    private func runAttempt(_ rotation: inout BrokerRotation) -> Outcome {
        guard let handle else { return .stopped }
        let index = rotation.current
        let broker = configuration.brokers[index]
        let version = state.withLock { (state) -> MQTTProtocolVersion in
            state.attempt = Attempt()
            state.version = state.versions[index]
            state.broker = broker
            state.context = MQTTError.Context(configuration, broker: broker)
            return state.version
        }
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION,
                             version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
        errno = 0
        // The blocking connect, as mosquitto.h asks when driving `mosquitto_loop` yourself: with
        // the async one, TLS sometimes calls SSL_connect before TCP has connected, and the
        // handshake then waits for ever (seen here in about one attempt in a hundred). Only the
        // TCP connect blocks, and only this thread; `disconnect()` does not wait for it.
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        if version == .v5, !configuration.cleanSession {
            // MQTT 5 ends a session with its connection unless CONNECT gives it an expiry.
            let seconds = configuration.sessionExpiry.components.seconds
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                                         UInt32(clamping: seconds))
        }
        if version == .v5, let size = configuration.maximumPacketSize {
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue),
                                         UInt32(clamping: size))
        }
        if version == .v5, let maximum = configuration.receiveMaximum {
            mosquitto_property_add_int16(&properties, Int32(MQTT_PROP_RECEIVE_MAXIMUM.rawValue),
                                         UInt16(clamping: max(1, maximum)))
        }
        var rc = mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port),
                                           Int32(configuration.keepAlive), nil, properties)
        var failure = (rc: rc, errno: errno)
        let reachedBroker = rc == MOSQ_ERR_SUCCESS.rawValue
        var ending = PumpEnding.connectionEnded
        if reachedBroker {
            (failure, ending) = pump(handle, rotation: &rotation)
            rc = failure.rc
        }
        let attempt = state.withLock { (state) -> Attempt in
            state.connected = false
            state.leaving = false
            // RabbitMQ before 3.13 cannot parse an MQTT 5 CONNECT and closes the socket without a
            // CONNACK, where a 3.1.1 broker would refuse with 0x84. Try 3.1.1 next; should that
            // be closed unanswered too, the protocol was not the cause: go back to MQTT 5.
            let unanswered = reachedBroker && !state.attempt.everConnected && !state.attempt.reported
                && state.attempt.tlsDetail == nil
                && (state.attempt.disconnect?.rc ?? rc) == MOSQ_ERR_CONN_LOST.rawValue
            if unanswered, state.version == .v5 {
                state.attempt.fallbackToV311 = true
                state.fellBackUnanswered.insert(index)
            } else if unanswered, state.fellBackUnanswered.contains(index) {
                state.versions[index] = configuration.protocolVersion
                state.fellBackUnanswered.remove(index)
            } else if state.attempt.everConnected {
                state.fellBackUnanswered.remove(index)
            }
            if state.attempt.fallbackToV311 { state.versions[index] = .v311 }
            return state.attempt
        }
        if state.withLock({ $0.stopRequested }) { return .stopped }
        if attempt.fallbackToV311 { return .fallback }
        if ending == .failedBack { return .failedBack }
        if ending == .repairing { return .repairing }
        let cause = attempt.disconnect ?? failure
        if !attempt.reported {
            let phase: MQTTError.Phase = attempt.everConnected ? .connected : .connecting
            let error = MQTTError(mosquitto: cause.rc, errno: cause.errno, phase: phase, context: context,
                                  tlsDetail: attempt.tlsDetail)
            continuation.yield(attempt.everConnected ? .disconnected(error) : .connectionFailed(error))
        }
        return attempt.everConnected ? .lost : .failed
    }

    /// Why ``pump(_:rotation:)`` left a connection.
    private enum PumpEnding { case connectionEnded, failedBack, repairing }

    /// Runs `mosquitto_loop` until the connection ends; returns its last code and errno, and
    /// whether we left on purpose: for the first broker, which answered a failback check, or to
    /// repair a stalled inbound path.
    private func pump(_ handle: OpaquePointer,
                      rotation: inout BrokerRotation) -> (result: (rc: Int32, errno: Int32), ending: PumpEnding) {
        // 200 ms bounds how long a stop or drop request waits; publishes wake the loop at once
        // through libmosquitto's internal socket pair.
        let turn: Int32 = 200
        var stopDeadline: ContinuousClock.Instant?
        var wasConnected = false
        var probe: FailbackProbe?
        var ending = PumpEnding.connectionEnded
        while true {
            let (stop, drop, connected) = state.withLock { (state) -> (Bool, Bool, Bool) in
                defer { state.dropRequested = false }
                return (state.stopRequested, state.dropRequested, state.connected)
            }
            let now = ContinuousClock.now
            if connected, !wasConnected { rotation.connected(at: now) }
            wasConnected = connected
            if stop, stopDeadline == nil {
                sayGoodbye(handle, publishingWill: false)
                stopDeadline = .now + .milliseconds(500)
            } else if connected, stopDeadline == nil {
                if checkInbound(handle, at: now) {
                    // A clean DISCONNECT keeps the session and fires no will: nobody sees us go.
                    state.withLock { $0.leaving = true }
                    sayGoodbye(handle, publishingWill: false)
                    ending = .repairing
                    stopDeadline = .now + .milliseconds(500)
                }
                if probe == nil, rotation.failbackDue(at: now) {
                    rotation.checkedFirst(at: now)
                    probe = FailbackProbe.start(configuration, version: state.withLock { $0.versions[0] })
                }
                switch probe?.outcome {
                case true?:
                    // The first broker answers: leave this one cleanly, saying we are gone (a clean
                    // DISCONNECT does not fire the will), so its retained status is not left `online`.
                    probe = nil
                    state.withLock { $0.leaving = true }
                    sayGoodbye(handle, publishingWill: true)
                    rotation.failBack()
                    ending = .failedBack
                    stopDeadline = .now + .milliseconds(500)
                case false?: probe = nil
                case nil: break
                }
            }
            if drop { shutdown(mosquitto_socket(handle), Int32(SHUT_RDWR)) }
            errno = 0
            let rc = mosquitto_loop(handle, turn, 1)
            let error = errno
            if rc != MOSQ_ERR_SUCCESS.rawValue { return ((rc, error), ending) }
            if let stopDeadline, .now > stopDeadline { return ((rc, error), ending) }
        }
    }

    /// Carries out what the inbound probe decides at `now`; true when the connection must be
    /// left to repair a stall.
    private func checkInbound(_ handle: OpaquePointer, at now: ContinuousClock.Instant) -> Bool {
        guard let settings = configuration.inboundProbe else { return false }
        let action = state.withLock { $0.liveness?.check(at: now, makeNonce: Self.makeNonce) }
        switch action {
        case .sendProbe(let nonce)?:
            sendProbe(handle, topic: settings.topic, nonce: nonce)
            return false
        case .reconnect(let stall)?:
            continuation.yield(.inboundStalled(stall))
            return true
        case .giveUp(let failure)?:
            continuation.yield(.inboundProbeFailed(failure))
            return false
        case nil:
            return false
        }
    }

    /// 64 random bits in hex: nobody else can publish a message that passes for our probe.
    private static func makeNonce() -> String {
        String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Writes what is still queued, the will too when `publishingWill`, then a DISCONNECT.
    private func sayGoodbye(_ handle: OpaquePointer, publishingWill: Bool) {
        if publishingWill, let will = configuration.will {
            // QoS 0 whatever the will's: TCP delivers it before the DISCONNECT written after it,
            // while a QoS 1 copy would stay unacknowledged in a persistent session's queue and be
            // sent again, late, to the next broker.
            _ = will.payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, nil, will.topic, Int32(bytes.count), bytes.baseAddress, 0, will.retain)
            }
        }
        // Writes what is still queued first (a final "offline", the messages that clear a
        // device): libmosquitto marks the connection closed in mosquitto_disconnect and drops
        // packets not yet written (seen: 2 of 25 publishes reached the broker).
        let flushDeadline = ContinuousClock.now + .milliseconds(500)
        while mosquitto_want_write(handle), ContinuousClock.now < flushDeadline {
            if mosquitto_loop(handle, 50, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        // Then DISCONNECT, so the broker drops the will; when not connected it just marks us
        // disconnected. mosquitto_disconnect only queues it, and mosquitto_loop returns at once
        // for a connection marked closed, so write it here: a socket closed with DISCONNECT
        // unsent is reset, and the broker may lose what it had not yet read.
        if mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue {
            while mosquitto_want_write(handle), ContinuousClock.now < flushDeadline + .milliseconds(500) {
                if mosquitto_loop_write(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
            }
        }
    }
}
