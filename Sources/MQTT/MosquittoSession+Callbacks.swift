import CMosquitto
import PlumbSync

#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto's callbacks. They run on the network thread while libmosquitto holds its callback
/// mutex, so they take our lock only for short bookkeeping and never call libmosquitto while
/// holding it.
extension MosquittoSession {
    func installCallbacks(_ handle: OpaquePointer) {
        // C function pointers cannot capture: each closure finds its session through the
        // user-data pointer set in init.
        mosquitto_connect_v5_callback_set(handle) { _, raw, reason, flags, _ in
            MosquittoSession.from(raw)?.didConnect(reason: reason, flags: flags)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, raw, rc, _ in
            let error = errno  // first: anything called later may overwrite it
            MosquittoSession.from(raw)?.didDisconnect(rc: rc, errno: error)
        }
        mosquitto_message_v5_callback_set(handle) { _, raw, message, properties in
            guard let message else { return }
            MosquittoSession.from(raw)?.didReceive(message.pointee, properties: properties)
        }
        mosquitto_publish_v5_callback_set(handle) { _, raw, messageID, reason, _ in
            MosquittoSession.from(raw)?.didPublish(messageID: messageID, reason: reason)
        }
        mosquitto_log_callback_set(handle) { _, raw, level, text in
            // Only errors: libmosquitto logs every packet at debug level, from any thread.
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            MosquittoSession.from(raw)?.didLogError(String(cString: text))
        }
    }

    private func didConnect(reason: Int32, flags: Int32) {
        let version = state.withLock { $0.version }
        if let refusal = MQTTError(connack: reason, version: version, context: context) {
            // libmosquitto reports a 3.1.1 broker's "unacceptable protocol version" to an MQTT 5
            // CONNECT as reason 0x84; the network thread retries at once with 3.1.1.
            let fallback = version == .v5 && reason == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue)
            state.withLock { state in
                if fallback { state.attempt.fallbackToV311 = true } else { state.attempt.reported = true }
            }
            if !fallback { continuation.yield(.connectionFailed(refusal)) }
            return
        }
        // Marking connected and reading the filters in one critical section pairs with
        // `subscribe`: each new filter is sent exactly once, either here or there.
        let (subscriptions, broker) = state.withLock { (state) -> ([Subscription], MQTTConfiguration.Broker) in
            state.connected = true
            state.attempt.everConnected = true
            state.liveness?.connected(at: .now)
            return (state.subscriptions, state.broker)
        }
        if let handle { sendSubscriptions(handle, subscriptions, version: version) }
        let connection = MQTTConnection(protocolVersion: version, sessionPresent: flags & 1 != 0, broker: broker)
        continuation.yield(.connected(connection))
    }

    private func didDisconnect(rc: Int32, errno value: Int32) {
        let (wasConnected, asked) = state.withLock { (state) -> (Bool, Bool) in
            state.attempt.disconnect = (rc, value)
            let wasConnected = state.connected
            state.connected = false
            state.liveness?.disconnected()
            if wasConnected { state.attempt.reported = true }
            return (wasConnected, state.stopRequested || state.leaving)
        }
        // Before CONNACK the network thread reports the failed attempt, with everything it knows.
        guard wasConnected else { return }
        let error: MQTTError?
        if asked {
            error = nil
        } else if rc >= 0x80 {
            // An MQTT 5 DISCONNECT from the broker carries a reason code, not a MOSQ_ERR value.
            error = MQTTError(disconnectReason: rc, context: context)
        } else if rc == MOSQ_ERR_SUCCESS.rawValue {
            error = MQTTError(code: .connectionLost, reason: "the broker closed the connection (DISCONNECT)",
                              broker: context.broker)
        } else {
            error = MQTTError(mosquitto: rc, errno: value, phase: .connected, context: context)
        }
        continuation.yield(.disconnected(error))
    }

    private func didReceive(_ message: mosquitto_message, properties: OpaquePointer?) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        let length = Int(max(0, message.payloadlen))
        if let bytes = message.payload, length > 0 {
            // Cut at receipt: a receiver slower than a flood must not hold megabytes per message.
            let kept = configuration.maximumIncomingPayload.map { min(length, $0 + 1) } ?? length
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: kept))
        }
        if message.qos > 0, let probe = configuration.inboundProbe {
            // Every QoS 1/2 delivery proves the path; our own probe goes no further.
            let nonce = topic == probe.topic ? String(decoding: payload, as: UTF8.self) : nil
            let ours = state.withLock { $0.liveness?.delivered(probeNonce: nonce, at: .now) ?? false }
            if ours || nonce != nil { return }
        } else if let probe = configuration.inboundProbe, topic == probe.topic {
            return  // a QoS 0 copy proves nothing about the QoS 1/2 path, and is nobody's business
        }
        var received = MQTTMessage(topic: topic, payload: payload,
                                   qos: MQTTQoS(rawValue: Int(message.qos)) ?? .atMostOnce, retain: message.retain,
                                   payloadLength: length)
        if let properties {
            // Both reads allocate copies that we must free.
            var text: UnsafeMutablePointer<CChar>?
            if mosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text,
                                              false) != nil, let text {
                received.responseTopic = String(cString: text)
                free(text)
            }
            var data: UnsafeMutableRawPointer?
            var length: UInt16 = 0
            if mosquitto_property_read_binary(properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length,
                                              false) != nil {
                received.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) }
                    ?? []
                free(data)
            }
        }
        continuation.yield(.message(received))
    }

    /// A PUBACK (or PUBCOMP): a failure reason for our probe means the broker will never deliver
    /// it (mosquitto answers 0x87 to a publish its ACL denies, on MQTT 5; 3.1.1 has no reasons).
    private func didPublish(messageID: Int32, reason: Int32) {
        guard reason >= 0x80 else { return }
        let action = state.withLock { (state) -> InboundLiveness.Action? in
            guard state.probeMessageID == messageID else { return nil }
            state.probeMessageID = nil
            return state.liveness?.refused(reasonCode: Int(reason), at: .now)
        }
        if case .giveUp(let failure)? = action { continuation.yield(.inboundProbeFailed(failure)) }
    }

    /// Keeps the first error line of the attempt (OpenSSL's reason for a TLS failure, or why a
    /// certificate could not be loaded) for the `.tls` message.
    private func didLogError(_ line: String) {
        var detail = line
        if line.hasPrefix("OpenSSL Error"), let colon = line.firstRange(of: "]: ") {
            detail = "OpenSSL: " + line[colon.upperBound...]
        }
        state.withLock { state in
            if state.attempt.tlsDetail == nil { state.attempt.tlsDetail = detail }
        }
    }
}
