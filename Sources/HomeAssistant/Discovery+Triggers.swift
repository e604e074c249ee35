import Contract
import Settings

extension Discovery {
    /// How an event reads in Home Assistant's automation editor, as an MQTT device trigger's
    /// `subtype` and `type`: the editor shows a trigger it has no translation for as
    /// `"<subtype>" <type>`, so `("Machine", "stopped running")` reads `"Machine" stopped running`
    /// under the device.
    ///
    /// A contract, like the event names: Home Assistant keys a device trigger by device, type and
    /// subtype, and an automation stores the type and subtype it was made with, so changing a
    /// phrase would orphan every automation made with it. Neither depends on any setting (the
    /// device's name is not in them), so renaming the device keeps its automations.
    public static func triggerPhrase(_ event: EventType) -> (subtype: String, type: String) {
        switch event {
        case .levelEntered: ("Machine", "became level")
        case .levelLeft: ("Machine", "left level")
        case .alarmRaised: ("Alarm", "raised")
        case .alarmCleared: ("Alarm", "cleared")
        case .sensorFault: ("Sensor", "failed")
        case .sensorRecovered: ("Sensor", "recovered")
        case .configApplied: ("Settings", "applied")
        case .configRejected: ("Settings", "refused")
        case .zeroed: ("Zero", "taken or cleared")
        case .zeroRejected: ("Zero", "refused")
        case .calibrationProgress: ("Calibration", "moved on")
        case .calibrationApplied: ("Calibration", "applied")
        case .calibrationRejected: ("Calibration", "refused")
        case .calibrationCleared: ("Calibration", "cleared")
        case .selftest: ("Self-test", "finished")
        case .runningStarted: ("Machine", "started running")
        case .runningStopped: ("Machine", "stopped running")
        case .zoneChanged: ("Vibration zone", "changed")
        case .temperatureRejected: ("Temperature", "refused")
        case .driftProgress: ("Drift learning", "moved on")
        case .driftLearned: ("Drift learning", "applied")
        case .driftRejected: ("Drift learning", "refused")
        }
    }

    /// The device trigger's value template: the event's `type`, which each trigger's `payload`
    /// (the event's wire name) is compared with.
    static let eventTypeTemplate = "{{ value_json.type }}"

    /// One MQTT device trigger per event type (`<prefix>/device_automation/plumb_<id>/<event>/config`),
    /// so "the machine stopped running" is a trigger in the automation editor under the device,
    /// with no hand-written MQTT trigger or template. Only the keys a device trigger takes: Home
    /// Assistant drops any other (availability, origin) without a word.
    static func deviceTriggers(prefix: String, topics: Topics, device: DiscoveryDevice, settings: LiveSettings)
        -> [DiscoveryMessage] {
        let deviceBlock = sharedOptions(topics: topics, device: device, settings: settings)["device"] ?? .null
        return EventType.allCases.map { event in
            let phrase = triggerPhrase(event)
            let payload: [String: JSONValue] = [
                "automation_type": .string("trigger"),
                "topic": .string(topics.event),
                "type": .string(phrase.type),
                "subtype": .string(phrase.subtype),
                "payload": .string(event.rawValue),
                "value_template": .string(eventTypeTemplate),
                "qos": .integer(1),
                "device": deviceBlock,
            ]
            return DiscoveryMessage(topic: topic(prefix: prefix, component: "device_automation", homeAssistantID: device.id,
                                                 objectID: event.rawValue),
                                    payload: JSONValue.object(payload).bytes)
        }
    }

    /// The event entity's value template: `P/event`'s message with its `type` as `event_type`,
    /// which Home Assistant takes as the event, the other keys becoming its attributes.
    static let eventEntityTemplate = "{{ dict(value_json, event_type=value_json.type) | tojson }}"

    /// The event entity: every `P/event`, on the device page and in the logbook, its type one of
    /// `event_types`. An event is rare (a flip, a press, a start or a stop), so its recorder row
    /// each time is the history wanted.
    static func eventEntity(topics: Topics) -> DiscoveryEntity {
        DiscoveryEntity(component: "event", objectID: "event", options: [
            "name": .string("Event"),
            "icon": .string("mdi:bell-ring-outline"),
            "state_topic": .string(topics.event),
            "value_template": .string(eventEntityTemplate),
            "event_types": .array(EventType.allCases.map { .string($0.rawValue) }),
        ])
    }
}
