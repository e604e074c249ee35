import CMosquitto
import Dispatch
import PlumbSync

#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto wants `mosquitto_lib_init` once per process; Swift runs a global's initialiser
/// exactly once, thread-safely, on first use.
private let libraryInitialized: Int32 = mosquitto_lib_init()

/// One libmosquitto handle and the network thread that drives it: connects, reconnects with
/// backoff, falls back to MQTT 3.1.1, and turns callbacks into ``MQTTEvent``s.
///
/// Why our own thread instead of `mosquitto_loop_start`: in libmosquitto 2.0.11 that loop
/// (1) never retries when the first `mosquitto_connect_async` fails before it starts, (2) retries
/// silently (no callback per failed attempt) with a quadratic 1, 4, 9… s delay, and (3) ends the
/// thread for good after a TLS failure, an MQTT 5 CONNACK refusal (bad password included) or an
/// "unsupported protocol version". Here the thread calls `mosquitto_loop` itself, so every attempt
/// is reported, the delay doubles, and every failure is retried.
final class MosquittoSession: @unchecked Sendable {
    // @unchecked Sendable: `handle` is created in init and destroyed only in deinit, which runs
    // after the network thread has dropped its strong reference, so no thread can still use it.
    // Connection changes (connect, loop, disconnect) happen on the network thread only; other
    // threads only publish and subscribe, which libmosquitto allows with `mosquitto_threaded_set`.
    // All mutable Swift state is inside `state`, and no libmosquitto call is made while it is held.
    let configuration: MQTTConfiguration
    let context: MQTTError.Context
    let events: AsyncStream<MQTTEvent>
    let continuation: AsyncStream<MQTTEvent>.Continuation
    let handle: OpaquePointer?
    let state: Locked<State>
    /// Signalled to cut a backoff wait short when a stop is requested.
    let wake = DispatchSemaphore(value: 0)
    private let creationErrno: Int32

    enum Phase { case idle, starting, running, stopping, stopped }

    struct State {
        var phase = Phase.idle
        var stopRequested = false
        /// Set by tests: shut the socket down without DISCONNECT, like a crash.
        var dropRequested = false
        /// The protocol of the current (or next) attempt; becomes 3.1.1 after a fallback.
        var version: MQTTProtocolVersion
        /// The fallback came from an MQTT 5 CONNECT closed without a CONNACK (not from 0x84).
        var fellBackUnanswered = false
        /// True between a successful CONNACK and the loss of that connection.
        var connected = false
        var subscriptions: [(filter: String, qos: MQTTQoS)] = []
        var attempt = Attempt()
        var exitWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0
    }

    /// What the callbacks learnt during one connection attempt.
    struct Attempt {
        var everConnected = false
        /// A `.connectionFailed` or `.disconnected` event was already sent for this attempt.
        var reported = false
        var fallbackToV311 = false
        /// The first OpenSSL error line libmosquitto logged, for `.tls` messages.
        var tlsDetail: String?
        /// The return code and errno of the disconnect callback, read as it was called.
        var disconnect: (rc: Int32, errno: Int32)?
    }

