import Geometry

/// A two-state switch on a tilt, with hysteresis and a dwell time, so that a reading hovering at
/// a boundary cannot make it chatter.
///
/// It is either *active* or *inactive* (or not yet known). Two boundaries define it: the state
/// becomes active past ``enter`` and inactive past ``leave``, and the band between them changes
/// nothing. Which side of a boundary counts is fixed by the ``Polarity``:
///
/// | polarity            | becomes active when | becomes inactive when | boundaries      |
/// |---------------------|---------------------|-----------------------|-----------------|
/// | ``Polarity/activeAtOrBelow`` (a level) | tilt ≤ `enter` | tilt > `leave` | `enter ≤ leave` |
/// | ``Polarity/activeAbove`` (an alarm)    | tilt > `enter` | tilt ≤ `leave` | `leave ≤ enter` |
///
/// In both, a tilt exactly on a boundary counts as the low side: `≤` is low, `>` is high.
///
/// **Dwell.** A state changes only after the other side has held for ``dwell`` seconds: the first
/// reading past the boundary starts a candidate, every later reading must stay past it, and the
/// first one at least `dwell` seconds after the start makes the change. Any reading that is not
/// past the boundary (one back on the current side, including inside the band) cancels the
/// candidate, and the next crossing starts the count again. A dwell of 0 changes on the first
/// reading past the boundary. Readings are discrete, so a change happens at a reading, never
/// between two.
///
/// **Start.** With an unknown state (`nil`), the first reading decides at once, without dwell:
/// active exactly when it meets the *entering* condition. A first reading inside the band is
/// therefore inactive (not level, no alarm), since nothing has entered yet.
///
/// **Not a number.** A NaN tilt, or a time that is not finite, is ignored: no change, and a
/// pending candidate is kept, neither confirmed nor cancelled.
///
/// Time is monotonic seconds from any origin, passed in by the caller; this type reads no clock.
/// A value type with no I/O: copy it freely, and give each owner its own.
public struct ThresholdDetector: Sendable, Hashable {
    /// Which side of the boundaries is the active state.
    public enum Polarity: Sendable, Hashable {
        /// Active while the tilt is small, like "level": becomes active at tilt ≤ ``enter``,
        /// inactive at tilt > ``leave``, with `leave ≥ enter`.
        case activeAtOrBelow
        /// Active while the tilt is large, like an alarm: becomes active at tilt > ``enter``,
        /// inactive at tilt ≤ ``leave``, with `leave ≤ enter`.
        case activeAbove
    }

    /// A change of state, as returned by ``update(tilt:at:)``.
    public struct Transition: Sendable, Hashable {
        /// The new state.
        public var isActive: Bool
        /// The state before; nil when this is the first decision from an unknown state.
        public var wasActive: Bool?
        /// The time of the reading that made the change, seconds.
        public var time: Double
        /// When the new side was first seen, seconds: `time − heldSince ≥ dwell`. Equal to
        /// ``time`` for the first decision and with no dwell.
        public var heldSince: Double

        public init(isActive: Bool, wasActive: Bool?, time: Double, heldSince: Double) {
            self.isActive = isActive
            self.wasActive = wasActive
            self.time = time
            self.heldSince = heldSince
        }

        /// Whether this is the first decision from an unknown state rather than a change.
        public var isInitial: Bool { wasActive == nil }
    }

    /// Which side of the boundaries is active.
    public let polarity: Polarity
    /// The boundary crossed to become active.
    public private(set) var enter: Angle
    /// The boundary crossed to become inactive, never on the wrong side of ``enter`` (see
    /// ``init(polarity:enter:leave:dwell:initial:)``). Its distance from `enter` is the hysteresis.
    public private(set) var leave: Angle
    /// Seconds the other side must hold before the state changes; never negative.
    public private(set) var dwell: Double
    /// The current state; nil until the first reading when started unknown.
    public private(set) var isActive: Bool?
    /// When the current candidate for a change was first seen, seconds; nil when none is pending.
    public private(set) var pendingSince: Double?

    /// A detector with the given boundaries.
    ///
    /// - Parameters:
    ///   - enter: The boundary crossed to become active.
    ///   - leave: The boundary crossed to become inactive. One on the wrong side of `enter` (a
    ///     negative hysteresis) is taken as `enter`, so one tilt can never satisfy both the
    ///     entering and the leaving condition and make the state flip back and forth. A NaN
    ///     boundary is never crossed.
    ///   - dwell: Seconds the other side must hold; a negative or NaN dwell is taken as 0, an
    ///     infinite one never changes a known state.
    ///   - initial: The state to start in, or nil (the default) to let the first reading decide.
    public init(polarity: Polarity, enter: Angle, leave: Angle, dwell: Double, initial: Bool? = nil) {
        self.polarity = polarity
        self.enter = enter
        self.leave = Self.normalized(leave: leave, enter: enter, polarity: polarity)
        self.dwell = Self.normalized(dwell: dwell)
        isActive = initial
    }

