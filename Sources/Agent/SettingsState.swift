import Settings

/// The settings in force, where they came from, and when each key was last written: what
/// ``AgentCore`` decides a write or a reload by. A value with no I/O.
struct SettingsState: Sendable, Equatable {
    /// The effective settings.
    private(set) var current: LiveSettings
    /// Whether the settings came from MQTT (now or persisted) rather than from the file.
    private(set) var fromMQTT: Bool
    /// Per key, when the write in force was written: a late, older write loses.
    private(set) var writeOrder = WriteOrder()

    init(_ settings: LiveSettings, fromMQTT: Bool) {
        current = settings
        self.fromMQTT = fromMQTT
    }

    /// What a reload of the config file does.
    enum Reload: Sendable, Equatable {
        /// Settings changed over MQTT stay in force over the file's.
        case keptMQTTSettings
        /// The file's settings apply.
        case apply(LiveSettings)
        /// The file says what is in force already.
        case unchanged
    }

    /// What reloading the file's `defaults` does: only settings that never came over MQTT follow
    /// the file.
    func reload(defaults: LiveSettings) -> Reload {
        if fromMQTT { return .keptMQTTSettings }
        return defaults != current ? .apply(defaults) : .unchanged
    }

    /// Makes `new` the settings in force; from MQTT unless `fromFile`. Returns the old ones.
    mutating func use(_ new: LiveSettings, fromFile: Bool) -> LiveSettings {
        let old = current
        current = new
        if !fromFile { fromMQTT = true }
        return old
    }

    /// A write on `P/config/<key>/set` at `now` (Unix seconds): the settings it makes, its key
    /// recorded as written now; or why it is refused. Nothing is in force until ``use(_:fromFile:)``.
    mutating func write(key: String, rawValue payload: [UInt8], now: Double) -> Result<LiveSettings, SettingsRejection> {
        let result = Result { () throws(SettingsRejection) in try current.applying(key: key, rawValue: payload) }
        if case .success = result, let key = LiveKey(rawValue: key) { writeOrder.record([key], at: now) }
        return result
    }

    /// A `P/config/set` object at `now` (Unix seconds): the settings it makes but for the keys a
    /// later write already set (when the writer stamped it `written_at`; see ``WriteOrder``),
    /// which are left as they are and returned as `superseded`; or why it is refused.
    mutating func write(desired payload: [UInt8], now: Double)
        -> (result: Result<LiveSettings, SettingsRejection>, superseded: [LiveKey]) {
        var desired: DesiredConfig
        do {
            desired = try LiveSettings.desiredConfig(json: payload)
        } catch {
            return (.failure(error), [])
        }
        if let writtenAt = desired.writtenAt, writtenAt > now + WriteOrder.maximumLead {
            let ahead = Int(writtenAt - now)
            return (.failure(SettingsRejection(key: DesiredConfig.writtenAtKey, value: "\(writtenAt)", reason:
                "\"written_at\" is \(ahead) s ahead of the agent's clock; nothing was applied. Check that the writer's"
                + " clock and the agent's are set (NTP), or leave written_at out.")), [])
        }
        var superseded: [LiveKey] = []
        if let writtenAt = desired.writtenAt {
            superseded = writeOrder.superseded(desired.keys, writtenAt: writtenAt).sorted { $0.rawValue < $1.rawValue }
            guard superseded.isEmpty || superseded.count < desired.settings.count else {
                let later = superseded.map { "\($0.rawValue) at \(writeOrder.lastWritten($0) ?? 0)" }.joined(separator: ", ")
                return (.failure(SettingsRejection(key: nil, value: nil, reason:
                    "every key of this write (written_at \(writtenAt)) was written later (\(later)); nothing was"
                    + " applied: the later write stands.")), [])
            }
            for key in superseded { desired.settings.removeValue(forKey: key.rawValue) }
        }
        let result = Result { () throws(SettingsRejection) in try current.applying(desired) }
        if case .success = result { writeOrder.record(desired.keys, at: desired.writtenAt ?? now) }
        return (result, superseded)
    }
}
