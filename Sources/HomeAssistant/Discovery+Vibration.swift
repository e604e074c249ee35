import Contract
import Geometry
import Level
import Settings
import Vibration
import VibrationVocabulary

extension Discovery {
    /// Seconds after which the entities fed by `P/vibration` read unavailable:
    /// `ceil(2 × (heartbeat_s + vibration_window_s) + 10)`, as ``stateExpiryS(heartbeatS:)`` is
    /// for `P/state`.
    ///
    /// While vibration is on, the agent publishes `P/vibration` at least every `heartbeat_s`
    /// (`VibrationPublishPolicy`: a steady machine gets only heartbeats, `vibration_interval_s`
    /// only limits how often movement publishes), decided at the end of a window, so one can
    /// come up to a window late. Two such gaps tolerate one lost message; this catches an
    /// analysis that stopped while the agent stays online. 72 s with the defaults.
    public static func vibrationExpiryS(heartbeatS: Double, windowS: Double) -> Int {
        expiryS(periodS: heartbeatS + windowS)
    }

    /// The zone sensor's options: every ``SeverityZone``, `A` to `D`, as `P/vibration` writes it.
    static let zoneOptions = SeverityZone.allCases.map(\.rawValue)

    /// The level filter select's options: every ``GravityFilter``, as `P/config` reports it.
    static let filterOptions = GravityFilter.allCases.map(\.rawValue)

    /// The vibration class select's options: every ``MachineClass``, as `P/config` reports it.
    static let vibrationClassOptions = MachineClass.allCases.map(\.rawValue)

    /// `{{ value_json.<key> }}` of `P/vibration`: a null figure (no velocity band at the rate)
    /// renders `None`, which Home Assistant shows as unknown.
    ///
    /// Guarded for the empty retained message that clears `P/vibration` (at a connect with the
    /// analysis off, and when it is turned off): it renders `None`, unknown, where an unguarded
    /// `value_json` would make Home Assistant log a template error for each reading.
    static func vibrationTemplate(_ key: VibrationKey) -> String {
        "{{ value_json.\(key.rawValue) if value_json is defined else none }}"
    }

    /// The running sensor's value template: `true` → `ON`, `false` → `OFF`, and null (before the
    /// first window decides it) → `None`, unknown, rather than a stopped machine that was never
    /// measured. Guarded for the empty clearing message as ``vibrationTemplate(_:)`` is.
    static let runningTemplate = "{% if value_json is not defined %}None{% else %}"
        + booleanTemplate(VibrationKey.running.rawValue, on: "ON", off: "OFF") + "{% endif %}"

    /// The vibration switch's value template: `P/config`'s boolean as the switch's own payloads.
    static let vibrationSwitchTemplate = booleanTemplate(LiveKey.vibration.rawValue, on: "true", off: "false")

    /// The vibration readings' availability: online while the agent is (`P/status`) and
    /// `vibration` is on (`P/config`), both (`availability_mode: all`). So turning vibration off
    /// makes them unavailable, never removes them: a dashboard card or an automation that names
    /// one keeps its entity, and its history carries on when vibration comes back on.
    static func vibrationAvailability(topics: Topics) -> [String: JSONValue] {
        availability(topics: topics, alsoOn: topics.config, template: vibrationOnTemplate)
    }

    /// Online while the agent is (`P/status`) and `template` renders `online` for the last
    /// message on `topic`: both (`availability_mode: all`).
    static func availability(topics: Topics, alsoOn topic: String, template: String) -> [String: JSONValue] {
        [
            "availability": .array([
                .object(["topic": .string(topics.status), "payload_available": .string("online"),
                         "payload_not_available": .string("offline")]),
                .object(["topic": .string(topic), "value_template": .string(template),
                         "payload_available": .string("online"), "payload_not_available": .string("offline")]),
            ]),
            "availability_mode": .string("all"),
        ]
    }

    /// `P/config`'s `vibration` as an availability: `online` only for a JSON true.
    static let vibrationOnTemplate = "{{ 'online' if value_json.vibration is sameas true else 'offline' }}"

