import Configuration
import Contract
import FoundationEssentials
import Persistence
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import MQTT
import Settings

extension AgentCore {
    /// Acts on an incoming message as ``InboundRoute`` routes it: desired config, or a command.
    func receive(_ message: MQTTMessage) {
        let route = InboundRoute(message, topics: topics, sessionResumed: link.sessionResumed,
                                 homeAssistantStatus: discovery?.options.statusTopic, temperatureTopic: temperature.topic)
        switch route {
        case .oversizeConfig(let key):
            // Cut at receipt (``AgentRunner/mqttConfiguration(_:topics:)``): over the limit whatever it holds.
            settle(.failure(SettingsRejection(key: key, value: nil,
                reason: "the message is \(message.payloadLength) bytes; a config message is at most"
                    + " \(LiveSettings.maximumPayloadBytes) bytes (64 KiB).")), clearing: message.topic)
        case .retainedCopyOfDeliveredWrite:
            // Cleared, so no leftover comes back later.
            log.debug("ignored the retained copy on \(message.topic.escapedForLog) of a write the session delivered")
            send(.clear(topic: message.topic))
        case .desiredConfig:
            let (result, superseded) = settingsState.write(desired: message.payload, now: environment.wallClock())
            settle(result, clearing: message.topic, superseded: superseded)
        case .configValue(let key):
            settle(settingsState.write(key: key, rawValue: message.payload, now: environment.wallClock()),
                   clearing: message.topic)
        case .strayConfig:
            refuseConfigTopic(message)
        case .homeAssistantOnline:
            homeAssistantCameOnline()
        case .retainedCommand(let command):
            log.warning("ignored a retained \(command.escapedForLog) command; publish commands without the retain flag.")
        case .command(let command):
            run(command: command, payload: message.payload)
        case .temperature:
            receiveTemperature(message.payloadLength > message.payload.count
                               ? [UInt8](repeating: 0x20, count: TemperatureMessage.maximumBytes + 1) : message.payload)
        case .ignored:
            break
        }
    }

    /// Applies or rejects a desired config, then deletes the retained desired-config message.
    ///
    /// Deleting it is what makes "last write per key wins" survive restarts: the applied value
    /// lives on in the state directory and in `P/config`, and no older retained desired value is
    /// left on the broker to come back when the agent or the broker restarts.
    /// `superseded` are keys the message held that a later write had set: applied without them.
    func settle(_ result: Result<LiveSettings, SettingsRejection>, clearing topic: String, superseded: [LiveKey] = []) {
        switch result {
        case .success(let new):
            apply(new, superseded: superseded)
        case .failure(let rejection):
            log.warning("config rejected: \(rejection.description.escapedForLog(limit: 1000))")
            var details: [EventKey: JSONValue] = [.reason: .string(rejection.reason)]
            details[.key] = rejection.key.map(JSONValue.string) ?? .null
            details[.value] = rejection.value.map(JSONValue.string) ?? .null
            emit(AgentEvent(type: .configRejected, details: details))
        }
        send(.clear(topic: topic))
    }

    /// A message under `P/config/` on a topic that is neither `P/config/set` nor
    /// `P/config/<key>/set`: refused with `config_rejected`, and cleared when it was retained,
    /// so no stray desired config lingers on the broker to confuse the next reader.
    ///
    /// Retained whether it came at our subscribe or live: the stray filter keeps the publisher's
    /// flag (MQTT 5 retain-as-published). On MQTT 3.1.1 the flag of a live message says nothing,
    /// so every stray is cleared there: an empty retained message, a no-op when nothing was kept.
    func refuseConfigTopic(_ message: MQTTMessage) {
        let topic = String(message.topic.unicodeScalars.prefix(200)) + (message.topic.unicodeScalars.count > 200 ? "…" : "")
        let reason = "\(topic) is not a config topic; send a JSON object of settings to \(topics.configSet), or one value"
            + " to \(topics.configSet(key: "<key>")), where the keys are: \(LiveKey.list)."
        log.warning("config rejected: \(reason.escapedForLog(limit: 1000))")
        emit(AgentEvent(type: .configRejected, details: [.reason: .string(reason), .key: .null, .value: .null]))
        if message.retain || !link.retainFlagIsAsPublished { send(.clear(topic: message.topic)) }
    }

