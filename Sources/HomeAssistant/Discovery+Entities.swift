import Contract
import Geometry
import Level
import Settings
import Thermal

/// One entity's own options, before the shared availability, device, origin and unique id.
struct DiscoveryEntity: Sendable, Equatable {
    /// The Home Assistant platform: `sensor`, `binary_sensor`, `number`, `select`, `switch`, `text`,
    /// `button`, `camera`.
    var component: String
    /// The object id in the topic and the unique id: `tilt_deg`, `level_tolerance`, …
    var objectID: String
    var options: [String: JSONValue]
}

extension Discovery {
    /// The angle-unit select's options: every `angle_unit` value, as `P/config` reports it.
    static let angleUnitOptions = AngleUnit.allCases.map(\.rawValue)

    /// The alarm's value template: `true` → `ON`, `false` → `OFF`, null → `None` (unknown).
    static let alarmTemplate = booleanTemplate("alarm", on: "ON", off: "OFF")

    /// A JSON boolean `key` as `on` or `off`, null as `None` (Home Assistant's unknown). Anything
    /// else renders nothing, which Home Assistant ignores.
    static func booleanTemplate(_ key: String, on: String, off: String) -> String {
        "{% if value_json.\(key) is none %}None{% elif value_json.\(key) is sameas true %}\(on)"
            + "{% elif value_json.\(key) is sameas false %}\(off){% endif %}"
    }

    /// The mount select's options: `flat`, `upright`, and the current mount when it is a custom
    /// remap, because Home Assistant ignores a state that is not one of the options and would
    /// otherwise show the mount as unknown. (A remap can only be chosen with `P/config/set`.)
    static func mountOptions(current: Mount) -> [String] {
        let named = [Mount.flat.name, Mount.upright.name]
        return named.contains(current.name) ? named : named + [current.name]
    }

    /// The angle sensors, always in degrees: the key in `P/state` (read as its degrees twin,
    /// `<key>_deg`) and the entity name. The uncertainty is one too: the 95 % bound on the tilt's
    /// error.
    static let angleSensors = [("tilt", "Tilt"), ("roll", "Roll"), ("pitch", "Pitch"), ("uncertainty", "Uncertainty")]

    /// `Tilt (°)`: Home Assistant derives a new entity's id from the device's and the entity's
    /// names, and its slugify writes `°` as `deg`, so a device discovered now gets
    /// `sensor.<device>_tilt_deg`, the id a device discovered by an earlier version already has
    /// (its object id, and so its unique id, is the same). One id for every install is what lets
    /// `plumb dashboard` and a pasted dashboard name the entity.
    static func angleEntityName(_ name: String) -> String {
        "\(name) (\(AngleUnit.deg.symbol))"
    }

    /// The slope sensor: the tilt in `angle_unit`, the one angle entity that follows the setting.
    /// No state class: Home Assistant's long-term statistics refuse a unit change (they stop
    /// compiling until the person repairs them), and there is no conversion between `°`, `%`,
    /// `mm/m` and `in/ft` to make one. Its state history keeps each value with its unit. No
    /// suggested display precision either, which Home Assistant fixes when the entity is first
    /// added: the value comes rounded to the unit's own decimals.
    static func slopeSensor(topics: Topics, unit: AngleUnit, expiry: JSONValue) -> DiscoveryEntity {
        DiscoveryEntity(component: "sensor", objectID: slopeObjectID, options: [
            "name": .string("Slope"),
            "icon": .string("mdi:slope-uphill"),
            "state_topic": .string(topics.state),
            "value_template": .string("{{ value_json.tilt }}"),
            "unit_of_measurement": .string(unit.symbol),
            "expire_after": expiry,
        ])
    }

