import CMosquitto
import PlumbSync

#if canImport(Glibc)
import Glibc
#endif

/// Publishing, subscribing, and applying the configuration to the handle.
extension MosquittoSession {
    /// MQTT's limit on a payload (the largest remaining length, 256 MB − 1).
    static let maximumPayload = 268_435_455

    func publish(_ topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                 properties: MQTTPublishProperties) throws(MQTTError) {
        guard isValidTopicName(topic) else { throw .invalidTopicName(topic) }
        if let responseTopic = properties.responseTopic, !isValidTopicName(responseTopic) {
            throw .invalidTopicName(responseTopic)
        }
        guard payload.count <= Self.maximumPayload else {
            throw MQTTError(code: .payloadTooLarge, reason: "\(payload.count) bytes on \(topic)", broker: context.broker)
        }
        if let data = properties.correlationData, data.count > Int(UInt16.max) {
            throw MQTTError(code: .payloadTooLarge, reason: "correlation data of \(data.count) bytes (at most 65535)")
        }
        // Our own flag, not libmosquitto's: libmosquitto accepts QoS > 0 while disconnected and
        // before CONNACK, then loses those messages on a refused or clean reconnect.
        guard let handle, let version = state.withLock({ $0.connected ? $0.version : nil }) else {
            throw .notConnected(broker: context.broker)
        }
        var list: OpaquePointer?
        defer { mosquitto_property_free_all(&list) }
        if version == .v5 {
            if let responseTopic = properties.responseTopic {
                mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic)
            }
            if let data = properties.correlationData {
                data.withUnsafeBytes { bytes in
                    _ = mosquitto_property_add_binary(&list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue),
                                                      bytes.baseAddress, UInt16(bytes.count))
                }
            }
        }
        errno = 0
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos.rawValue),
                                 retain, list)
        }
        let error = errno
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(mosquitto: rc, errno: error, phase: .publishing, context: context)
        }
    }

    func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) throws(MQTTError) {
        if let bad = filters.first(where: { !isValidTopicFilter($0) }) { throw .invalidTopicFilter(bad) }
        guard !filters.isEmpty else { return }
        let version = state.withLock { (state) -> MQTTProtocolVersion? in
            for filter in filters {
                let subscription = Subscription(filter: filter, qos: qos, retainAsPublished: retainAsPublished)
                if let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) {
                    state.subscriptions[index] = subscription
                } else {
                    state.subscriptions.append(subscription)
                }
            }
            return state.connected ? state.version : nil
        }
        // Not connected: the connect callback sends them. Connected: the callback already ran
        // without these filters, so send them now.
        guard let version, let handle else { return }
        let rc = sendSubscribe(handle, filters, qos: qos, retainAsPublished: retainAsPublished, version: version)
        guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
            throw MQTTError(mosquitto: rc, errno: 0, phase: .publishing, context: context)
        }
    }

    /// Sends the SUBSCRIBEs for every remembered filter, one per set of options.
    func sendSubscriptions(_ handle: OpaquePointer, _ subscriptions: [Subscription], version: MQTTProtocolVersion) {
        for qos in MQTTQoS.allCases {
            for retainAsPublished in [false, true] {
                let filters = subscriptions.filter { $0.qos == qos && $0.retainAsPublished == retainAsPublished }
                    .map(\.filter)
                // A failure here means the connection is already gone; the next connect re-sends.
                if !filters.isEmpty {
                    _ = sendSubscribe(handle, filters, qos: qos, retainAsPublished: retainAsPublished, version: version)
                }
            }
        }
    }

    /// Sends one SUBSCRIBE for `filters`. Never call it while holding `state`'s lock.
    ///
    /// With a persistent session on MQTT 5 it asks for retained messages only where the
    /// subscription is new: the session already holds the rest, and the messages that arrived on
    /// them while we were away are delivered in the order they arrived. A second copy of each
    /// topic's retained message, sent after them in the broker's topic order, would re-apply an
    /// older write last. MQTT 3.1.1 has no such option: there the broker re-sends them, and it
    /// has no retain-as-published either.
    func sendSubscribe(_ handle: OpaquePointer, _ filters: [String], qos: MQTTQoS, retainAsPublished: Bool,
                       version: MQTTProtocolVersion) -> Int32 {
        let strings = filters.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var options: Int32 = 0
        if version == .v5 {
            if !configuration.cleanSession { options |= Int32(MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue) }
            if retainAsPublished { options |= Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) }
        }
        return strings.withUnsafeBufferPointer { list in
            mosquitto_subscribe_multiple(handle, nil, Int32(list.count), list.baseAddress, Int32(qos.rawValue), options,
                                         nil)
        }
    }

    /// Publishes the inbound probe, noting its message id for the PUBACK. A failure is the
    /// connection going: the probe then times out on a connection that no longer exists, which
    /// ``InboundLiveness`` ignores.
    func sendProbe(_ handle: OpaquePointer, topic: String, nonce: String) {
        let bytes = Array(nonce.utf8)
        var messageID: Int32 = 0
        let rc = bytes.withUnsafeBytes { raw in
            mosquitto_publish(handle, &messageID, topic, Int32(raw.count), raw.baseAddress, 1, false)
        }
        state.withLock { $0.probeMessageID = rc == MOSQ_ERR_SUCCESS.rawValue ? messageID : nil }
    }

    /// Applies everything but the connection itself; runs once, before the network thread exists.
    func configure(_ handle: OpaquePointer) throws(MQTTError) {
        try Self.prepare(handle, for: configuration, withWill: true)
    }

    /// Checks `configuration` and applies it to `handle`: options, credentials, TLS, and the will
    /// when `withWill` (a failback check connects without one: its end must say nothing).
    static func prepare(_ handle: OpaquePointer, for configuration: MQTTConfiguration,
                        withWill: Bool) throws(MQTTError) {
        func invalid(_ reason: String) -> MQTTError { MQTTError(code: .invalidConfiguration, reason: reason) }
        guard !configuration.brokers.isEmpty else { throw invalid("there is no broker to connect to") }
        for broker in configuration.brokers {
            guard !broker.host.isEmpty else { throw invalid("the broker host is empty") }
            guard (1...65535).contains(broker.port) else { throw invalid("port \(broker.port) is not 1…65535") }
        }
        guard configuration.failbackInterval > .zero else { throw invalid("the failback interval must be positive") }
        guard (Duration.zero...Duration.seconds(Int64(UInt32.max))).contains(configuration.sessionExpiry) else {
            throw invalid("the session expiry must be 0…4294967295 s")
        }
        guard configuration.keepAlive == 0 || (5...65535).contains(configuration.keepAlive) else {
            throw invalid("keep-alive \(configuration.keepAlive) s is neither 0 nor 5…65535")
        }
        guard configuration.reconnectDelay.minimum > .zero else { throw invalid("the reconnect delay must be positive") }
        guard configuration.password == nil || configuration.username != nil else {
            throw invalid("a password without a user name is never sent")
        }
        // The network thread drives the loop; other threads only queue packets.
        mosquitto_threaded_set(handle, true)
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        if withWill, let will = configuration.will {
            guard isValidTopicName(will.topic) else { throw .invalidTopicName(will.topic) }
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue),
                                   will.retain)
            }
            try check(rc, doing: "setting the will")
        }
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(handle, username, configuration.password), doing: "setting the user name")
        }
        if let tls = configuration.tls { try configureTLS(handle, tls) }
    }

    private static func configureTLS(_ handle: OpaquePointer, _ tls: MQTTConfiguration.TLS) throws(MQTTError) {
        let files = [("CA file", tls.caFile), ("CA directory", tls.caPath), ("client certificate", tls.certFile),
                     ("client key", tls.keyFile)]
        for case let (label, path?) in files where access(path, R_OK) != 0 {
            throw MQTTError(code: .tls, reason: "cannot read the \(label) \(path) (\(MQTTError.errnoName(errno)))",
                            advice: "Check the path, and that this user may read it.")
        }
        guard (tls.certFile == nil) == (tls.keyFile == nil) else {
            throw MQTTError(code: .invalidConfiguration, reason: "a client certificate needs its key, and a key its certificate")
        }
        // libmosquitto needs a CA file or directory; with neither, trust the system store.
        let caPath = tls.caPath ?? (tls.caFile == nil ? "/etc/ssl/certs" : nil)
        try check(mosquitto_tls_set(handle, tls.caFile, caPath, tls.certFile, tls.keyFile, nil), doing: "loading TLS files")
        try check(mosquitto_tls_opts_set(handle, tls.verifyPeer ? 1 : 0, nil, nil), doing: "setting TLS options")
        try check(mosquitto_tls_insecure_set(handle, tls.insecure), doing: "setting TLS host name checking")
    }

    private static func check(_ rc: Int32, doing what: String) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        let reason = "\(what) failed: \(String(cString: mosquitto_strerror(rc)))"
        throw MQTTError(code: what.contains("TLS") ? .tls : .invalidConfiguration, reason: reason)
    }
}
