import Geometry
import Level
import Settings

/// When `P/state` goes out and what it says: the publish policy (deadband, minimum interval,
/// heartbeat, forcing), the changes of `stable` that are news, the sequence number, and the
/// gravity of the last state message that the bubble picture shows.
///
/// A value type with no I/O: ``AgentCore`` asks it whether a reading or a tick publishes, and
/// publishes the payload ``message(for:level:alarm:sensorOK:sensorFaulty:unit:reason:at:)`` builds.
struct StatePublisher: Sendable {
    /// Deadband, minimum interval and heartbeat, and what was last published when.
    private(set) var policy: PublishPolicy
    /// `seq` of the last state message; 0 before the first.
    private(set) var seq = 0
    /// Level-frame gravity of the last state message: what the bubble picture shows; nil before
    /// the first or while there is no reading.
    private(set) var gravity: Vector3?
    /// `stable` of the last state message; nil before the first or while there is no reading.
    private(set) var publishedStable: Bool?

    /// A publisher under `settings`' deadband, minimum interval and heartbeat.
    init(settings: LiveSettings) {
        policy = Self.policy(settings)
    }

    /// New settings: their deadband, interval and heartbeat, and the timing starts afresh (the
    /// state published for the new settings is the first under them).
    mutating func reconfigure(_ settings: LiveSettings) {
        policy = Self.policy(settings)
    }

    /// Makes the next decision publish whatever the interval or deadband: something the
    /// subscriber must see changed (a zero, a calibration, a recovered sensor).
    mutating func force() {
        policy.force()
    }

    /// Whether the reading `measurement`, taken at `time`, publishes the state, and why; nil to
    /// stay quiet.
    ///
    /// A level or alarm change publishes at once. A change of `stable` is news too (a zero or a
    /// reversal step waits for it), but at most once per minimum interval: a sensor at the edge
    /// of stillness must not flood the broker.
    mutating func reason(for measurement: Measurement, at time: Double) -> PublishReason? {
        let stableChanged = publishedStable.map { $0 != measurement.isStable } ?? false
            && time - policy.lastPublishTime >= policy.minInterval
        let decision = policy.decide(attitude: measurement.attitude,
                                     flipped: !measurement.events.isEmpty || stableChanged, at: time)
        return decision.map(PublishReason.policy)
    }

    /// Whether the ticker publishes at `now`: by the policy while there is a reading
    /// (`attitude`), else a heartbeat once nothing went out for the heartbeat interval, so a
    /// subscriber sees a starting or faulty sensor is still there.
    mutating func reasonOnTick(reading attitude: Attitude?, at now: Double) -> PublishReason? {
        if let attitude { return policy.decide(attitude: attitude, flipped: false, at: now).map(PublishReason.policy) }
        return now - policy.lastPublishTime >= policy.heartbeat ? .policy(.heartbeat) : nil
    }

    /// The next state message, recorded as published at `now`; nil before the first reading or
    /// fault, when there is nothing true to say (no nulls dressed up as a state).
    ///
    /// - Parameters:
    ///   - measurement: The pipeline's latest reading; reported only while `sensorOK`.
    ///   - level: The level state, which outlives a reading (a fault keeps it).
    ///   - reason: Why it is published; a heartbeat keeps the bubble's gravity.
    mutating func message(for measurement: Measurement?, level: Bool?, alarm: Bool?, sensorOK: Bool,
                          sensorFaulty: Bool, unit: AngleUnit, reason: PublishReason, at now: Double) -> StatePayload? {
        guard measurement != nil || sensorFaulty else { return nil }
        seq += 1
        let reading = ReadingFigures(sensorOK ? measurement : nil, unit: unit, level: level)
        if let attitude = measurement?.attitude { policy.recordPublished(attitude: attitude, at: now) } else { policy.recordHeartbeat(at: now) }
        publishedStable = sensorOK ? measurement?.isStable : nil
        // The picture follows movement, not heartbeats: a heartbeat's fresh average differs by
        // noise, which would redraw the bubble of a still machine every heartbeat_s.
        if !sensorOK {
            gravity = nil
        } else if !reason.isHeartbeat || gravity == nil {
            gravity = measurement?.levelGravity
        }
        return StatePayload(reading: reading, alarm: alarm, sensorOK: sensorOK, seq: seq)
    }

    static func policy(_ settings: LiveSettings) -> PublishPolicy {
        PublishPolicy(deadband: Angle(degrees: settings.publishDeadbandDeg), minInterval: settings.minIntervalS,
                      heartbeat: settings.heartbeatS)
    }
}
