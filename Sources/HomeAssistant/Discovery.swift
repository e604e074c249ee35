import Contract
import Geometry
import Settings

/// Home Assistant MQTT discovery for one Plumb device: one retained config message per entity.
///
/// Topics are `<prefix>/<component>/plumb_<id>/<object_id>/config`, where `<id>` is the
/// ``DiscoveryDevice/id`` (the device id, with the site in front under a site base topic); unique ids are
/// `plumb_<id>_<object_id>`. No setting changes an object id: the angle sensors are in degrees
/// (``angleObjectID(_:)``), and the slope follows `angle_unit`. Every entity carries the availability topic `P/status`
/// (`online`/`offline`), the `device` block and the `origin` block, with full key names (no
/// abbreviations), short entity names (Home Assistant prefixes the device name) and neither
/// `object_id` nor `default_entity_id`, so Home Assistant derives entity ids itself.
///
/// Everything here is pure: the agent decides when to publish.
public enum Discovery {
    /// The device block's `manufacturer` and the origin block's `name`.
    public static let manufacturer = "Plumb"

    /// How often the agent publishes `P/health`, in seconds; the diagnostic sensors expire after
    /// three of these.
    public static let healthPeriodS = 60

    /// Seconds after which the diagnostic sensors (fed by `P/health`) read unavailable: three
    /// health periods, so two lost messages are tolerated but a stuck agent is noticed.
    public static let healthExpiryS = 3 * healthPeriodS

    /// Seconds after which the entities fed by `P/state` (tilt, roll, pitch, alarm) read
    /// unavailable: `ceil(2 × heartbeat_s + 10)`.
    ///
    /// The agent re-sends the state at least every `heartbeat_s`, so two heartbeats tolerate one
    /// lost message (or one reconnect), and the 10 s cover scheduling and network delay at short
    /// heartbeats. The default 30 s heartbeat gives 70 s. This catches an agent that is still
    /// connected (so its status stays `online`) but no longer producing readings.
    public static func stateExpiryS(heartbeatS: Double) -> Int {
        expiryS(periodS: heartbeatS)
    }

    /// `ceil(2 × periodS + 10)` seconds, for entities fed by a message sent at least every
    /// `periodS`.
    static func expiryS(periodS: Double) -> Int {
        let seconds = (2 * periodS + 10).rounded(.up)
        // The settings keep the periods within their rules; the guard only keeps the conversion safe.
        guard seconds.isFinite, seconds >= 1 else { return 1 }
        return seconds < 1e9 ? Int(seconds) : 1_000_000_000
    }

    /// Every entity's config for the device, in a stable order (the order of
    /// ``entities(topics:settings:)``).
    ///
    /// `settings` gives the device name (`name`), the angle unit (unit and display precision of
    /// the angle sensors), the mount (the mount select's options), the heartbeat (the state
    /// sensors' `expire_after`), `vibration` (whether the vibration entities exist) and
    /// `vibration_window_s` (with the heartbeat, their `expire_after`); the number entities' bounds come from
    /// `LiveSettings.rules`. So when a setting changes some payloads change, and a caller that
    /// compares bytes republishes exactly those.
    ///
    /// - Parameters:
    ///   - prefix: the discovery prefix, `homeassistant` by default, without a trailing `/`.
    ///   - topics: the device's topics, `P = <base_topic>/<device_id>`.
    ///   - device: the device's Home Assistant id, version and optional configuration URL. A configuration URL that
    ///     Home Assistant would refuse is left out, because Home Assistant drops the whole message
    ///     (every entity) over an invalid one.
    ///   - settings: the live settings in force.
    public static func messages(prefix: String, topics: Topics, device: DiscoveryDevice,
                                settings: LiveSettings) -> [DiscoveryMessage] {
        let shared = sharedOptions(topics: topics, device: device, settings: settings)
        let entityMessages = entities(topics: topics, settings: settings).map { entity in
            var payload = entity.options.merging(shared) { own, _ in own }
            // An entity with an availability list of its own (the vibration readings) must not
            // also carry the shared availability topic: Home Assistant refuses both at once.
            if entity.options["availability"] != nil {
                for key in ["availability_topic", "payload_available", "payload_not_available"] { payload[key] = nil }
            }
            payload["unique_id"] = .string(uniqueID(homeAssistantID: device.id, objectID: entity.objectID))
            return DiscoveryMessage(
                topic: topic(prefix: prefix, component: entity.component, homeAssistantID: device.id, objectID: entity.objectID),
                payload: JSONValue.object(payload).bytes
            )
        }
        return entityMessages + deviceTriggers(prefix: prefix, topics: topics, device: device, settings: settings)
    }

    /// The `<prefix>/+/plumb_<id>/+/config` filter that matches every discovery topic of
    /// the device, including ones an older version published: subscribe to it, and clear each
    /// retained topic it delivers with an empty retained message (`plumb forget`).
    public static func topicFilter(prefix: String, homeAssistantID: String) -> String {
        "\(prefix)/+/\(nodeID(homeAssistantID: homeAssistantID))/+/config"
    }

