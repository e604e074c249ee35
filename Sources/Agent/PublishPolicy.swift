import Geometry

/// Why ``PublishPolicy`` says to publish the state now.
///
/// The raw value is the reason's name, for logs.
public enum PublishDecision: String, Sendable, Hashable {
    /// No angles have been published yet.
    case first
    /// Level or alarm changed: published at once, whatever the minimum interval.
    case flipped
    /// ``PublishPolicy/force()`` asked for it (a `republish` command, a recovered sensor).
    case forced
    /// Roll, pitch or tilt moved more than the deadband from the last published values, and the
    /// minimum interval has passed.
    case moved
    /// Nothing else was published for a heartbeat interval.
    case heartbeat
}

/// When to publish the state message: on movement beyond a deadband (rate limited), at once on a
/// level or alarm flip, and at least every heartbeat. A still machine gets only heartbeats.
///
/// Ask ``decide(attitude:flipped:at:)`` at every reading and on a regular tick (so a deferred
/// movement or a heartbeat is not held up waiting for the next reading). A non-nil answer means
/// "publish this attitude now" and **is recorded as published**: the caller must publish it.
/// Publications made outside `decide` (on connect, say) are told with
/// ``recordPublished(attitude:at:)``, or ``recordHeartbeat(at:)`` when the state went out
/// without angles; recording the same publication twice is harmless.
///
/// **Movement** compares roll, pitch and tilt each with the last *published* value, not the
/// last reading, so a slow drift publishes once it has added up to more than the deadband. Roll
/// is compared the short way round the circle, so an upside-down frame whose roll wobbles across
/// ±180° has not moved by 360°. A movement inside the minimum interval is not lost: the first
/// decision after the interval publishes it if it is still beyond the deadband.
///
/// Time is monotonic seconds, passed in; a non-finite time decides nothing. A reading with NaN
/// angles never counts as moved. Settings may be changed at any time, history is kept.
public struct PublishPolicy: Sendable, Hashable {
    /// An angle must move more than this (strictly) to publish. 0 publishes any change.
    public var deadband: Angle
    /// Seconds between publications caused by movement. Flips, forcing and the first publication
    /// ignore it.
    public var minInterval: Double
    /// The longest the state goes unpublished, seconds.
    public var heartbeat: Double

    /// The attitude last published; nil until angles have been published.
    public private(set) var lastPublished: Attitude?
    /// When the state was last published, with or without angles; −∞ before the first time.
    public private(set) var lastPublishTime: Double = -.infinity
    /// Whether the next decision publishes because of ``force()``.
    public private(set) var isForced = false

    public init(deadband: Angle, minInterval: Double, heartbeat: Double) {
        self.deadband = deadband
        self.minInterval = minInterval
        self.heartbeat = heartbeat
    }

    /// Whether to publish the state for `attitude` at `time`, and why; nil to stay quiet.
    ///
    /// When several reasons apply, the first of `first`, `flipped`, `forced`, `moved`,
    /// `heartbeat` is given. A non-nil answer records `attitude` as published at `time`.
    ///
    /// - Parameter flipped: Whether level or alarm changed with this reading.
    public mutating func decide(attitude: Attitude, flipped: Bool, at time: Double) -> PublishDecision? {
        guard time.isFinite else { return nil }
        guard let decision = reason(attitude: attitude, flipped: flipped, at: time) else { return nil }
        recordPublished(attitude: attitude, at: time)
        return decision
    }

    private func reason(attitude: Attitude, flipped: Bool, at time: Double) -> PublishDecision? {
        guard let last = lastPublished else { return .first }
        if flipped { return .flipped }
        if isForced { return .forced }
        let elapsed = time - lastPublishTime
        if elapsed >= minInterval, hasMoved(from: last, to: attitude) { return .moved }
        if elapsed >= heartbeat { return .heartbeat }
        return nil
    }

    /// Whether any of roll, pitch and tilt differs from `last` by more than the deadband.
    public func hasMoved(from last: Attitude, to attitude: Attitude) -> Bool {
        // Roll spans a full turn, so the short way round: 179.9° to −179.9° is 0.2°.
        var roll = (attitude.roll - last.roll).radians.truncatingRemainder(dividingBy: 2 * .pi)
        if roll > .pi { roll -= 2 * .pi } else if roll < -.pi { roll += 2 * .pi }
        return Angle(radians: roll).magnitude > deadband
            || (attitude.pitch - last.pitch).magnitude > deadband
            || (attitude.tilt - last.tilt).magnitude > deadband
    }

    /// Records that the state was published with `attitude` at `time`; satisfies a pending
    /// ``force()``.
    public mutating func recordPublished(attitude: Attitude, at time: Double) {
        lastPublished = attitude
        recordHeartbeat(at: time)
        isForced = false
    }

    /// Records that the state was published at `time` without angles (no sensor, say): it resets
    /// the heartbeat but leaves the last published angles, and a pending ``force()``, alone.
    public mutating func recordHeartbeat(at time: Double) {
        guard time.isFinite else { return }
        lastPublishTime = time
    }

    /// Makes the next ``decide(attitude:flipped:at:)`` publish, whatever the interval or deadband.
    public mutating func force() {
        isForced = true
    }
}
