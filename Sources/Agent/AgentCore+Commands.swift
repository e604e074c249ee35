import Configuration
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MQTT
import PlumbDomain
import Settings

extension AgentCore {
    /// Routes an incoming message: desired config, or a command.
    func receive(_ message: MQTTMessage) {
        if message.payloadLength > message.payload.count,
           message.topic == topics.configSet || topics.configKey(ofSetTopic: message.topic) != nil {
            // Cut at receipt (``AgentRunner/mqttConfiguration(_:topics:)``): over the limit whatever it holds.
            return settle(.failure(SettingsRejection(key: topics.configKey(ofSetTopic: message.topic), value: nil,
                reason: "the message is \(message.payloadLength) bytes; a config message is at most"
                    + " \(LiveSettings.maximumPayloadBytes) bytes (64 KiB).")), clearing: message.topic)
        }
        if message.retain, link.sessionResumed, !message.payload.isEmpty,
           message.topic == topics.configSet || topics.configKey(ofSetTopic: message.topic) != nil {
            // A resumed session delivered every write made while we were away, queued in write
            // order and without the retain flag. A retained copy is the broker answering our
            // re-SUBSCRIBE (MQTT 3.1.1 always re-sends them; MQTT 5 does not, as we ask): of a
            // write already applied, or queued just before it. Applied after the queued ones, it
            // would let an older write win. Cleared, so no leftover comes back later.
            log.debug("ignored the retained copy on \(message.topic.escapedForLog) of a write the session delivered")
            send(.clear(topic: message.topic))
        } else if message.topic == topics.configSet {
            // An empty payload is the deletion of a retained message (ours, below): not a config.
            guard !message.payload.isEmpty else { return }
            receiveDesiredConfig(message.payload)
        } else if let key = topics.configKey(ofSetTopic: message.topic) {
            guard !message.payload.isEmpty else { return }
            let result = Result { () throws(SettingsRejection) in try settings.applying(key: key, rawValue: message.payload) }
            if case .success = result, let key = LiveKey(rawValue: key) {
                settingsState.writeOrder.record([key], at: environment.wallClock())
            }
            settle(result, clearing: message.topic)
        } else if topics.isUnderConfig(message.topic) {
            guard !message.payload.isEmpty else { return }
            refuseConfigTopic(message)
        } else if let discovery, message.topic == discovery.options.statusTopic {
            // Home Assistant publishes its birth live; a retained `online` (some set-ups keep one)
            // would come back at every reconnect and double the re-send that birth already does.
            if message.payloadString == "online", !message.retain { homeAssistantCameOnline() }
        } else if let command = topics.commandName(of: message.topic) {
            // A retained command would fire again at every reconnect: commands are one-shot.
            guard !message.retain else {
                log.warning("ignored a retained \(command.escapedForLog) command; publish commands without the retain flag.")
                return
            }
            run(command: command, payload: message.payload)
        }
    }

    /// A `P/config/set` object: applied but for the keys a later write already set (when the
    /// writer stamped it `written_at`; see ``WriteOrder``), which are left as they are.
    func receiveDesiredConfig(_ payload: [UInt8]) {
        let now = environment.wallClock()
        var desired: DesiredConfig
        do {
            desired = try LiveSettings.desiredConfig(json: payload)
        } catch {
            return settle(.failure(error), clearing: topics.configSet)
        }
        if let writtenAt = desired.writtenAt, writtenAt > now + WriteOrder.maximumLead {
            let ahead = Int(writtenAt - now)
            return settle(.failure(SettingsRejection(key: DesiredConfig.writtenAtKey, value: "\(writtenAt)", reason:
                "\"written_at\" is \(ahead) s ahead of the agent's clock; nothing was applied. Check that the writer's"
                + " clock and the agent's are set (NTP), or leave written_at out.")), clearing: topics.configSet)
        }
        var superseded: [LiveKey] = []
        if let writtenAt = desired.writtenAt {
            superseded = settingsState.writeOrder.superseded(desired.keys, writtenAt: writtenAt).sorted { $0.rawValue < $1.rawValue }
            guard superseded.isEmpty || superseded.count < desired.settings.count else {
                let later = superseded.map { "\($0.rawValue) at \(settingsState.writeOrder.lastWritten($0) ?? 0)" }.joined(separator: ", ")
                return settle(.failure(SettingsRejection(key: nil, value: nil, reason:
                    "every key of this write (written_at \(writtenAt)) was written later (\(later)); nothing was"
                    + " applied: the later write stands.")), clearing: topics.configSet)
            }
            for key in superseded { desired.settings.removeValue(forKey: key.rawValue) }
        }
        let result = Result { () throws(SettingsRejection) in try settings.applying(desired) }
        if case .success = result { settingsState.writeOrder.record(desired.keys, at: desired.writtenAt ?? now) }
        settle(result, clearing: topics.configSet, superseded: superseded)
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
            var details: [String: JSONValue] = ["reason": .string(rejection.reason)]
            details["key"] = rejection.key.map(JSONValue.string) ?? .null
            details["value"] = rejection.value.map(JSONValue.string) ?? .null
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
        emit(AgentEvent(type: .configRejected, details: ["reason": .string(reason), "key": .null, "value": .null]))
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
        pipeline.reconfigure(Self.pipelineSettings(new, calibration: calibration))
        state.reconfigure(new)
        configureVibration(new.vibration)
        publishDiscovery(force: false)
        publishConfig()
        if !fromFile {
            var details: [String: JSONValue] = ["changes": .object(changes)]
            if !superseded.isEmpty { details["superseded"] = .array(superseded.map { .string($0.rawValue) }) }
            do {
                try store.save(settings: new)
            } catch {
                log.error("could not persist the settings: \(error)")
                details["persisted"] = .bool(false)
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
            emit(AgentEvent(type: .zeroed, details: ["reference": .null, "stable": .null]))
            publishState(reason: .zeroCleared)
        case .republish:
            publishBirth()
        case .calibrateReversal:
            calibrateReversal(payload: payload)
        case .calibrateSixPoint:
            calibrateSixPoint(payload: payload)
        case .clearCalibration:
            clearCalibration()
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
        emit(AgentEvent(type: .zeroed, details: ["reference": averaged.jsonG(decimals: 5), "stable": .bool(true)]))
        state.force()
        publishState(reason: .zeroed)
    }

    private func rejectZero(_ reason: String, stable: Bool?) {
        log.warning("zero refused: " + reason)
        emit(AgentEvent(type: .zeroRejected, details: ["reason": .string(reason), "stable": stable.map(JSONValue.bool) ?? .null]))
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