    /// Every entity, in publishing order: readings, level and alarm, the vibration readings,
    /// settings, commands, diagnostics, the picture. The vibration readings and the vibration
    /// settings but its switch are left out while `vibration` is off.
    static func entities(topics: Topics, settings: LiveSettings) -> [DiscoveryEntity] {
        let stateExpiry = JSONValue.integer(stateExpiryS(heartbeatS: settings.heartbeatS))
        var list: [DiscoveryEntity] = angleSensors.map { key, name in
            // No device_class: Home Assistant has no angle class.
            DiscoveryEntity(component: "sensor", objectID: angleObjectID(key), options: [
                "name": .string(angleEntityName(name)),
                "icon": .string(key == "uncertainty" ? "mdi:plus-minus-variant" : "mdi:angle-acute"),
                "state_topic": .string(topics.state),
                // A null angle (sensor fault) renders `None`, which Home Assistant shows as
                // unknown rather than as a stale number.
                "value_template": .string("{{ value_json.\(key)_deg }}"),
                "unit_of_measurement": .string(AngleUnit.deg.symbol),
                "suggested_display_precision": .integer(AngleUnit.deg.displayDecimals),
                "state_class": .string("measurement"),
                "expire_after": stateExpiry,
            ])
        }
        list.append(slopeSensor(topics: topics, unit: settings.angleUnit, expiry: stateExpiry))
        list.append(DiscoveryEntity(component: "sensor", objectID: "temperature", options: [
            "name": .string("Temperature"),
            "device_class": .string("temperature"),
            "state_topic": .string(topics.state),
            // Null while it is stale: `None`, unknown, not a stale figure. Without a source it is
            // unavailable instead (``thermometerAvailability(topics:)``).
            "value_template": .string("{{ value_json.temperature }}"),
            "unit_of_measurement": .string("°C"),
            "suggested_display_precision": .integer(1),
            "state_class": .string("measurement"),
            "expire_after": stateExpiry,
        ].merging(thermometerAvailability(topics: topics)) { _, new in new }))
        list.append(DiscoveryEntity(component: "binary_sensor", objectID: "level", options: [
            "name": .string("Level"),
            "state_topic": .string(topics.level),
            "payload_on": .string("ON"),
            "payload_off": .string("OFF"),
        ]))
        list.append(DiscoveryEntity(component: "binary_sensor", objectID: "alarm", options: [
            "name": .string("Alarm"),
            "device_class": .string("problem"),
            "state_topic": .string(topics.state),
            // `alarm` is null until the first reading decides it: `None` makes the entity unknown,
            // which is the truth, where OFF would claim "no problem" before anything was measured.
            // Anything but a JSON boolean or null renders nothing, which Home Assistant ignores.
            "value_template": .string(alarmTemplate),
            "payload_on": .string("ON"),
            "payload_off": .string("OFF"),
            "expire_after": stateExpiry,
        ]))
        list += vibrationReadings(topics: topics, settings: settings)
        let numbers = [("level_tolerance", "Level tolerance", "mdi:target"),
                       ("level_hysteresis", "Level hysteresis", "mdi:arrow-expand-horizontal"),
                       ("alarm_threshold", "Alarm threshold", "mdi:alarm-light-outline")]
        for (key, name, icon) in numbers {
            guard let rule = LiveSettings.rules.first(where: { $0.key == key }) else { continue }
            var options = settingOptions(key: key, name: name, icon: icon, topics: topics)
            options["mode"] = .string("box")
            options["min"] = .number(rule.minimum)
            options["max"] = .number(rule.maximum)
            options["step"] = .number(rule.step)
            // `°` whatever angle_unit says: P/config reports thresholds in degrees.
            options["unit_of_measurement"] = .string(rule.unit)
            list.append(DiscoveryEntity(component: "number", objectID: key, options: options))
        }
        var unit = settingOptions(key: "angle_unit", name: "Angle unit", icon: "mdi:ruler", topics: topics)
        unit["options"] = .array(angleUnitOptions.map(JSONValue.string))
        list.append(DiscoveryEntity(component: "select", objectID: "angle_unit", options: unit))
        var mount = settingOptions(key: "mount", name: "Mount", icon: "mdi:axis-arrow", topics: topics)
        mount["options"] = .array(mountOptions(current: settings.mount).map(JSONValue.string))
        list.append(DiscoveryEntity(component: "select", objectID: "mount", options: mount))
        list += vibrationSettings(topics: topics, settings: settings)
        list.append(button(.zero, name: "Zero", icon: "mdi:crosshairs-gps", category: nil, topics: topics))
        list.append(button(.clearZero, name: "Clear zero", icon: "mdi:crosshairs-off", category: "config", topics: topics))
        list.append(DiscoveryEntity(component: "sensor", objectID: "last_result", options: [
            "name": .string("Last result"),
            "icon": .string("mdi:message-reply-text-outline"),
            "state_topic": .string(topics.result),
            // A state is at most 255 characters; the whole sentence is the `message` attribute.
            "value_template": .string("{{ value_json.message[:255] }}"),
            "json_attributes_topic": .string(topics.result),
            "json_attributes_template": .string(lastResultAttributesTemplate),
        ]))
        list.append(eventEntity(topics: topics))
        list += calibrationEntities(topics: topics)
        list += diagnostics(topics: topics)
        // A camera rather than an image entity: a camera's frames are not states, so a rocking
        // machine adds no logbook line and no recorder row per picture.
        list.append(DiscoveryEntity(component: "camera", objectID: bubbleObjectID, options: [
            "name": .string("Bubble"),
            "icon": .string("mdi:circle-slice-8"),
            "topic": .string(topics.bubble),
        ]))
        return list
    }

