import Contract
import HomeAssistant
import MQTT
import PlumbDomain
import Settings

/// How the agent appears in Home Assistant: `mqtt.discovery`, `mqtt.discovery_prefix` and the
/// device block. nil in ``AgentCore`` when discovery is off.
public struct HomeAssistantOptions: Sendable, Equatable {
    /// `homeassistant` by default.
    public var prefix: String
    public var device: DiscoveryDevice

    public init(prefix: String, device: DiscoveryDevice) {
        self.prefix = prefix
        self.device = device
    }

    /// `<prefix>/status`: Home Assistant's birth (`online`) and will (`offline`).
    public var statusTopic: String { prefix + "/status" }
}

extension AgentCore {
    /// The wait after Home Assistant's `online` before discovery is re-sent: randomised, so a
    /// fleet of devices doesn't answer an HA restart all in the same instant.
    static let homeAssistantDelay: ClosedRange<Double> = 1...5

    // MARK: Discovery

    /// Publishes the discovery configs that differ from what was last published (all of them
    /// after `force`), retained, after clearing the ones last published that the settings no
    /// longer publish.
    ///
    /// A changed angle unit thereby removes the old unit's three sensors from Home Assistant (an
    /// empty retained config) and adds the new unit's three, and sends nothing else: each unit is
    /// an entity of its own (see `Discovery.angleObjectID`).
    func publishDiscovery(force: Bool) {
        guard let homeAssistant, connected, !stopping else { return }
        let messages = Discovery.messages(prefix: homeAssistant.prefix, topics: topics, device: homeAssistant.device,
                                          settings: settings)
        let current = Set(messages.map(\.topic))
        // Removals first, so Home Assistant drops the old unit's entities before it adds the new ones.
        for topic in publishedDiscovery.keys.sorted() where !current.contains(topic) {
            publish(topic, [], retain: true, qos: .atLeastOnce)
            publishedDiscovery[topic] = nil
        }
        for message in messages where force || publishedDiscovery[message.topic] != message.payload {
            publish(message.topic, message.payload, retain: true, qos: .atLeastOnce)
            publishedDiscovery[message.topic] = message.payload
        }
    }

    /// Clears, once per connect and before the configs, the discovery topics a run in another
    /// angle unit or an older version may have left retained (`Discovery.staleRemovals`).
    ///
    /// Nine small empty messages, where watching the device's discovery filter instead would make
    /// the agent a subscriber to its own configs: every config it publishes (twenty-odd at each
    /// connect and Home Assistant restart) would come back to it, and it could never tell when
    /// the broker had delivered all the retained ones.
    func clearStaleDiscovery() {
        guard let homeAssistant, connected, !stopping else { return }
        for message in Discovery.staleRemovals(prefix: homeAssistant.prefix, deviceID: homeAssistant.device.id,
                                               settings: settings) {
            publish(message.topic, message.payload, retain: true, qos: .atLeastOnce)
        }
        // Everything the settings don't publish is cleared now, whatever was published before.
        publishedDiscovery = [:]
    }

    /// Home Assistant said `online` (it started): after a random 1–5 s, discovery and then the
    /// current states again. A later `online` within the delay replaces the pending one.
    func homeAssistantCameOnline() {
        guard homeAssistant != nil else { return }
        homeAssistantGeneration += 1
        let generation = homeAssistantGeneration
        let delay = Double.random(in: Self.homeAssistantDelay)
        log.info("Home Assistant is online; re-sending discovery in \(delay.rounded(toDecimals: 1)) s")
        Task {
            try? await Task.sleep(for: .seconds(delay))
            self.resendToHomeAssistant(generation: generation)
        }
    }

    func resendToHomeAssistant(generation: Int) {
        guard generation == homeAssistantGeneration, connected, !stopping else { return }
        publishDiscovery(force: true)
        publish(topics.status, Array("online".utf8), retain: true, qos: .atLeastOnce)
        publishConfig()
        publishCalibration()
        publishLevel()
        publishState(reason: "home assistant")
        if healthIsReady { publishHealth(at: clock()) }
        bubbleNeedsSending = true
    }

    // MARK: The bubble picture

    /// The picture of the last published state: it changes only when the state does, so a
    /// still machine sends no pictures, and noise below the publish deadband redraws nothing.
    func bubblePicture() -> BubblePicture {
        let level = pipeline.isLevel ?? state.gravity.map { Attitude(gravity: $0).isLevel(tolerance: settings.levelTolerance) }
        return BubblePicture(levelGravity: sensorOK ? state.gravity : nil, mount: settings.mount,
                             tolerance: settings.levelTolerance, level: level ?? false, unit: settings.angleUnit)
    }

    /// Publishes `P/bubble` (retained, `image/svg+xml`) when the picture changed or must be
    /// re-sent, at most once a second.
    func publishBubbleIfChanged(at now: Double) {
        guard connected, !stopping, state.gravity != nil || sensorFaultMessage != nil else { return }
        guard now - lastBubbleTime >= Self.bubbleInterval else { return }
        let svg = bubblePicture().svg
        guard bubbleNeedsSending || svg != lastBubble else { return }
        publish(topics.bubble, Array(svg.utf8), retain: true)
        lastBubble = svg
        lastBubbleTime = now
        bubbleNeedsSending = false
    }

    /// Seconds between two pictures at the most.
    static let bubbleInterval = 1.0
}
