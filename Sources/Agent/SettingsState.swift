import Settings

/// The settings in force, where they came from, and when each key was last written: what
/// ``AgentCore`` decides a write or a reload by. A value with no I/O.
struct SettingsState: Sendable, Equatable {
    /// The effective settings.
    private(set) var current: LiveSettings
    /// Whether the settings came from MQTT (now or persisted) rather than from the file.
    private(set) var fromMQTT: Bool
    /// Per key, when the write in force was written: a late, older write loses.
    var writeOrder = WriteOrder()

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
}
