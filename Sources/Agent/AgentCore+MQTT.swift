import Contract
import MQTT
import PlumbDomain
import Settings

extension AgentCore {
    // MARK: Connection

    /// Feeds one event from the MQTT client.
    public func handle(_ event: MQTTEvent) {
        switch event {
        case .connected(let connection):
            guard !stopping else { return }
            connections += 1
            connected = true
            log.info("connected to the broker (MQTT \(connection.protocolVersion))")
            publishBirth()
        case .disconnected(let error):
            connected = false
            if let error, !stopping { log.warning(Sentences.join("lost the broker: \(error)", "Reconnecting with backoff.")) }
        case .connectionFailed(let error):
            connected = false
            log.warning("cannot reach the broker: \(error)")
        case .message(let message):
            receive(message)
        }
    }

    /// Everything a subscriber needs after we (re)connect: status, config, level, state, the
    /// events queued while away, then health (so its queue counts are the ones after the flush).
    func publishBirth() {
        // Discovery first: Home Assistant creates the entities, then hears them come online.
        clearStaleDiscovery()
        publishDiscovery(force: true)
        bubbleNeedsSending = true
        publish(topics.status, Array("online".utf8), retain: true, qos: .atLeastOnce)
        publishConfig()
        publishCalibration()
        publishLevel()
        publishState(reason: "birth")
        flushEvents()
        // Not before the first rate measurement: a health message then would report 0 Hz.
        if healthIsReady { publishHealth(at: clock()) }
    }

    // MARK: Publications

    func publishState(reason: String) {
        // Before the first reading or fault there is nothing true to say: no nulls dressed up as a state.
        let measurement = pipeline.latest
        guard measurement != nil || sensorFaultMessage != nil else { return }
        seq += 1
        let reading = ReadingFigures(sensorOK ? measurement : nil, unit: settings.angleUnit, level: pipeline.isLevel)
        let payload = StatePayload(reading: reading, alarm: pipeline.isAlarm, sensorOK: sensorOK, seq: seq)
        if let attitude = measurement?.attitude { policy.recordPublished(attitude: attitude, at: clock()) } else { policy.recordHeartbeat(at: clock()) }
        publishedStable = sensorOK ? measurement?.isStable : nil
        // The picture follows movement, not heartbeats: a heartbeat's fresh average differs by
        // noise, which would redraw the bubble of a still machine every heartbeat_s.
        if !sensorOK {
            stateGravity = nil
        } else if reason != PublishDecision.heartbeat.rawValue || stateGravity == nil {
            stateGravity = measurement?.levelGravity
        }
        log.debug("state (\(reason)) seq \(seq)")
        publish(topics.state, encodeJSON(payload), retain: true)
        publishBubbleIfChanged(at: clock())
    }

    func publishLevel() {
        guard let level = pipeline.isLevel else { return }
        publish(topics.level, Array((level ? "ON" : "OFF").utf8), retain: true)
    }

    func publishConfig() {
        publish(topics.config, settings.encodedEffectiveConfig(), retain: true)
    }

    /// Sends an event now, or keeps it for after the reconnect.
    func emit(_ event: AgentEvent) {
        log.info("event \(event.type.rawValue)")
        events.append(event)
        flushEvents()
    }

    func flushEvents() {
        guard connected, !stopping else { return }
        // A throw is the connection dropping between the check and the call: the queue keeps the rest.
        events.flush { try mqtt.publish(topics.event, payload: $0.payload, qos: .atLeastOnce, retain: false) }
    }

    /// Publishes if connected. State-like topics are retained and republished in full at the
    /// next connect, so a publication missed while away needs no queue.
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool, qos: MQTTQoS = .atMostOnce) {
        guard connected, !stopping else { return }
        do {
            try mqtt.publish(topic, payload: payload, qos: qos, retain: retain)
        } catch {
            log.debug("publish to \(topic) failed: \(error)")
        }
    }
}