    /// The readings of `P/vibration`: velocity, acceleration, dominant frequency, zone and
    /// running, in every setting; unavailable while `vibration` is off
    /// (``vibrationAvailability(topics:)``).
    static func vibrationReadings(topics: Topics, settings: LiveSettings) -> [DiscoveryEntity] {
        let available = vibrationAvailability(topics: topics)
        let expiry = JSONValue.integer(vibrationExpiryS(heartbeatS: settings.heartbeatS, windowS: settings.vibrationWindowS))
        func reading(_ objectID: String, _ name: String, _ key: VibrationKey,
                     _ extra: [String: JSONValue]) -> DiscoveryEntity {
            var options: [String: JSONValue] = [
                "name": .string(name),
                "state_topic": .string(topics.vibration),
                "value_template": .string(vibrationTemplate(key)),
                "expire_after": expiry,
            ]
            options.merge(extra) { _, new in new }
            options.merge(available) { _, new in new }
            return DiscoveryEntity(component: "sensor", objectID: objectID, options: options)
        }
        var running: [String: JSONValue] = [
            "name": .string("Running"),
            "device_class": .string("running"),
            "state_topic": .string(topics.vibration),
            "value_template": .string(runningTemplate),
            "payload_on": .string("ON"),
            "payload_off": .string("OFF"),
            "expire_after": expiry,
        ]
        running.merge(available) { _, new in new }
        return [
            // No device_class: `speed` takes mm/s in Home Assistant 2025.4 but not in 2024.3 (its
            // units stop at ft/s, m/s, km/h, kn, mph), and a velocity RMS is no speed a user would
            // convert to km/h anyway.
            reading("velocity_rms", "Velocity RMS", .velocityRMSMillimetresPerSecond, [
                "icon": .string("mdi:vibrate"),
                "unit_of_measurement": .string("mm/s"),
                "state_class": .string("measurement"),
                "suggested_display_precision": .integer(2),
            ]),
            // No device_class: Home Assistant has no acceleration class, and g is no unit of any.
            reading("acceleration_rms", "Acceleration RMS", .accelerationRMSG, [
                "icon": .string("mdi:sine-wave"),
                "unit_of_measurement": .string("g"),
                "state_class": .string("measurement"),
                "suggested_display_precision": .integer(3),
            ]),
            reading("dominant_frequency", "Dominant frequency", .dominantHz, [
                "device_class": .string("frequency"),
                "unit_of_measurement": .string("Hz"),
                "state_class": .string("measurement"),
                "suggested_display_precision": .integer(1),
            ]),
            // An enum: no unit and no state_class, which Home Assistant refuses on one.
            reading("vibration_zone", "Vibration zone", .zone, [
                "icon": .string("mdi:gauge"),
                "device_class": .string("enum"),
                "options": .array(zoneOptions.map(JSONValue.string)),
            ]),
            DiscoveryEntity(component: "binary_sensor", objectID: "running", options: running),
        ]
    }

    /// The settings of the analysis and the level filter: the filter select, the vibration
    /// switch, the vibration class select and the running threshold, in every setting (the last
    /// two can be set before vibration is turned on).
    ///
    /// The threshold is a text entity, not a number: it is a velocity or an acceleration, and
    /// `P/config` reports it with its unit (`0.5 mm/s`, `0.02 g`), which is also what the agent
    /// reads back from `P/config/running_threshold/set`. A number in mm/s could not show a
    /// threshold in g.
    static func vibrationSettings(topics: Topics, settings: LiveSettings) -> [DiscoveryEntity] {
        var filter = settingOptions(key: LiveKey.filter.rawValue, name: "Level filter", icon: "mdi:filter-outline",
                                    topics: topics)
        filter["options"] = .array(filterOptions.map(JSONValue.string))
        var vibration = settingOptions(key: LiveKey.vibration.rawValue, name: "Vibration", icon: "mdi:vibrate",
                                       topics: topics)
        vibration["value_template"] = .string(vibrationSwitchTemplate)
        // What the agent reads on P/config/vibration/set; the state template renders the same words.
        vibration["payload_on"] = .string("true")
        vibration["payload_off"] = .string("false")
        var list = [
            DiscoveryEntity(component: "select", objectID: LiveKey.filter.rawValue, options: filter),
            DiscoveryEntity(component: "switch", objectID: LiveKey.vibration.rawValue, options: vibration),
        ]
        var machineClass = settingOptions(key: LiveKey.vibrationClass.rawValue, name: "Vibration class",
                                          icon: "mdi:engine-outline", topics: topics)
        machineClass["options"] = .array(vibrationClassOptions.map(JSONValue.string))
        list.append(DiscoveryEntity(component: "select", objectID: LiveKey.vibrationClass.rawValue, options: machineClass))
        let threshold = settingOptions(key: LiveKey.runningThreshold.rawValue, name: "Running threshold",
                                       icon: "mdi:gauge-low", topics: topics)
        list.append(DiscoveryEntity(component: "text", objectID: LiveKey.runningThreshold.rawValue, options: threshold))
        return list
    }
}