    /// A setting read from `P/config` and written to `P/config/<key>/set`, retained so that a value
    /// set while the agent is offline is applied when it returns (the agent then clears it).
    static func settingOptions(key: String, name: String, icon: String, topics: Topics) -> [String: JSONValue] {
        [
            "name": .string(name),
            "icon": .string(icon),
            "entity_category": .string("config"),
            "state_topic": .string(topics.config),
            "value_template": .string("{{ value_json.\(key) }}"),
            "command_topic": .string(topics.configSet(key: key)),
            "retain": .bool(true),
        ]
    }

    /// A command button. Never retained: the agent ignores retained commands, so a stale press
    /// can't zero the level at the next connect.
    ///
    /// - Parameter payload: the payload for `calibrate_reversal` (a ``ReversalStep``) or
    ///   `calibrate_six_point` (a ``SixPointAction``), which also names the object id
    ///   (`calibrate_reversal_first`); nil for a command that takes none (Home Assistant then
    ///   sends `PRESS`, which those commands ignore).
    private static func button(_ command: Command, step payload: String? = nil, name: String, icon: String,
                               category: String?, topics: Topics) -> DiscoveryEntity {
        var options: [String: JSONValue] = [
            "name": .string(name),
            "icon": .string(icon),
            "command_topic": .string(topics.command(command)),
            "retain": .bool(false),
        ]
        if let payload { options["payload_press"] = .string(payload) }
        if let category { options["entity_category"] = .string(category) }
        let objectID = payload.map { command.rawValue + "_" + $0 } ?? command.rawValue
        return DiscoveryEntity(component: "button", objectID: objectID, options: options)
    }

    /// The last result sensor's attributes: the whole `P/result` message.
    static let lastResultAttributesTemplate = "{{ {'command': value_json.command, 'ok': value_json.ok, "
        + "'message': value_json.message, 'event': value_json.event, 'ts': value_json.ts} | tojson }}"

    /// The calibration sensor's state: `P/calibration`'s `method` (`six_point`, `reversal`,
    /// `six_point+reversal`, `drift`), or `none` when there is none (every key null), which Plumb
    /// knows: never Home Assistant's "Unknown".
    static let calibrationMethodTemplate = "{{ value_json.method if value_json.method is string else '\(noCalibrationState)' }}"
    /// What the calibration sensor reads with no calibration in force.
    public static let noCalibrationState = "none"
    /// The temperature's availability: online while the agent is (`P/status`) and has a
    /// thermometer (`P/health`'s `temperature_source` is not `none`). An ADXL345 alone has none:
    /// its Temperature and Temperature age read unavailable, which says so, not an unknown that
    /// looks like a fault. Before the first health (a second after the start) they are unavailable too.
    static func thermometerAvailability(topics: Topics) -> [String: JSONValue] {
        availability(topics: topics, alsoOn: topics.health, template: thermometerTemplate)
    }

    /// `P/health`'s `temperature_source` as an availability: `offline` only for `none`.
    static let thermometerTemplate = "{{ 'offline' if value_json.\(HealthKey.temperatureSource.rawValue) == '"
        + TemperatureSource.none.description + "' else 'online' }}"

    /// The calibration sensor's attributes: when and how well it fitted, and at what temperature.
    /// The residual is null for a reversal alone, which fits nothing.
    static let calibrationAttributesTemplate = "{{ {'date': value_json.date, "
        + "'residual_rms_mg': value_json.residual_mg.rms if value_json.residual_mg else none, "
        + "'residual_max_mg': value_json.residual_mg.max if value_json.residual_mg else none, "
        + "'temperature_c': value_json.temperature_c} | tojson }}"

