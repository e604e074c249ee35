import VibrationVocabulary

/// The ISO 10816 zone as the agent reports it: a change only when the new zone holds, so a
/// machine sitting at a boundary does not chatter `zone_changed`.
///
/// **Band.** To leave its zone, the velocity must pass the zone's boundary by a margin (5 % by
/// default): above `upper × (1 + margin)` or below `lower × (1 − margin)`. Inside those the zone
/// stays, even where the bare table would say otherwise.
///
/// **Hold.** The velocity must stay beyond the band, on the same side, for ``holdWindows``
/// consecutive windows (3 by default); any window back inside cancels the count. The new zone is
/// the bare table's zone of the last of those windows. Feed it disjoint windows (the published
/// ones): overlapping windows share their samples, and three of them are not three looks.
///
/// **Start.** Unknown until the first window, which decides at once (a ``ZoneChange`` with
/// ``ZoneChange/previous`` nil: not a change, so no `zone_changed`).
///
/// The velocity is ``VibrationFigures/severityVelocity``, the largest per-axis RMS velocity:
/// ISO judges the direction that vibrates most. A NaN velocity is ignored.
public struct ZoneTracker: Sendable, Hashable {
    /// The machine group whose boundaries apply (`vibration_class`).
    public private(set) var machineClass: MachineClass
    /// The fraction a boundary must be passed by to leave a zone.
    public let margin: Double
    /// Consecutive windows beyond the band before the zone changes; at least 1.
    public let holdWindows: Int
    /// The zone in force; nil until the first window.
    public private(set) var zone: SeverityZone?
    /// Windows beyond the band so far, and on which side.
    private var pending: Pending?

    private struct Pending: Sendable, Hashable {
        var count: Int
        var above: Bool
    }

    /// The default margin around a boundary.
    public static let defaultMargin = 0.05
    /// The default hold, in windows.
    public static let defaultHoldWindows = 3

    /// A tracker for `machineClass`. A negative or NaN margin counts as 0, a hold below 1 as 1.
    public init(machineClass: MachineClass = .default, margin: Double = ZoneTracker.defaultMargin,
                holdWindows: Int = ZoneTracker.defaultHoldWindows) {
        self.machineClass = machineClass
        self.margin = margin > 0 ? margin : 0
        self.holdWindows = max(1, holdWindows)
    }

    /// Feeds one window's ``VibrationFigures/severityVelocity``.
    public mutating func update(_ figures: VibrationFigures) -> ZoneChange? {
        update(velocityRMS: figures.severityVelocity)
    }

    /// Feeds one window's velocity, mm/s RMS.
    ///
    /// - Returns: The zone change this window made, the first decision, or nil.
    public mutating func update(velocityRMS velocity: Double) -> ZoneChange? {
        guard !velocity.isNaN else { return nil }
        let bare = machineClass.zone(velocityRMS: velocity)
        guard let current = zone else {
            zone = bare
            return ZoneChange(zone: bare, previous: nil, velocityRMS: velocity)
        }
        let (lower, upper) = limits(of: current)
        let above = upper.map { velocity > $0 * (1 + margin) } ?? false
        let below = lower.map { velocity < $0 * (1 - margin) } ?? false
        guard above || below else {
            pending = nil
            return nil
        }
        let count = pending.map { $0.above == above ? $0.count + 1 : 1 } ?? 1
        guard count >= holdWindows else {
            pending = Pending(count: count, above: above)
            return nil
        }
        pending = nil
        zone = bare
        return ZoneChange(zone: bare, previous: current, velocityRMS: velocity)
    }

    /// Changes the machine group. The zone meant something else under the old boundaries, so
    /// it is forgotten: the next window decides at once, as the first did. The same group
    /// changes nothing.
    public mutating func reconfigure(machineClass: MachineClass) {
        guard machineClass != self.machineClass else { return }
        self.machineClass = machineClass
        zone = nil
        pending = nil
    }

    /// The velocities bounding `zone` (nil: unbounded on that side).
    private func limits(of zone: SeverityZone) -> (lower: Double?, upper: Double?) {
        let b = machineClass.boundaries
        switch zone {
        case .a: return (nil, b.ab)
        case .b: return (b.ab, b.bc)
        case .c: return (b.bc, b.cd)
        case .d: return (b.cd, nil)
        }
    }
}

/// A zone decision of a ``ZoneTracker``.
public struct ZoneChange: Sendable, Hashable {
    /// The zone now.
    public var zone: SeverityZone
    /// The zone before; nil for the first decision, which is not a change.
    public var previous: SeverityZone?
    /// The velocity of the deciding window, mm/s RMS (`velocity_rms_mm_s` in `zone_changed`).
    public var velocityRMS: Double

    public init(zone: SeverityZone, previous: SeverityZone?, velocityRMS: Double) {
        self.zone = zone
        self.previous = previous
        self.velocityRMS = velocityRMS
    }

    /// Whether this is the first decision rather than a change.
    public var isInitial: Bool { previous == nil }
}
