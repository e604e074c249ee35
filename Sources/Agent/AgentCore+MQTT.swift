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
            guard let line = link.connected(connection) else { return }
            log.info(line)
            // Birth in full even when the session was resumed: the retained topics may have been
            // cleared or changed while we were away, and on another broker they were never ours.
            publishBirth()
        case .disconnected(let error):
            link.lost()
            if let error, !link.isStopping { log.warning(Sentences.join("lost the broker: \(error)", "Reconnecting with backoff.")) }
        case .connectionFailed(let error):
            link.lost()
            log.warning("cannot reach the broker: \(error)")
        case .message(let message):
            receive(message)
        case .inboundStalled(let stall):
            let (line, isNew) = link.stalled(stall, probeTopic: topics.inboundProbe)
            if isNew { log.warning(line) } else { log.info(line) }
        case .inboundProbeFailed(let failure):
            log.warning(BrokerLink.probeFailed(failure, probeTopic: topics.inboundProbe))
        }
    }

    /// Everything a subscriber needs after we (re)connect: status, config, level, state, the
    /// events queued while away, then health (so its queue counts are the ones after the flush).
    func publishBirth() {
        // Discovery first: Home Assistant creates the entities, then hears them come online.
        clearStaleDiscovery()
        publishDiscovery(force: true)
        bubble.resend()
        publish(topics.status, Array("online".utf8), retain: true, qos: .atLeastOnce)
        publishConfig()
        publishCalibration()
        publishLevel()
        publishState(reason: "birth")
        // The next window goes out whatever the interval: the broker may have lost the retained one.
        // With the analysis off, a retained P/vibration from an earlier run would stand as current.
        if let vibration { vibration.force() } else { publish(topics.vibration, [], retain: true) }
        flushEvents()
        // Not before the first rate measurement: a health message then would report 0 Hz.
        if healthIsReady { publishHealth(at: clock()) }
    }

    // MARK: Publications

    func publishState(reason: String) {
        let now = clock()
        guard let payload = state.message(for: pipeline.latest, level: pipeline.isLevel, alarm: pipeline.isAlarm,
                                          sensorOK: sensorOK, sensorFaulty: sensorFaultMessage != nil,
                                          unit: settings.angleUnit, reason: reason, at: now) else { return }
        log.debug("state (\(reason)) seq \(payload.seq)")
        publish(topics.state, encodeJSON(payload), retain: true)
        publishBubbleIfChanged(at: now)
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
        guard link.canPublish else { return }
        // A throw is the connection dropping between the check and the call: the queue keeps the rest.
        events.flush { try mqtt.publish(topics.event, payload: $0.payload, qos: .atLeastOnce, retain: false) }
    }

    /// Publishes if connected. State-like topics are retained and republished in full at the
    /// next connect, so a publication missed while away needs no queue.
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool, qos: MQTTQoS = .atMostOnce) {
        guard link.canPublish else { return }
        do {
            try mqtt.publish(topic, payload: payload, qos: qos, retain: retain)
        } catch {
            log.debug("publish to \(topic) failed: \(error)")
        }
    }
}