    /// The reversal's two buttons (`first`, then `second` after the turn), the six-point tumble's
    /// three (`start`, `next` at each face, `cancel`), the self-test button,
    /// and the diagnostic sensor of the calibration in force: its method as the state, date,
    /// residual and temperature as attributes, from the retained `P/calibration`.
    private static func calibrationEntities(topics: Topics) -> [DiscoveryEntity] {
        [
            button(.calibrateReversal, step: ReversalStep.first.rawValue, name: "Reversal first reading",
                   icon: "mdi:numeric-1-circle-outline", category: "config", topics: topics),
            button(.calibrateReversal, step: ReversalStep.second.rawValue, name: "Reversal second reading",
                   icon: "mdi:numeric-2-circle-outline", category: "config", topics: topics),
            button(.calibrateSixPoint, step: SixPointAction.start.rawValue, name: "Six-point calibration: start",
                   icon: "mdi:cube-outline", category: "config", topics: topics),
            button(.calibrateSixPoint, step: SixPointAction.next.rawValue, name: "Six-point calibration: next face",
                   icon: "mdi:rotate-3d-variant", category: "config", topics: topics),
            button(.calibrateSixPoint, step: SixPointAction.cancel.rawValue, name: "Six-point calibration: cancel",
                   icon: "mdi:cancel", category: "config", topics: topics),
            button(.selftest, name: "Self-test", icon: "mdi:stethoscope", category: "diagnostic", topics: topics),
            button(.learnDrift, step: DriftLearningAction.start.rawValue, name: "Learn drift: start",
                   icon: "mdi:thermometer-plus", category: "config", topics: topics),
            button(.learnDrift, step: DriftLearningAction.stop.rawValue, name: "Learn drift: stop and apply",
                   icon: "mdi:thermometer-check", category: "config", topics: topics),
            button(.learnDrift, step: DriftLearningAction.cancel.rawValue, name: "Learn drift: cancel",
                   icon: "mdi:thermometer-off", category: "config", topics: topics),
            DiscoveryEntity(component: "sensor", objectID: "calibration", options: [
                "name": .string("Calibration"),
                "icon": .string("mdi:tune-vertical"),
                "entity_category": .string("diagnostic"),
                "state_topic": .string(topics.calibration),
                "value_template": .string(calibrationMethodTemplate),
                "json_attributes_topic": .string(topics.calibration),
                "json_attributes_template": .string(calibrationAttributesTemplate),
            ]),
        ]
    }

    /// The health counters, as diagnostic sensors. The counters restart from zero with the agent,
    /// which `total_increasing` reads as a reset rather than a drop.
    private static func diagnostics(topics: Topics) -> [DiscoveryEntity] {
        let rows: [(id: String, key: HealthKey, name: String, extra: [String: JSONValue])] = [
            ("sample_rate", .sampleRateHz, "Sample rate", [
                "device_class": .string("frequency"), "unit_of_measurement": .string("Hz"),
                "state_class": .string("measurement"), "suggested_display_precision": .integer(1),
            ]),
            ("i2c_errors", .i2cErrors, "I²C errors", [
                "icon": .string("mdi:alert-circle-outline"), "state_class": .string("total_increasing"),
            ]),
            ("reconnects", .reconnects, "Reconnects", [
                "icon": .string("mdi:lan-connect"), "state_class": .string("total_increasing"),
            ]),
            ("inbound_stalls", .inboundStalls, "Inbound stalls", [
                "icon": .string("mdi:email-off-outline"), "state_class": .string("total_increasing"),
            ]),
            // No state_class: long-term statistics of an uptime mean nothing.
            ("uptime", .uptimeS, "Uptime", [
                "device_class": .string("duration"), "unit_of_measurement": .string("s"),
            ]),
            ("dropped_samples", .dropped, "Dropped samples", [
                "icon": .string("mdi:tray-remove"), "state_class": .string("total_increasing"),
            ]),
            ("temperature_source", .temperatureSource, "Temperature source", ["icon": .string("mdi:thermometer-lines")]),
            ("temperature_age", .temperatureAgeS, "Temperature age", [
                "device_class": .string("duration"), "unit_of_measurement": .string("s"),
            ].merging(thermometerAvailability(topics: topics)) { _, new in new }),
        ]
        return rows.map { row in
            var options: [String: JSONValue] = [
                "name": .string(row.name),
                "entity_category": .string("diagnostic"),
                "state_topic": .string(topics.health),
                "value_template": .string("{{ value_json.\(row.key.rawValue) }}"),
                "expire_after": .integer(healthExpiryS),
            ]
            options.merge(row.extra) { _, new in new }
            return DiscoveryEntity(component: "sensor", objectID: row.id, options: options)
        }
    }
}