    /// An empty retained message for every discovery topic this version publishes (the same in
    /// every setting) and for what older versions published (``staleRemovals(prefix:homeAssistantID:)``):
    /// removes them all from
    /// Home Assistant without a subscription. ``topicFilter(prefix:homeAssistantID:)`` finds
    /// anything else an older version left.
    public static func removals(prefix: String, homeAssistantID: String) -> [DiscoveryMessage] {
        var topicsToClear = entities(topics: Topics(baseTopic: "plumb", deviceID: homeAssistantID), settings: LiveSettings()).map {
            topic(prefix: prefix, component: $0.component, homeAssistantID: homeAssistantID, objectID: $0.objectID)
        }
        topicsToClear += EventType.allCases.map {
            topic(prefix: prefix, component: "device_automation", homeAssistantID: homeAssistantID, objectID: $0.rawValue)
        }
        return topicsToClear.map { DiscoveryMessage(topic: $0, payload: []) }
            + staleRemovals(prefix: prefix, homeAssistantID: homeAssistantID)
    }

    /// The ``removals(prefix:homeAssistantID:)`` this version does not publish: the angle sensors
    /// older versions published in a unit other than degrees (`tilt_mm_per_m`, …) or with no unit
    /// (`tilt`), and the picture's old `image` entity. The agent sends them once per connect, so a device upgraded from a version that
    /// made an entity per unit loses those entities instead of keeping them unavailable beside
    /// the current ones; its degree entities are the current ones, history and all.
    public static func staleRemovals(prefix: String, homeAssistantID: String) -> [DiscoveryMessage] {
        // Every setting publishes the same topics, so what is stale is what older versions published.
        legacyAngleObjectIDs.map {
            DiscoveryMessage(topic: angleTopic(prefix: prefix, homeAssistantID: homeAssistantID, objectID: $0), payload: [])
        } + legacyPictureEntities.map {
            DiscoveryMessage(topic: topic(prefix: prefix, component: $0.component, homeAssistantID: homeAssistantID,
                                          objectID: $0.objectID), payload: [])
        }
    }

    /// The picture's entities of older versions: an `image` entity, every new picture of which
    /// was a state change (a logbook line and a recorder row each). Cleared, never published.
    public static let legacyPictureEntities: [(component: String, objectID: String)] = [("image", bubbleObjectID)]

    /// The bubble picture's object id: an MQTT camera, whose frames change no state.
    public static let bubbleObjectID = "bubble"

    /// `tilt_deg`, `roll_deg`, …: the angle sensors' object ids. Always degrees, whatever
    /// `angle_unit` says, so a unit change never removes an entity, changes its id or splits its
    /// history and statistics (Home Assistant keys both by entity id, and has no conversion
    /// between `°`, `%`, `mm/m` and `in/ft`). These are the object ids earlier versions gave the
    /// degree entities, so a device that was in degrees keeps its entities, ids and history.
    public static func angleObjectID(_ angle: String) -> String {
        angle + "_" + AngleUnit.deg.rawValue
    }

    /// The slope sensor's object id: the tilt in `angle_unit`.
    public static let slopeObjectID = "slope"

    /// The angle sensors' object ids of older versions: with no unit (`tilt`), and one entity per
    /// unit other than degrees (`tilt_mm_per_m`, …). Cleared, never published.
    public static let legacyAngleObjectIDs: [String] = ["tilt", "roll", "pitch"]
        + AngleUnit.allCases.filter { $0 != .deg }.flatMap { unit in
            angleSensors.map { $0.0 + "_" + unit.rawValue }
        }

    /// `plumb_<id>_<object_id>`: the entity's `unique_id`, stable across restarts and
    /// setting changes (the angle sensors' object ids follow the unit), so Home Assistant keeps
    /// its history and the user's customisations.
    public static func uniqueID(homeAssistantID: String, objectID: String) -> String {
        nodeID(homeAssistantID: homeAssistantID) + "_" + objectID
    }

    static func angleTopic(prefix: String, homeAssistantID: String, objectID: String) -> String {
        topic(prefix: prefix, component: "sensor", homeAssistantID: homeAssistantID, objectID: objectID)
    }

    /// `plumb_<id>`: the node id in discovery topics and the device's identifier.
    static func nodeID(homeAssistantID: String) -> String { "plumb_" + homeAssistantID }

    static func topic(prefix: String, component: String, homeAssistantID: String, objectID: String) -> String {
        "\(prefix)/\(component)/\(nodeID(homeAssistantID: homeAssistantID))/\(objectID)/config"
    }

    /// Availability, device and origin: the same in every entity's config.
    static func sharedOptions(topics: Topics, device: DiscoveryDevice, settings: LiveSettings) -> [String: JSONValue] {
        var deviceBlock: [String: JSONValue] = [
            "identifiers": .array([.string(nodeID(homeAssistantID: device.id))]),
            "name": .string(settings.name),
            "model": .string(device.model),
            "manufacturer": .string(manufacturer),
            "sw_version": .string(device.version),
        ]
        if let url = device.configurationURL, isAcceptedConfigurationURL(url) {
            deviceBlock["configuration_url"] = .string(url)
        }
        return [
            "availability_topic": .string(topics.status),
            "payload_available": .string("online"),
            "payload_not_available": .string("offline"),
            "device": .object(deviceBlock),
            // No support_url: Plumb has no public support page to point at.
            "origin": .object(["name": .string(manufacturer), "sw_version": .string(device.version)]),
        ]
    }

    /// Whether Home Assistant's `cv.configuration_url` would accept `url`: an `http`, `https` or
    /// `homeassistant` scheme, `://`, a non-empty host, and no whitespace or control characters.
    static func isAcceptedConfigurationURL(_ url: String) -> Bool {
        guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { return false }
        for scheme in ["http://", "https://", "homeassistant://"] where url.lowercased().hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return !host.isEmpty
        }
        return false
    }
}
