import Contract
import MQTT

/// Where an incoming message goes, decided from its topic, flags and size alone: a pure value,
/// so ``AgentCore/receive(_:)`` only acts on it.
enum InboundRoute: Sendable, Equatable {
    /// A desired config cut at receipt (``AgentRunner``'s maximum): refused whatever it held.
    /// `key` is the one of a `P/config/<key>/set`; nil for `P/config/set`.
    case oversizeConfig(key: String?)
    /// The retained copy of a desired config that the resumed session delivered already: cleared.
    case retainedCopyOfDeliveredWrite
    /// A `P/config/set` object.
    case desiredConfig
    /// One value on `P/config/<key>/set`.
    case configValue(key: String)
    /// A topic under `P/config/` that is no config topic: refused.
    case strayConfig
    /// Home Assistant's live birth: discovery and the states again.
    case homeAssistantOnline
    /// `P/command/<name>`, `name` any text.
    case command(String)
    /// A retained command: one-shot, so ignored with a warning.
    case retainedCommand(String)
    /// A message on the thermometer's topic (`sensor.temperature: mqtt:<topic>`), retained or
    /// live: a thermometer's retained last value is as good as a live one, and its age is the
    /// tracker's to judge.
    case temperature
    /// Nothing to do: the deletion of a retained message (ours), a retained Home Assistant
    /// birth, or a topic the agent does not serve.
    case ignored

    /// Routes `message`.
    ///
    /// - Parameters:
    ///   - sessionResumed: whether the broker resumed our session at this connect: then a retained
    ///     desired config is the broker answering our re-SUBSCRIBE with a write already delivered.
    ///   - homeAssistantStatus: Home Assistant's status topic; nil while discovery is off.
    ///   - temperatureTopic: the thermometer's topic; nil unless `sensor.temperature` is `mqtt:`.
    init(_ message: MQTTMessage, topics: Topics, sessionResumed: Bool, homeAssistantStatus: String?,
         temperatureTopic: String? = nil) {
        let configKey = topics.configKey(ofSetTopic: message.topic)
        let isDesiredConfig = message.topic == topics.configSet || configKey != nil
        if isDesiredConfig, message.payloadLength > message.payload.count {
            self = .oversizeConfig(key: configKey)
        } else if isDesiredConfig, message.retain, sessionResumed, !message.payload.isEmpty {
            // A resumed session delivered every write made while we were away, queued in write
            // order and without the retain flag. A retained copy is the broker answering our
            // re-SUBSCRIBE (MQTT 3.1.1 always re-sends them; MQTT 5 does not, as we ask): of a
            // write already applied, or queued just before it. Applied after the queued ones, it
            // would let an older write win.
            self = .retainedCopyOfDeliveredWrite
        } else if message.topic == topics.configSet {
            // An empty payload is the deletion of a retained message (ours): not a config.
            self = message.payload.isEmpty ? .ignored : .desiredConfig
        } else if let configKey {
            self = message.payload.isEmpty ? .ignored : .configValue(key: configKey)
        } else if topics.isUnderConfig(message.topic) {
            self = message.payload.isEmpty ? .ignored : .strayConfig
        } else if let temperatureTopic, message.topic == temperatureTopic {
            // An empty payload deletes a retained value: nothing to read.
            self = message.payload.isEmpty ? .ignored : .temperature
        } else if let homeAssistantStatus, message.topic == homeAssistantStatus {
            // Home Assistant publishes its birth live; a retained `online` (some set-ups keep one)
            // would come back at every reconnect and double the re-send that birth already does.
            self = message.payloadString == "online" && !message.retain ? .homeAssistantOnline : .ignored
        } else if let command = topics.commandName(of: message.topic) {
            // A retained command would fire again at every reconnect: commands are one-shot.
            self = message.retain ? .retainedCommand(command) : .command(command)
        } else {
            self = .ignored
        }
    }
}
