import Contract

/// Which desired-config write is the latest, per key, when the broker delivers them out of
/// order. A value with no I/O.
///
/// MQTT orders the messages of one publisher at one QoS, no more: a QoS 0 write passes a QoS 1
/// write that the broker holds (while the agent is away, or while its inbound path is stalled),
/// and writes of two writers have no order at all. So a writer may stamp a `P/config/set` object
/// with `written_at` (Unix seconds, its own clock): a stamped write older than the write last
/// applied to a key does not change that key. An unstamped write counts as written when it
/// arrives, which is all the agent can know of it.
public struct WriteOrder: Sendable, Equatable {
    /// Per key, when the write in force was written (or, unstamped, arrived).
    private var lastWrite: [LiveKey: Double] = [:]

    /// How far ahead of the agent's clock a `written_at` may be: clocks synchronised by NTP agree
    /// to well under a second; a stamp further ahead would hold its keys against every later
    /// write until that time came.
    public static let maximumLead = 60.0

    public init() {}

    /// The keys among `keys` that a later write already set: a write stamped `writtenAt` leaves
    /// them alone.
    package func superseded(_ keys: some Sequence<LiveKey>, writtenAt: Double) -> [LiveKey] {
        keys.filter { key in lastWrite[key].map { $0 > writtenAt } ?? false }
    }

    /// When `key` was last written, if a write set it since start.
    package func lastWritten(_ key: LiveKey) -> Double? { lastWrite[key] }

    /// Records that the write of `keys` stamped (or received) at `time` is in force.
    package mutating func record(_ keys: some Sequence<LiveKey>, at time: Double) {
        for key in keys { lastWrite[key] = max(lastWrite[key] ?? time, time) }
    }
}

/// A `P/config/set` message read once: its settings, and the writer's `written_at` if it gave one.
public struct DesiredConfig: Sendable, Equatable {
    /// The settings, by key; never `written_at`.
    public var settings: [String: JSONValue]
    /// When the writer says it wrote this (Unix seconds), or nil.
    public var writtenAt: Double?

    /// The member of a `P/config/set` object that stamps it rather than setting anything.
    public static let writtenAtKey = "written_at"

    /// The live keys the message sets (unknown ones are refused when it is applied).
    package var keys: [LiveKey] { settings.keys.compactMap(LiveKey.init(rawValue:)) }
}
