/// The retained topics of a device that `plumb fleet` reads, named as ``Contract/Topics`` builds
/// them (`P/status`, `P/state`, …); a test pins each raw value to the contract's topic.
public enum FleetLeaf: String, Sendable, CaseIterable, Comparable {
    case status, state, level, config, health, calibration, vibration

    public static func < (lhs: FleetLeaf, rhs: FleetLeaf) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One topic under the fleet's base topic, read as `<device base topic>/<device id>/<leaf>`.
///
/// A device's topics are `P/<leaf>` with `P = <base_topic>/<device_id>` (``Contract/Topics``), and
/// a device's `base_topic` may have any number of levels (`plumb`, `plumb/hall-2`). So a topic is
/// a device's when its last level is a ``FleetLeaf``, the level before it is a valid device id
/// (`[a-z0-9_-]`, 1 to 64 characters) and what comes before that is the fleet's base topic or
/// lies under it.
public struct FleetTopic: Sendable, Hashable {
    /// The device's own `base_topic`: the fleet's base topic or a topic under it.
    public var baseTopic: String
    /// The device id.
    public var deviceID: String
    public var leaf: FleetLeaf

    /// `P`: `<baseTopic>/<deviceID>`.
    public var prefix: String { baseTopic + "/" + deviceID }

    /// Reads `topic` as a device's topic under `base`, or nil when it is none.
    public init?(_ topic: String, under base: String) {
        let utf8 = topic.utf8
        guard utf8.count > base.utf8.count + 1, topic.hasPrefix(base),
              utf8[utf8.index(utf8.startIndex, offsetBy: base.utf8.count)] == UInt8(ascii: "/"),
              let leafSlash = utf8.lastIndex(of: UInt8(ascii: "/")),
              let leaf = FleetLeaf(rawValue: String(topic[topic.index(after: leafSlash)...])) else { return nil }
        let head = topic[..<leafSlash]
        guard let idSlash = head.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let id = head[head.index(after: idSlash)...]
        let deviceBase = head[..<idSlash]
        // The id's level lies below the base: the device's base topic is the base or under it.
        guard deviceBase.utf8.count >= base.utf8.count, Self.isDeviceID(id) else { return nil }
        self.baseTopic = String(deviceBase)
        self.deviceID = String(id)
        self.leaf = leaf
    }

    public init(baseTopic: String, deviceID: String, leaf: FleetLeaf) {
        self.baseTopic = baseTopic
        self.deviceID = deviceID
        self.leaf = leaf
    }

    /// Whether `text` is a device id as the config file accepts it: `[a-z0-9_-]`, 1 to 64.
    static func isDeviceID(_ text: Substring) -> Bool {
        let bytes = text.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The site of a device whose base topic is `baseTopic`: its levels after the first
    /// (`plumb/hall-2` → `hall-2`, `plumb/site/hall-2` → `site/hall-2`), or nil for a one-level
    /// base topic (`plumb`). It does not depend on the base topic `plumb fleet` was given, so a
    /// device shows the same site whether the fleet is listed from `plumb` or `plumb/hall-2`.
    public static func site(ofBaseTopic baseTopic: String) -> String? {
        guard let slash = baseTopic.firstIndex(of: "/") else { return nil }
        let site = baseTopic[baseTopic.index(after: slash)...]
        return site.isEmpty ? nil : String(site)
    }
}
