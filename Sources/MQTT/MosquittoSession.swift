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
/// backoff, fails over along the configured brokers and back to the first, falls back to
/// MQTT 3.1.1, and turns callbacks into ``MQTTEvent``s.
///
/// Why one handle for every broker, rather than one session per broker under a supervisor: the
/// client id (and so the persistent session) is the same on every broker, and only one
/// connection may be up at a time, which one handle gives for free. `mosquitto_connect_bind_v5`
/// takes the host and port at each call, and the will, credentials and TLS settings stay on the
/// handle across connects; that is why every broker shares them (the config refuses a list that
/// mixes mqtt:// and mqtts://).
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
        /// The protocol of the current (or last) attempt.
        var version: MQTTProtocolVersion
        /// Per broker, the protocol to try; becomes 3.1.1 for good after a fallback on that broker.
        var versions: [MQTTProtocolVersion]
        /// The brokers whose fallback came from an MQTT 5 CONNECT closed without a CONNACK (not
        /// from 0x84).
        var fellBackUnanswered: Set<Int> = []
        /// The broker of the current (or last) attempt.
        var broker: MQTTConfiguration.Broker
        /// The same, for messages.
        var context: MQTTError.Context
        /// Set while the network thread leaves a broker for the first one: its DISCONNECT is ours.
        var leaving = false
        /// True between a successful CONNACK and the loss of that connection.
        var connected = false
        var subscriptions: [Subscription] = []
        /// The inbound probe's decisions; nil when the configuration asks for no probe.
        var liveness: InboundLiveness?
        /// The message id of the probe in flight, to read the broker's PUBACK reason for it.
        var probeMessageID: Int32?
        var attempt = Attempt()
        var exitWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0
    }

    /// One filter as it is sent at every connect.
    struct Subscription: Equatable {
        var filter: String
        var qos: MQTTQoS
        var retainAsPublished: Bool
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
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .unbounded)
        state = Locked(State(version: configuration.protocolVersion,
                             versions: Array(repeating: configuration.protocolVersion, count: configuration.brokers.count),
                             broker: configuration.brokers.first ?? .init(host: "", port: 0),
                             context: MQTTError.Context(configuration)))
        if let probe = configuration.inboundProbe {
            // Our own subscription: the probe must come back to us.
            state.withLock { state in
                state.liveness = InboundLiveness(settings: probe)
                state.subscriptions.append(Subscription(filter: probe.topic, qos: .atLeastOnce, retainAsPublished: false))
            }
        }
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

    /// The broker of the current (or last) attempt, for messages. Never read it while holding
    /// `state`'s lock.
    var context: MQTTError.Context { state.withLock { $0.context } }

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
}

extension Duration {
    /// The duration for Dispatch, in nanoseconds.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
