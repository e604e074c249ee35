import CMosquitto
import PlumbSync

/// One check of whether the first broker accepts us again, on a thread of its own: a full MQTT
/// connect (TCP, TLS and credentials, all as configured) that ends with a clean DISCONNECT.
///
/// Why a full connect and not a TCP probe: an open port says nothing about TLS or a password the
/// broker has not taken back yet, and leaving a working broker for one that then refuses us would
/// flap every interval. Why a throwaway client id (`<client id>-failback`), a clean session and
/// no will: a connect under the agent's own id would take its persistent session over, and the
/// check must leave nothing behind on the broker.
///
/// The network thread polls ``outcome``; the probe thread never touches the session, so a session
/// released while a check is blocked in a TCP connect is not kept alive by it.
final class FailbackProbe: Sendable {
    /// How long a check may take from TCP connect to CONNACK, beyond the blocking TCP connect.
    static let answerTimeout: Duration = .seconds(5)

    private let result = Locked<Bool?>(nil)

    /// true when the first broker accepted the check's connection, false when not, nil while the
    /// check runs.
    var outcome: Bool? { result.withLock { $0 } }

    private init() {}

    /// Starts a check of `configuration`'s first broker with `version`; its outcome is false at
    /// once when no thread can be made.
    static func start(_ configuration: MQTTConfiguration, version: MQTTProtocolVersion) -> FailbackProbe {
        let probe = FailbackProbe()
        let started = detachThread(name: "plumb-failback") { [result = probe.result] in
            let accepted = check(configuration, version: version)
            result.withLock { $0 = accepted }
        }
        if !started { probe.result.withLock { $0 = false } }
        return probe
    }

    /// The blocking check itself. A first broker never reached yet may speak only 3.1.1: an MQTT 5
    /// check it refuses as an unsupported version, or leaves without a CONNACK (RabbitMQ before
    /// 3.13), is made again with 3.1.1.
    private static func check(_ configuration: MQTTConfiguration, version: MQTTProtocolVersion) -> Bool {
        let reason = connect(configuration, version: version)
        if version == .v5, reason == nil || reason == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) {
            return connect(configuration, version: .v311) == 0
        }
        return reason == 0
    }

    /// One connect with `version`: the CONNACK's reason code, or nil without one.
    private static func connect(_ configuration: MQTTConfiguration, version: MQTTProtocolVersion) -> Int32? {
        var probeConfiguration = configuration
        probeConfiguration.brokers = [configuration.brokers[0]]
        guard let handle = mosquitto_new(configuration.clientID + "-failback", true, nil) else { return nil }
        defer { mosquitto_destroy(handle) }
        let answer = Locked<Int32?>(nil)
        let box = Unmanaged.passRetained(answer)
        defer { box.release() }
        mosquitto_user_data_set(handle, box.toOpaque())
        mosquitto_connect_v5_callback_set(handle) { _, raw, reason, _, _ in
            guard let raw else { return }
            Unmanaged<Locked<Int32?>>.fromOpaque(raw).takeUnretainedValue().withLock { $0 = reason }
        }
        do {
            try MosquittoSession.prepare(handle, for: probeConfiguration, withWill: false)
        } catch {
            return nil
        }
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
        let broker = configuration.brokers[0]
        guard mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port), Int32(configuration.keepAlive), nil,
                                        nil) == MOSQ_ERR_SUCCESS.rawValue else { return nil }
        let deadline = ContinuousClock.now + answerTimeout
        var reason: Int32?
        while reason == nil, ContinuousClock.now < deadline {
            guard mosquitto_loop(handle, 100, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
            reason = answer.withLock { $0 }
        }
        guard reason == 0 else { return reason }
        if mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue {
            for _ in 0..<10 where mosquitto_want_write(handle) {
                if mosquitto_loop_write(handle, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
            }
        }
        return 0
    }
}
