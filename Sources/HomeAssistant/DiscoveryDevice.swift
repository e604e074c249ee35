/// Who the device is, for the `device` block of every discovery message.
public struct DiscoveryDevice: Sendable, Equatable {
    /// The id Home Assistant knows the device by: ``homeAssistantID(deviceID:baseTopic:)``, the
    /// device id, with the site in front when the base topic carries one. It goes into every
    /// discovery topic (`plumb_<id>`) and unique id, so it must not change for the life of the device.
    public var id: String
    /// Plumb's version: the `sw_version` of the device and origin blocks.
    public var version: String
    /// A page about the device, which Home Assistant links as "Visit". `http://`, `https://` or
    /// `homeassistant://` with a host; nil, or a URL Home Assistant would refuse, leaves it out
    /// (see ``Discovery/messages(prefix:topics:device:settings:)``).
    public var configurationURL: String?
    /// The device block's `model`: `<chip> level`, the chip's model from its description
    /// (`ADXL345 level`, `ADXL355 level`).
    public var model: String

    /// The ``id`` of device `deviceID` publishing under `baseTopic`: `<device_id>` under the
    /// default `plumb`, and `<site>_<device_id>` under a base topic with a site path, where the
    /// site is the base topic's levels after a leading `plumb` (all of them without one), joined
    /// by `-`, with any character but `a-z`, `0-9` and `-` made a `-`: `plumb/hall-2` gives
    /// `hall-2_press-1`, `plumb/Hall 2/line 1` gives `hall-2-line-1_press-1`.
    ///
    /// So two sites may each have a `press-1`: their entities' unique ids stay apart, and a fleet
    /// shares one Home Assistant. The default base topic keeps the unique ids of a single site.
    public static func homeAssistantID(deviceID: String, baseTopic: String) -> String {
        var levels = baseTopic.split(separator: "/", omittingEmptySubsequences: true)
        if levels.first == "plumb" { levels.removeFirst() }
        guard !levels.isEmpty else { return deviceID }
        let site = levels.map { level in
            String(level.lowercased().map { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" ? $0 : "-" })
        }.joined(separator: "-")
        return site + "_" + deviceID
    }

    /// A device; `configurationURL` defaults to none.
    public init(id: String, version: String, configurationURL: String? = nil, chipModel: String) {
        model = Self.model(chipModel: chipModel)
        self.id = id
        self.version = version
        self.configurationURL = configurationURL
    }

    /// The chip's name until a scan finds it (`sensor.kind: auto` before the bus answers):
    /// `Accelerometer level`.
    public static let unknownChipModel = "Accelerometer"

    /// `<chip> level`.
    public static func model(chipModel: String) -> String { chipModel + " level" }
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
