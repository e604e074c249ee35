/// Every device found under one base topic, built from the retained (and later live) messages
/// on `<base>/#`. A value: the MQTT side feeds it, the renderers read it.
///
/// Payloads are read as they arrive and only the figures kept, so 10,000 devices' retained
/// topics never sit in memory as raw bytes.
public struct Fleet: Sendable {
    /// The base topic subscribed under (`--base-topic`).
    public let baseTopic: String
    /// By `P`.
    private var byPrefix: [String: FleetDevice] = [:]

    public init(baseTopic: String) {
        self.baseTopic = baseTopic
    }

    /// Takes in one message; false when `topic` is not a device's topic under ``baseTopic`` (the
    /// message is then ignored). A device whose every topic has been cleared leaves the fleet.
    @discardableResult
    public mutating func receive(topic: String, payload: [UInt8]) -> Bool {
        guard let parsed = FleetTopic(topic, under: baseTopic) else { return false }
        let prefix = parsed.prefix
        var device = byPrefix.removeValue(forKey: prefix)
            ?? FleetDevice(baseTopic: parsed.baseTopic, id: parsed.deviceID)
        device.receive(parsed.leaf, payload: payload)
        if !device.present.isEmpty { byPrefix[prefix] = device }
        return true
    }

    /// The devices, problems first (``FleetProblem`` order), then by site and id; devices with no
    /// problem last. A "device" whose topics lie inside another device's (`plumb/lathe/config/state`
    /// read as device `config` under `plumb/lathe`) is left out: that is the other device's
    /// namespace, and its stray topics are no device.
    public var devices: [FleetDevice] {
        byPrefix.values.filter { !isInsideAnotherDevice($0) }.sorted(by: Self.listedBefore)
    }

    private func isInsideAnotherDevice(_ device: FleetDevice) -> Bool {
        var base = device.baseTopic[...]
        while base.count > baseTopic.count {
            if byPrefix[String(base)] != nil { return true }
            guard let slash = base.lastIndex(of: "/") else { break }
            base = base[..<slash]
        }
        return false
    }

    /// The listing order: by problem (none last), then site (none first), id and base topic.
    static func listedBefore(_ lhs: FleetDevice, _ rhs: FleetDevice) -> Bool {
        let (left, right) = (lhs.problem, rhs.problem)
        if left != right {
            switch (left, right) {
            case (nil, _): return false
            case (_, nil): return true
            case let (left?, right?): return left < right
            }
        }
        if lhs.site != rhs.site { return (lhs.site ?? "") < (rhs.site ?? "") }
        if lhs.id != rhs.id { return lhs.id < rhs.id }
        return lhs.baseTopic < rhs.baseTopic
    }
}
