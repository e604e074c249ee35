import Geometry

/// The thresholds that turn a tilt into "level" and "alarm".
///
/// Named apart from the configuration module's settings: this is only what the state machine
/// needs, already as angles and seconds.
public struct LevelThresholds: Sendable, Hashable {
    /// Level at tilt ≤ `tolerance`.
    public var tolerance: Angle
    /// The width of both bands: level is left only above `tolerance + hysteresis`, and the alarm
    /// clears only at or below `alarmThreshold − hysteresis`. A negative value counts as 0.
    public var hysteresis: Angle
    /// The alarm is raised at tilt > `alarmThreshold`. Normally well above ``tolerance``; nothing
    /// here requires it.
    public var alarmThreshold: Angle
    /// Seconds a new side must hold before level or alarm changes; negative or NaN counts as 0.
    public var dwell: Double

    public init(tolerance: Angle, hysteresis: Angle, alarmThreshold: Angle, dwell: Double) {
        self.tolerance = tolerance
        self.hysteresis = hysteresis
        self.alarmThreshold = alarmThreshold
        self.dwell = dwell
    }
}

/// A change reported by ``LevelStateMachine``. The agent publishes each as an MQTT event whose
/// type is the snake-case name: `level_entered`, `level_left`, `alarm_raised`, `alarm_cleared`.
public enum LevelEvent: Sendable, Hashable {
    /// The tilt came to ≤ tolerance and stayed there for the dwell.
    case levelEntered
    /// The tilt rose above tolerance + hysteresis and stayed there for the dwell.
    case levelLeft
    /// The tilt rose above the alarm threshold and stayed there for the dwell.
    case alarmRaised
    /// The tilt fell to ≤ alarm threshold − hysteresis and stayed there for the dwell.
    case alarmCleared
}

/// Level and alarm, each a ``ThresholdDetector`` on the same tilt with the same hysteresis and
/// dwell.
///
/// - **Level** is entered at tilt ≤ `tolerance` and left at tilt > `tolerance + hysteresis`.
/// - **Alarm** is raised at tilt > `alarmThreshold` and cleared at tilt ≤
///   `alarmThreshold − hysteresis`: the same band, mirrored so that it lies on the safe side of
///   the threshold. A tilt exactly at the threshold does not raise it.
/// - Either changes only after the new side has held for `dwell` seconds (see
///   ``ThresholdDetector`` for the exact rule).
///
/// Both states start unknown (nil). The first reading decides them at once, without dwell and
/// without events: an event reports a change of a known state, and the first state is reported
/// by the state message. A caller that publishes the level on its own topic should do so when
/// ``isLevel`` first becomes non-nil. The first reading inside a band counts as not level, and
/// as no alarm.
///
/// Time is monotonic seconds, passed in; NaN tilts are ignored. No I/O, no clock.
public struct LevelStateMachine: Sendable, Hashable {
    /// The thresholds in force.
    public private(set) var thresholds: LevelThresholds
    /// The level detector.
    public private(set) var level: ThresholdDetector
    /// The alarm detector.
    public private(set) var alarm: ThresholdDetector

    /// A machine with both states unknown until the first reading, unless given.
    public init(thresholds: LevelThresholds, isLevel: Bool? = nil, isAlarm: Bool? = nil) {
        self.thresholds = thresholds
        level = .level(tolerance: thresholds.tolerance, hysteresis: thresholds.hysteresis,
                       dwell: thresholds.dwell, initial: isLevel)
        alarm = .alarm(threshold: thresholds.alarmThreshold, hysteresis: thresholds.hysteresis,
                       dwell: thresholds.dwell, initial: isAlarm)
    }

    /// Whether the tilt is level; nil before the first reading.
    public var isLevel: Bool? { level.isActive }
    /// Whether the alarm is raised; nil before the first reading.
    public var isAlarm: Bool? { alarm.isActive }

    /// Feeds one tilt at monotonic `time` seconds and returns what changed, usually nothing.
    ///
    /// When both change on one reading, an alarm clearing comes first and otherwise the level
    /// change does, so they read in the order a moving tilt passes the thresholds:
    /// `[.levelLeft, .alarmRaised]` going up, `[.alarmCleared, .levelEntered]` coming down. The
    /// first reading returns no events (see the type's notes).
    public mutating func update(tilt: Angle, at time: Double) -> [LevelEvent] {
        let levelChange = level.update(tilt: tilt, at: time).flatMap(Self.levelEvent)
        let alarmChange = alarm.update(tilt: tilt, at: time).flatMap(Self.alarmEvent)
        switch (levelChange, alarmChange) {
        case (nil, nil): return []
        case (let change?, nil), (nil, let change?): return [change]
        case (let levelChange?, .alarmCleared): return [.alarmCleared, levelChange]
        case (let levelChange?, let alarmChange?): return [levelChange, alarmChange]
        }
    }

    /// Changes the thresholds while running. Both states are kept; the next reading is judged
    /// against the new thresholds and any change still needs the dwell (see
    /// ``ThresholdDetector/reconfigure(enter:leave:dwell:)``).
    public mutating func reconfigure(_ thresholds: LevelThresholds) {
        self.thresholds = thresholds
        let newLevel = ThresholdDetector.level(tolerance: thresholds.tolerance, hysteresis: thresholds.hysteresis,
                                               dwell: thresholds.dwell)
        let newAlarm = ThresholdDetector.alarm(threshold: thresholds.alarmThreshold,
                                               hysteresis: thresholds.hysteresis, dwell: thresholds.dwell)
        level.reconfigure(enter: newLevel.enter, leave: newLevel.leave, dwell: newLevel.dwell)
        alarm.reconfigure(enter: newAlarm.enter, leave: newAlarm.leave, dwell: newAlarm.dwell)
    }

    private static func levelEvent(_ transition: ThresholdDetector.Transition) -> LevelEvent? {
        guard !transition.isInitial else { return nil }
        return transition.isActive ? .levelEntered : .levelLeft
    }

    private static func alarmEvent(_ transition: ThresholdDetector.Transition) -> LevelEvent? {
        guard !transition.isInitial else { return nil }
        return transition.isActive ? .alarmRaised : .alarmCleared
    }
}
