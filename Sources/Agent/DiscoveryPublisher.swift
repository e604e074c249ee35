import Contract
import HomeAssistant
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

/// Which Home Assistant discovery configs to send: what was last published, so only changes go
/// out, and which re-send after Home Assistant's `online` is the current one.
///
/// A value type with no I/O: it returns the messages and ``AgentCore`` publishes each one
/// retained at QoS 1, as ``DiscoveryMessage`` prescribes. Ask it only while connected: what it
/// returns counts as published.
struct DiscoveryPublisher: Sendable {
    /// The wait after Home Assistant's `online` before discovery is re-sent: randomised, so a
    /// fleet of devices doesn't answer an HA restart all in the same instant.
    static let homeAssistantDelay: ClosedRange<Double> = 1...5

    private(set) var options: HomeAssistantOptions
    let topics: Topics
    /// The payload last published on each config topic.
    private(set) var published: [String: [UInt8]] = [:]
    /// Counts Home Assistant's `online` messages: only the re-send for the latest goes out.
    private(set) var generation = 0

    init(options: HomeAssistantOptions, topics: Topics) {
        self.options = options
        self.topics = topics
    }

    /// Names the chip the sampler opened in the device block; whether that changed it (then
    /// ``messages(for:force:)`` sends every config again, as each carries the device block).
    mutating func useChip(model: String) -> Bool {
        let named = DiscoveryDevice.model(chipModel: model)
        guard options.device.model != named else { return false }
        options.device.model = named
        return true
    }

    /// The configs that differ from what was last published (all of them after `force`), after
    /// empty ones clearing the configs last published that `settings` no longer publish.
    ///
    /// No setting adds or removes an entity: a changed angle unit re-sends the slope sensor's
    /// config alone (its unit), a new name every config (the device block), and turning
    /// `vibration` off or on sends nothing (the vibration readings' availability reads
    /// `P/config`). The removals cover a changed discovery prefix or device id.
    mutating func messages(for settings: LiveSettings, force: Bool) -> [DiscoveryMessage] {
        let messages = Discovery.messages(prefix: options.prefix, topics: topics, device: options.device,
                                          settings: settings)
        let current = Set(messages.map(\.topic))
        // Removals first, so Home Assistant drops the old unit's entities before it adds the new ones.
        var send: [DiscoveryMessage] = []
        for topic in published.keys.sorted() where !current.contains(topic) {
            send.append(DiscoveryMessage(topic: topic, payload: []))
            published[topic] = nil
        }
        for message in messages where force || published[message.topic] != message.payload {
            send.append(message)
            published[message.topic] = message.payload
        }
        return send
    }

    /// The empty configs clearing, once per connect and before the configs, the discovery topics
    /// an older version may have left retained: its angle sensors per unit and without one
    /// (`Discovery.staleRemovals`); nothing counts as published after, so the configs that follow
    /// all go out.
    ///
    /// Fifteen small empty messages, where watching the device's discovery filter instead would make
    /// the agent a subscriber to its own configs: every config it publishes (sixty-odd at each
    /// connect and Home Assistant restart) would come back to it, and it could never tell when
    /// the broker had delivered all the retained ones.
    mutating func staleRemovals() -> [DiscoveryMessage] {
        published = [:]
        return Discovery.staleRemovals(prefix: options.prefix, homeAssistantID: options.device.id)
    }

    /// Home Assistant said `online`: the generation of the re-send it asks for, which replaces
    /// any still pending.
    mutating func homeAssistantCameOnline() -> Int {
        generation += 1
        return generation
    }

    /// Whether the re-send of `generation` is still the one wanted: no later `online` came.
    func isCurrent(_ generation: Int) -> Bool {
        generation == self.generation
    }
}
