/// Who the device is, for the `device` block of every discovery message.
public struct DiscoveryDevice: Sendable, Equatable {
    /// The device id, `[a-z0-9_-]{1,64}` as the configuration validates it. It goes into every
    /// discovery topic (`plumb_<id>`) and unique id, so it must not change for the life of the device.
    public var id: String
    /// Plumb's version: the `sw_version` of the device and origin blocks.
    public var version: String
    /// A page about the device, which Home Assistant links as "Visit". `http://`, `https://` or
    /// `homeassistant://` with a host; nil, or a URL Home Assistant would refuse, leaves it out
    /// (see ``Discovery/messages(prefix:topics:device:settings:)``).
    public var configurationURL: String?

    /// A device; `configurationURL` defaults to none.
    public init(id: String, version: String, configurationURL: String? = nil) {
        self.id = id
        self.version = version
        self.configurationURL = configurationURL
    }
}

/// One discovery message: a config topic and its JSON payload.
///
/// Always published retained (QoS 1 is enough), so Home Assistant finds the device after its own
/// restart; an empty payload, retained, removes the entity.
public struct DiscoveryMessage: Sendable, Equatable {
    /// `<prefix>/<component>/plumb_<device_id>/<object_id>/config`.
    public var topic: String
    /// Compact JSON with sorted keys: equal inputs give equal bytes, so a caller can publish only
    /// the messages whose bytes changed. Empty for a removal.
    public var payload: [UInt8]

    /// A message as given; ``Discovery`` builds them.
    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}