    /// A level detector: active ("level") at tilt ≤ `tolerance`, inactive at tilt >
    /// `tolerance + hysteresis`. A negative hysteresis counts as 0.
    public static func level(tolerance: Angle, hysteresis: Angle, dwell: Double, initial: Bool? = nil) -> Self {
        Self(polarity: .activeAtOrBelow, enter: tolerance, leave: tolerance + hysteresis, dwell: dwell,
             initial: initial)
    }

    /// An alarm detector: active ("raised") at tilt > `threshold`, inactive ("cleared") at tilt ≤
    /// `threshold − hysteresis`. The band lies below the threshold, on the safe side, mirroring a
    /// level's band above its tolerance. A negative hysteresis counts as 0.
    public static func alarm(threshold: Angle, hysteresis: Angle, dwell: Double, initial: Bool? = nil) -> Self {
        Self(polarity: .activeAbove, enter: threshold, leave: threshold - hysteresis, dwell: dwell, initial: initial)
    }

    /// Changes the boundaries and dwell while running.
    ///
    /// The current state is kept, even if the new boundaries would not have produced it; the next
    /// ``update(tilt:at:)`` judges the reading against the new boundaries, and a change then
    /// still needs the new dwell. A pending candidate is dropped, because it was judged against
    /// the old boundaries. Reapplying identical settings changes nothing, so a reload that leaves
    /// these settings alone does not restart a dwell. Arguments are normalized as in
    /// ``init(polarity:enter:leave:dwell:initial:)``.
    public mutating func reconfigure(enter: Angle, leave: Angle, dwell: Double) {
        let leave = Self.normalized(leave: leave, enter: enter, polarity: polarity)
        let dwell = Self.normalized(dwell: dwell)
        guard enter != self.enter || leave != self.leave || dwell != self.dwell else { return }
        self.enter = enter
        self.leave = leave
        self.dwell = dwell
        pendingSince = nil
    }

    /// Feeds one reading.
    ///
    /// - Parameters:
    ///   - tilt: The tilt now. NaN is ignored (see the type's notes).
    ///   - time: Monotonic seconds. Times must not decrease; a time before a candidate began counts
    ///     as no time held. A non-finite time is ignored.
    /// - Returns: The change this reading made, or nil. The first decision from an unknown state
    ///   is returned too, with ``Transition/wasActive`` nil.
    public mutating func update(tilt: Angle, at time: Double) -> Transition? {
        guard !tilt.radians.isNaN, time.isFinite else { return nil }
        guard let current = isActive else {
            let active = entersActive(tilt)
            isActive = active
            pendingSince = nil
            return Transition(isActive: active, wasActive: nil, time: time, heldSince: time)
        }
        let pastBoundary = current ? leavesActive(tilt) : entersActive(tilt)
        guard pastBoundary else {
            pendingSince = nil
            return nil
        }
        let since = pendingSince ?? time
        guard time - since >= dwell else {
            pendingSince = since
            return nil
        }
        isActive = !current
        pendingSince = nil
        return Transition(isActive: !current, wasActive: current, time: time, heldSince: since)
    }

    /// Whether `tilt` meets the condition to become active. False for NaN.
    public func entersActive(_ tilt: Angle) -> Bool {
        switch polarity {
        case .activeAtOrBelow: tilt <= enter
        case .activeAbove: tilt > enter
        }
    }

    /// Whether `tilt` meets the condition to become inactive. False for NaN.
    public func leavesActive(_ tilt: Angle) -> Bool {
        switch polarity {
        case .activeAtOrBelow: tilt > leave
        case .activeAbove: tilt <= leave
        }
    }

    private static func normalized(leave: Angle, enter: Angle, polarity: Polarity) -> Angle {
        // Comparisons with NaN are false, so a NaN on either side passes through unchanged.
        switch polarity {
        case .activeAtOrBelow: leave < enter ? enter : leave
        case .activeAbove: leave > enter ? enter : leave
        }
    }

    private static func normalized(dwell: Double) -> Double {
        dwell >= 0 ? dwell : 0  // false for NaN too
    }
}
