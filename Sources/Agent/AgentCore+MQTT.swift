import Contract
import Geometry
import Level
import MQTT
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
        clearBubbleWithoutDiscovery()
        bubble.resend()
        send(.status(online: true))
        publishConfig()
        publishCalibration()
        publishLevel()
        publishState(reason: .birth)
        // The next window goes out whatever the interval: the broker may have lost the retained one.
        // With the analysis off, a retained P/vibration from an earlier run would stand as current.
        if let monitor = vibration.monitor { monitor.force() } else { send(.vibration(nil)) }
        flushEvents()
        if let lastResult { send(.result(lastResult)) }
        // Not before the first rate measurement: a health message then would report 0 Hz.
        if healthIsReady { publishHealth(at: clock()) }
    }

    // MARK: Publications

    func publishState(reason: PublishReason) {
        let now = clock()
        guard let payload = state.message(for: pipeline.latest, level: pipeline.isLevel, alarm: pipeline.isAlarm,
                                          sensorOK: sensor.mayReport, sensorFaulty: sensor.isFaulty,
                                          unit: settings.angleUnit, reason: reason, at: now) else { return }
        log.debug("state (\(reason)) seq \(payload.seq)")
        send(.state(payload, reason: reason))
        publishBubbleIfChanged(at: now)
    }

    func publishLevel() {
        guard let level = pipeline.isLevel else { return }
        send(.level(level))
    }

    func publishConfig() {
        send(.config(settings.encodedEffectiveConfig()))
    }

    /// Sends an event now, or keeps it for after the reconnect; the listeners hear it at once.
    func emit(_ event: AgentEvent) {
        log.info("event \(event.type.rawValue)")
        listeners.tell(event)
        events.append(event)
        flushEvents()
        if let result = CommandResult(event) {
            lastResult = result
            send(.result(result))
        }
    }

    /// Hands every event from now on to `listener`, on the agent's actor, as it goes to
    /// `P/event`, whether or not the broker is connected. It must return at once (queue the
    /// event, never block or call back into the agent synchronously). Returns the id for
    /// ``removeEventListener(_:)``.
    public func addEventListener(_ listener: @escaping @Sendable (AgentEvent) -> Void) -> Int {
        listeners.add(listener)
    }

    /// Stops handing events to the listener `id`; an unknown id is ignored.
    public func removeEventListener(_ id: Int) {
        listeners.remove(id)
    }

    func flushEvents() {
        guard link.canPublish else { return }
        // A throw is the connection dropping between the check and the call: the queue keeps the rest.
        events.flush { try deliver(.event($0)) }
    }

    /// The outbox: publishes if connected, else drops it (state-like topics are retained and
    /// republished in full at the next connect; events wait in ``EventQueue``).
    func send(_ publication: Publication) {
        guard link.canPublish else { return }
        do {
            try deliver(publication)
        } catch {
            log.debug("publish to \(publication.topic(in: topics)) failed: \(error)")
        }
    }

    /// Hands `publication` to the client, as its topic, payload, QoS and retain flag say.
    private func deliver(_ publication: Publication) throws {
        try environment.mqtt.publish(publication.topic(in: topics), payload: publication.payload, qos: publication.qos,
                                     retain: publication.retain)
    }
}
