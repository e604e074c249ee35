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
        // In place: a device is a dozen strings, and copying it out and back for each of 60,000
        // messages was a tenth of the run.
        byPrefix[prefix, default: FleetDevice(baseTopic: parsed.baseTopic, id: parsed.deviceID)]
            .receive(parsed.leaf, payload: payload)
        if byPrefix[prefix]?.present.isEmpty == true { byPrefix[prefix] = nil }
        return true
    }

    /// The devices, problems first (``FleetProblem`` order), then by site and id; devices with no
    /// problem last. A "device" whose topics lie inside another device's (`plumb/lathe/config/state`
    /// read as device `config` under `plumb/lathe`) is left out: that is the other device's
    /// namespace, and its stray topics are no device.
    public var devices: [FleetDevice] {
        // The keys once per device, not once per comparison.
        let keyed = byPrefix.values.filter { !isInsideAnotherDevice($0) }.map { (key: SortKey($0), device: $0) }
        return keyed.sorted { $0.key < $1.key }.map(\.device)
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
    private struct SortKey: Comparable {
        var problem: Int
        var site: String
        var id: String
        var baseTopic: String

        init(_ device: FleetDevice) {
            problem = device.problem.map { FleetProblem.allCases.firstIndex(of: $0)! } ?? FleetProblem.allCases.count
            site = device.site ?? ""
            id = device.id
            baseTopic = device.baseTopic
        }

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.problem, lhs.site, lhs.id, lhs.baseTopic) < (rhs.problem, rhs.site, rhs.id, rhs.baseTopic)
        }
    }
}