    /// Makes `new` the effective settings: live and reported; persisted and announced with
    /// `config_applied` when they came over MQTT. Settings from the file are not persisted:
    /// the file stays their source, so a later edit of it still counts.
    func apply(_ new: LiveSettings, fromFile: Bool = false, superseded: [LiveKey] = []) {
        let changes = Self.differences(from: settings, to: new)
        let old = settingsState.use(new, fromFile: fromFile)
        if new.sampleRateHz != old.sampleRateHz {
            sampling.setRate(new.sampleRateHz)
            failSixPoint(rateChangedTo: new.sampleRateHz)
        }
        pipeline.reconfigure(pipelineSettings(new))
        state.reconfigure(new)
        configureVibration(new.vibration(atRateHz: sensor.operatingPoint.rateHz))
        publishDiscovery(force: false)
        publishConfig()
        if !fromFile {
            var details: [EventKey: JSONValue] = [.changes: .object(changes)]
            if !superseded.isEmpty { details[.superseded] = .array(superseded.map { .string($0.rawValue) }) }
            do {
                try store.save(settings: new)
            } catch {
                log.error("could not persist the settings: \(error)")
                details[.persisted] = .bool(false)
            }
            emit(AgentEvent(type: .configApplied, details: details))
        }
        publishState(reason: .config)
    }

    /// The keys whose effective values differ, with their new values.
    static func differences(from old: LiveSettings, to new: LiveSettings) -> [String: JSONValue] {
        func object(_ settings: LiveSettings) -> [String: JSONValue] {
            (try? JSONDecoder().decode([String: JSONValue].self, from: Data(settings.encodedEffectiveConfig()))) ?? [:]
        }
        let before = object(old)
        return object(new).filter { before[$0.key] != $0.value }
    }

    // MARK: Commands

    /// The commands the agent runs: every one in the contract.
    static let runnableCommands = Command.allCases

    /// Runs the command named `name`, the last level of its topic, which may be any text, with
    /// its payload (read by `calibrate_reversal` and `calibrate_six_point` only; the others take any, as buttons send `PRESS`).
    func run(command name: String, payload: [UInt8] = []) {
        switch Command(rawValue: name) {
        case .zero:
            zero()
        case .clearZero:
            pipeline.setZero(nil)
            persistZero()
            // Nothing was read, so there is no stability to report.
            emit(AgentEvent(type: .zeroed, details: [.reference: .null, .stable: .null]))
            publishState(reason: .zeroCleared)
        case .republish:
            publishBirth()
        case .calibrateReversal:
            calibrateReversal(payload: payload)
        case .calibrateSixPoint:
            calibrateSixPoint(payload: payload)
        case .clearCalibration:
            clearCalibration()
        case .learnDrift:
            learnDrift(payload: payload)
        case .selftest:
            selfTest()
        case nil:
            log.warning("unknown command '\(name.escapedForLog)'; the commands are \(Command.list(Self.runnableCommands)).")
        }
    }

    /// `zero`: the current reading becomes level, only when it is stable, since a zero taken
    /// while the device moves would offset every later reading.
    func zero() {
        guard sensor.mayReport, let measurement = pipeline.latest else {
            return rejectZero("there is no current reading (the sensor is starting, faulty or running a self-test);"
                              + " send zero again once it reads.", stable: nil)
        }
        guard measurement.isStable else {
            return rejectZero("the reading is not stable (the device is moving or shaking); hold it still and send"
                              + " zero again.", stable: false)
        }
        guard let averaged = pipeline.zeroHere() else { return }
        persistZero()
        emit(AgentEvent(type: .zeroed, details: [.reference: averaged.jsonG(decimals: 5), .stable: .bool(true)]))
        state.force()
        publishState(reason: .zeroed)
    }

    private func rejectZero(_ reason: String, stable: Bool?) {
        log.warning("zero refused: " + reason)
        emit(AgentEvent(type: .zeroRejected, details: [.reason: .string(reason), .stable: stable.map(JSONValue.bool) ?? .null]))
    }

    func persistZero() {
        do {
            try store.save(zero: pipeline.zeroGravity.flatMap { ZeroReference(referenceGravity: $0) })
        } catch {
            log.error("could not persist the zero reference: \(error)")
        }
    }

    // MARK: Reload

    /// SIGHUP: new file defaults. Settings changed over MQTT stay in force; when none were, the
    /// file's level settings apply at once.
    public func reload(defaults newDefaults: LiveSettings) {
        switch settingsState.reload(defaults: newDefaults) {
        case .keptMQTTSettings:
            log.info("config file reloaded; settings changed over MQTT stay in force over its level section.")
        case .apply(let settings):
            apply(settings, fromFile: true)
            log.info("config file reloaded and applied.")
        case .unchanged:
            log.info("config file reloaded; nothing changed.")
        }
    }
}