    init(configuration: MQTTConfiguration) {
        _ = libraryInitialized
        self.configuration = configuration
        context = MQTTError.Context(configuration)
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .unbounded)
        state = Locked(State(version: configuration.protocolVersion))
        let id = configuration.clientID
        handle = mosquitto_new(id.isEmpty ? nil : id, configuration.cleanSession, nil)
        creationErrno = errno
        guard let handle else { return }
        // Callbacks get `self` back through the user-data pointer, unretained: they only run on the
        // network thread (which retains `self`) or inside our own publish calls.
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        installCallbacks(handle)
    }

    deinit {
        continuation.finish()
        if let handle { mosquitto_destroy(handle) }
    }

    static func from(_ raw: UnsafeMutableRawPointer?) -> MosquittoSession? {
        raw.map { Unmanaged<MosquittoSession>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Starting

    func start() throws(MQTTError) {
        let proceed = try state.withLock { (state) throws(MQTTError) -> Bool in
            switch state.phase {
            case .idle: state.phase = .starting; return true
            case .starting, .running: return false
            case .stopping, .stopped:
                throw MQTTError(code: .invalidConfiguration, reason: "start() after disconnect()",
                                advice: "A disconnected client cannot be restarted: create a new one.")
            }
        }
        guard proceed else { return }
        do throws(MQTTError) {
            guard let handle else {
                throw MQTTError(code: .invalidConfiguration, reason: "libmosquitto could not create a client ("
                    + "\(MQTTError.errnoName(creationErrno)))",
                    advice: "A persistent session (cleanSession false) needs a client id.")
            }
            try configure(handle)
        } catch {
            state.withLock { if $0.phase == .starting { $0.phase = .idle } }
            throw error
        }
        let spawn = state.withLock { (state) -> Bool in
            guard state.phase == .starting else { return false }
            state.phase = .running
            return true
        }
        guard spawn else { return }  // disconnect() came first: nothing to run
        try spawnNetworkThread()
    }

    private func spawnNetworkThread() throws(MQTTError) {
        // The thread owns one strong reference for as long as it runs.
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let session = Unmanaged<MosquittoSession>.fromOpaque(raw).takeRetainedValue()
            session.runNetworkThread()
            return nil
        }, retained)
        guard rc == 0 else {
            Unmanaged<MosquittoSession>.fromOpaque(retained).release()
            state.withLock { $0.phase = .stopped }
            continuation.finish()
            throw MQTTError(code: .other, reason: "cannot start the network thread (\(MQTTError.errnoName(rc)))")
        }
        pthread_detach(thread)
    }

    // MARK: Stopping

    /// Asks the network thread to send DISCONNECT and end, without waiting.
    func requestStop() {
        let finishNow = state.withLock { (state) -> Bool in
            state.stopRequested = true
            switch state.phase {
            case .idle, .starting: state.phase = .stopped; return true
            case .running: state.phase = .stopping; return false
            case .stopping, .stopped: return false
            }
        }
        if finishNow { continuation.finish() }
        wake.signal()
    }

    /// Stops and waits for the network thread to end, at most `timeout`.
    func disconnect(timeout: Duration = .seconds(1)) async {
        requestStop()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let id = state.withLock { (state) -> Int? in
                guard state.phase != .stopped else { return nil }
                state.nextWaiterID += 1
                state.exitWaiters[state.nextWaiterID] = waiter
                return state.nextWaiterID
            }
            guard let id else { return waiter.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) { [self] in
                state.withLock { $0.exitWaiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Test hook: the next loop turn shuts the socket down without DISCONNECT.
    func requestAbruptDrop() {
        state.withLock { $0.dropRequested = true }
    }

    // MARK: The network thread

    private func runNetworkThread() {
        // libmosquitto writes with send(…, 0): a write to a socket the broker reset raises SIGPIPE,
        // which kills the process. All writes happen on this thread (threaded mode), so blocking
        // the signal here turns it into EPIPE without touching the process's signal handling.
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeOnly, nil)

        let minimum = configuration.reconnectDelay.minimum
        var delay = minimum
        while !state.withLock({ $0.stopRequested }) {
            switch runAttempt() {
            case .stopped:
                break
            case .fallback:
                continue
            case .lost:
                delay = minimum
                pause(delay)
                delay = min(delay * 2, configuration.reconnectDelay.maximum)
            case .failed:
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

    private enum Outcome { case stopped, fallback, lost, failed }

    private func runAttempt() -> Outcome {
        guard let handle else { return .stopped }
        let version = state.withLock { (state) -> MQTTProtocolVersion in
            state.attempt = Attempt()
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
            // MQTT 5 ends a session with its connection unless CONNECT gives it an expiry; keep it
            // as long as the broker allows, as 3.1.1's clean-session flag did.
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32.max)
        }
        var rc = mosquitto_connect_bind_v5(handle, configuration.host, Int32(configuration.port),
                                           Int32(configuration.keepAlive), nil, properties)
        var failure = (rc: rc, errno: errno)
        let reachedBroker = rc == MOSQ_ERR_SUCCESS.rawValue
        if reachedBroker {
            failure = pump(handle)
            rc = failure.rc
        }
        let attempt = state.withLock { (state) -> Attempt in
            state.connected = false
            // RabbitMQ before 3.13 cannot parse an MQTT 5 CONNECT and closes the socket without a
            // CONNACK, where a 3.1.1 broker would refuse with 0x84. Try 3.1.1 next; should that
            // be closed unanswered too, the protocol was not the cause: go back to MQTT 5.
            let unanswered = reachedBroker && !state.attempt.everConnected && !state.attempt.reported
                && state.attempt.tlsDetail == nil
                && (state.attempt.disconnect?.rc ?? rc) == MOSQ_ERR_CONN_LOST.rawValue
            if unanswered, state.version == .v5 {
                state.attempt.fallbackToV311 = true
                state.fellBackUnanswered = true
            } else if unanswered, state.fellBackUnanswered {
                state.version = configuration.protocolVersion
                state.fellBackUnanswered = false
            } else if state.attempt.everConnected {
                state.fellBackUnanswered = false
            }
            if state.attempt.fallbackToV311 { state.version = .v311 }
            return state.attempt
        }
        if state.withLock({ $0.stopRequested }) { return .stopped }
        if attempt.fallbackToV311 { return .fallback }
        let cause = attempt.disconnect ?? failure
        if !attempt.reported {
            let phase: MQTTError.Phase = attempt.everConnected ? .connected : .connecting
            let error = MQTTError(mosquitto: cause.rc, errno: cause.errno, phase: phase, context: context,
                                  tlsDetail: attempt.tlsDetail)
            continuation.yield(attempt.everConnected ? .disconnected(error) : .connectionFailed(error))
        }
        return attempt.everConnected ? .lost : .failed
    }

    /// Runs `mosquitto_loop` until the connection ends; returns its last code and errno.
    private func pump(_ handle: OpaquePointer) -> (rc: Int32, errno: Int32) {
        // 200 ms bounds how long a stop or drop request waits; publishes wake the loop at once
        // through libmosquitto's internal socket pair.
        let turn: Int32 = 200
        var stopDeadline: ContinuousClock.Instant?
        while true {
            let (stop, drop) = state.withLock { (state) -> (Bool, Bool) in
                defer { state.dropRequested = false }
                return (state.stopRequested, state.dropRequested)
            }
            if stop, stopDeadline == nil {
                // Writes what is still queued first (a final "offline", the messages that clear
                // a device): libmosquitto marks the connection closed in mosquitto_disconnect
                // and drops packets not yet written (seen: 2 of 25 publishes reached the broker).
                let flushDeadline = ContinuousClock.now + .milliseconds(500)
                while mosquitto_want_write(handle), ContinuousClock.now < flushDeadline {
                    if mosquitto_loop(handle, 50, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
                }
                // Then DISCONNECT, so the broker drops the will; when not connected it just marks
                // us disconnected. mosquitto_disconnect only queues it, and mosquitto_loop returns
                // at once for a connection marked closed, so write it here: a socket closed with
                // DISCONNECT unsent is reset, and the broker may lose what it had not yet read.
                if mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue {
                    while mosquitto_want_write(handle), ContinuousClock.now < flushDeadline + .milliseconds(500) {
                        if mosquitto_loop_write(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
                    }
                }
                stopDeadline = .now + .milliseconds(500)
            }
            if drop { shutdown(mosquitto_socket(handle), Int32(SHUT_RDWR)) }
            errno = 0
            let rc = mosquitto_loop(handle, turn, 1)
            let error = errno
            if rc != MOSQ_ERR_SUCCESS.rawValue { return (rc, error) }
            if let stopDeadline, .now > stopDeadline { return (rc, error) }
        }
    }
}

extension Duration {
    /// The duration for Dispatch, in nanoseconds.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
