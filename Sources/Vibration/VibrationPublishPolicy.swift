/// Why ``VibrationPublishPolicy`` says to publish `P/vibration` now. The raw value is the
/// reason's name, for logs.
public enum VibrationPublishDecision: String, Sendable, Hashable {
    /// Nothing has been published yet.
    case first
    /// The zone or the running state changed: published at once, whatever the interval.
    case changed
    /// ``VibrationPublishPolicy/force()`` asked for it (a `republish` command, a reconnect).
    case forced
    /// The velocity or acceleration moved beyond the deadband, and the interval has passed.
    case moved
    /// Nothing was published for a heartbeat.
    case heartbeat
}

/// When to publish the vibration figures: at most once every `interval` when they have moved
/// beyond a deadband, at once when the zone or the running state changes, and at least every
/// `heartbeat`. A machine that runs steadily, or stands still, gets only heartbeats.
///
/// **Deadband.** A figure has moved when it differs from the last *published* one by more than
/// ``relativeDeadband`` of it, and by more than an absolute floor (``velocityFloor`` mm/s,
/// ``accelerationFloor`` g) that keeps a stopped machine's noise, a few hundredths of a mm/s
/// wandering by half of itself, from counting as movement. Comparing with the last published
/// value, not the last window, lets a slow rise publish once it has added up.
///
/// A non-nil answer **is recorded as published**: the caller must publish. Time is monotonic
/// seconds, passed in; a non-finite time decides nothing. Pure: no clock, no I/O.
public struct VibrationPublishPolicy: Sendable, Hashable {
    /// Seconds between publications caused by movement (`vibration_interval_s`).
    public var interval: Double
    /// The longest `P/vibration` goes unpublished, seconds (`heartbeat_s`).
    public var heartbeat: Double
    /// A figure must change by more than this fraction of its last published value.
    public static let relativeDeadband = 0.1
    /// …and by more than this many mm/s (velocity).
    public static let velocityFloor = 0.1
    /// …or g (acceleration).
    public static let accelerationFloor = 0.002

    /// The figures last published: velocity RMS mm/s and acceleration RMS g; nil before.
    public private(set) var lastPublished: (velocity: Double, acceleration: Double)?
    /// When `P/vibration` was last published; −∞ before the first time.
    public private(set) var lastPublishTime = -Double.infinity
    /// Whether the next decision publishes because of ``force()``.
    public private(set) var isForced = false

    public init(interval: Double, heartbeat: Double) {
        self.interval = interval
        self.heartbeat = heartbeat
    }

    /// Whether to publish the window with these overall figures at `time`, and why.
    ///
    /// - Parameter changed: whether the zone or the running state changed with this window.
    public mutating func decide(velocity: Double, acceleration: Double, changed: Bool,
                                at time: Double) -> VibrationPublishDecision? {
        guard time.isFinite else { return nil }
        let decision: VibrationPublishDecision?
        if lastPublished == nil {
            decision = .first
        } else if changed {
            decision = .changed
        } else if isForced {
            decision = .forced
        } else if time - lastPublishTime >= interval, hasMoved(velocity: velocity, acceleration: acceleration) {
            decision = .moved
        } else if time - lastPublishTime >= heartbeat {
            decision = .heartbeat
        } else {
            decision = nil
        }
        if decision != nil {
            lastPublished = (velocity, acceleration)
            lastPublishTime = time
            isForced = false
        }
        return decision
    }

    /// Makes the next decision publish.
    public mutating func force() {
        isForced = true
    }

    private func hasMoved(velocity: Double, acceleration: Double) -> Bool {
        guard let last = lastPublished else { return true }
        func moved(_ new: Double, from old: Double, floor: Double) -> Bool {
            guard new.isFinite else { return old.isFinite }
            guard old.isFinite else { return true }
            let change = abs(new - old)
            return change > floor && change > Self.relativeDeadband * abs(old)
        }
        return moved(velocity, from: last.velocity, floor: Self.velocityFloor)
            || moved(acceleration, from: last.acceleration, floor: Self.accelerationFloor)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.interval == rhs.interval && lhs.heartbeat == rhs.heartbeat && lhs.lastPublishTime == rhs.lastPublishTime
            && lhs.isForced == rhs.isForced && lhs.lastPublished?.velocity == rhs.lastPublished?.velocity
            && lhs.lastPublished?.acceleration == rhs.lastPublished?.acceleration
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(interval)
        hasher.combine(heartbeat)
        hasher.combine(lastPublishTime)
        hasher.combine(isForced)
        hasher.combine(lastPublished?.velocity)
        hasher.combine(lastPublished?.acceleration)
    }
}
