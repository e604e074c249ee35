import VibrationVocabulary

/// Whether the machine is running, judged window by window against `running_threshold`, with
/// hysteresis and separate dwells for starting and stopping, so that a washer's pause mid-cycle
/// does not count as "done".
///
/// **Levels.** A window's level is its overall RMS velocity (mm/s) or overall RMS acceleration
/// (g), whichever unit the threshold is in (``VibrationFigures/runningLevel(_:)``). The machine
/// starts when the level is above the threshold, and stops only when it is below
/// `threshold × (1 − hysteresis)`; a level between changes nothing.
///
/// **Dwell.** A change needs the other side to hold: the first window past the boundary opens a
/// candidate, every later window must stay past it (any other cancels it, so a pause that
/// ends before `running_stop_s` leaves the machine running), and the change is made at the first
/// window ending at least the dwell (`running_start_s` or `running_stop_s`) after the moment
/// the change happened.
///
/// **When it happened.** That moment lies inside a window that straddles it, not at a window's
/// end, and is estimated: once a window wholly after the change is in, the window whose level
/// lies nearest halfway between a window wholly before and that one is split where its weighting
/// (uniform for acceleration, the Hann window's for velocity) puts the difference. Until then,
/// the end of the first window past the boundary stands in, which is never early. So a change
/// is reported within about one window's spacing of its dwell: with windows ending every 0.1 s
/// (``VibrationAnalyzer``'s hop), within 0.2 s after it (`plumb-bench vibration`: 0.00–0.11 s);
/// with 1 s windows that do not overlap, from 0.2 s before it to 1.2 s after, since the Hann
/// window's faint edges hide where in them a change fell.
///
/// **Start.** Unknown (`nil`) until the first window, which decides at once and without dwell:
/// running exactly when its level is above the threshold. That first decision is a
/// ``Transition`` with ``Transition/wasRunning`` nil, which is not a change: the agent publishes
/// the state but sends neither `running_started` nor `running_stopped`, so a washer-done
/// automation never fires because the agent started (it should trigger on the event, or on the
/// state going from `on` to `off`, never on reaching `off`). A machine found running at the first
/// window counts its run from that window's start.
///
/// **Not a number.** A NaN level or a time that is not finite is ignored: no change, and a
/// pending candidate is kept.
///
/// Time is seconds on the caller's clock, passed in; this type reads no clock. A value type with
/// no I/O: each owner keeps its own.
public struct RunningDetector: Sendable, Hashable {
    /// `running_threshold`, `running_hysteresis`, `running_start_s` and `running_stop_s`.
    public struct Settings: Sendable, Hashable {
        /// The level above which the machine runs.
        public var threshold: RunningThreshold
        /// The fraction of the threshold the level must fall below it to stop: 0 to 0.9; NaN
        /// or less counts as 0, more as 0.9.
        public var hysteresis: Double {
            didSet { hysteresis = Self.normalized(hysteresis: hysteresis) }
        }
        /// Seconds above the threshold before a stopped machine runs; NaN or less than 0 is 0.
        public var startDwell: Double {
            didSet { startDwell = Self.normalized(dwell: startDwell) }
        }
        /// Seconds below the stop level before a running machine stops: longer than the
        /// machine's longest pause. NaN or less than 0 is 0.
        public var stopDwell: Double {
            didSet { stopDwell = Self.normalized(dwell: stopDwell) }
        }

        /// `running_hysteresis`'s default.
        public static let defaultHysteresis = 0.25
        /// `running_start_s`'s default: long enough that a door slammed is not a start.
        public static let defaultStartDwell = 5.0
        /// `running_stop_s`'s default: longer than a washer's pauses between phases.
        public static let defaultStopDwell = 120.0
        /// Every default.
        public static let `default` = Settings()

        public init(threshold: RunningThreshold = .default, hysteresis: Double = Settings.defaultHysteresis,
                    startDwell: Double = Settings.defaultStartDwell, stopDwell: Double = Settings.defaultStopDwell) {
            self.threshold = threshold
            self.hysteresis = Self.normalized(hysteresis: hysteresis)
            self.startDwell = Self.normalized(dwell: startDwell)
            self.stopDwell = Self.normalized(dwell: stopDwell)
        }

        /// The level a running machine must fall below to stop, in the threshold's unit.
        public var stopLevel: Double { threshold.value * (1 - hysteresis) }

        private static func normalized(hysteresis: Double) -> Double {
            hysteresis > 0 ? min(hysteresis, 0.9) : 0  // false for NaN too
        }

        private static func normalized(dwell: Double) -> Double {
            dwell > 0 ? dwell : 0
        }
    }

    /// A change of state, or the first decision, as returned by ``update(_:)``.
    public struct Transition: Sendable, Hashable {
        /// The new state.
        public var isRunning: Bool
        /// The state before; nil for the first decision, which is not a change.
        public var wasRunning: Bool?
        /// The end of the window that made the change, seconds: when it is reported.
        public var time: Double
        /// When the change happened, estimated (see the detector's notes), seconds; at most
        /// ``time`` − dwell. For the first decision, the start of its window.
        public var changedAt: Double
        /// When the run began: for a start (and a first decision of running) ``changedAt``, for
        /// a stop the start it ends; nil for a first decision of stopped.
        public var runStartedAt: Double?
        /// The deciding window's level, in the threshold's unit.
        public var level: Double
        /// For a stop, whether the detector saw the run start (a change), rather than finding
        /// the machine running at its first window: only then is ``duration`` the whole run.
        public var startSeen: Bool

        public init(isRunning: Bool, wasRunning: Bool?, time: Double, changedAt: Double, runStartedAt: Double?,
                    level: Double, startSeen: Bool = true) {
            self.isRunning = isRunning
            self.wasRunning = wasRunning
            self.time = time
            self.changedAt = changedAt
            self.runStartedAt = runStartedAt
            self.level = level
            self.startSeen = startSeen
        }

        /// Whether this is the first decision rather than a change.
        public var isInitial: Bool { wasRunning == nil }

        /// For a stop, how long the run lasted (`duration_s`), seconds; nil otherwise.
        public var duration: Double? {
            guard !isRunning, wasRunning == true, let start = runStartedAt else { return nil }
            return max(0, changedAt - start)
        }
    }

    /// One window as the detector remembers it: its level squared (mean squares add, levels do
    /// not) and its span.
    struct Observation: Sendable, Hashable {
        var meanSquare: Double
        var start: Double
        var end: Double
        var length: Double { end - start }
    }

    /// A change waiting for its dwell.
    struct Candidate: Sendable, Hashable {
        /// The first window past the boundary.
        var opened: Observation
        /// When the change happened: `opened.end` until estimated.
        var since: Double
        var estimated = false
    }

    /// The settings in force.
    public private(set) var settings: Settings
    /// Whether the machine runs; nil until the first window.
    public private(set) var isRunning: Bool?
    /// When the current run began; nil while stopped or unknown.
    public private(set) var runStartedAt: Double?
    /// Whether the current run's start was a change this detector saw; false for a run found
    /// under way at the first window or given as the initial state.
    public private(set) var runStartSeen = false
    private var candidate: Candidate?
    /// The recent windows, oldest first, as far back as an estimate needs.
    private var history: [Observation] = []

    /// The most windows kept, whatever their spacing.
    private static let historyLimit = 2048

    /// A detector with `settings`, starting in `initial` (nil, the default: the first window
    /// decides).
    public init(settings: Settings = .default, initial: Bool? = nil) {
        self.settings = settings
        isRunning = initial
    }

    /// When the pending change happened (estimated), or nil when none is pending.
    public var pendingSince: Double? { candidate?.since }

    /// Feeds one window's figures: compares their ``VibrationFigures/runningLevel(_:)``.
    public mutating func update(_ figures: VibrationFigures) -> Transition? {
        update(level: figures.runningLevel(settings.threshold.unit), from: figures.startTime, to: figures.time)
    }

    /// Feeds one window's level, in the threshold's unit, for the window (`start`, `end`].
    /// Windows must come in order of their ends.
    ///
    /// - Returns: The change this window made, or the first decision, or nil.
    public mutating func update(level: Double, from start: Double, to end: Double) -> Transition? {
        guard level >= 0, level.isFinite, start.isFinite, end.isFinite, end > start else { return nil }
        let observation = Observation(meanSquare: level * level, start: start, end: end)
        remember(observation)
        guard let running = isRunning else {
            let decided = level > settings.threshold.value
            isRunning = decided
            runStartedAt = decided ? start : nil
            runStartSeen = false
            return Transition(isRunning: decided, wasRunning: nil, time: end, changedAt: start,
                              runStartedAt: runStartedAt, level: level)
        }
        let past = running ? level < settings.stopLevel : level > settings.threshold.value
        guard past else {
            candidate = nil
            return nil
        }
        var pending = candidate ?? Candidate(opened: observation, since: end)
        if !pending.estimated, let estimate = estimateChange(opened: pending.opened, after: observation) {
            pending.since = estimate
            pending.estimated = true
        }
        candidate = pending
        let dwell = running ? settings.stopDwell : settings.startDwell
        guard end - pending.since >= dwell else { return nil }
        candidate = nil
        isRunning = !running
        if running {
            let start = runStartedAt
            runStartedAt = nil
            return Transition(isRunning: false, wasRunning: true, time: end, changedAt: pending.since,
                              runStartedAt: start, level: level, startSeen: runStartSeen)
        }
        runStartedAt = pending.since
        runStartSeen = true
        return Transition(isRunning: true, wasRunning: false, time: end, changedAt: pending.since,
                          runStartedAt: pending.since, level: level)
    }

    /// Changes the settings while running. The state and the current run are kept; a pending
    /// candidate is dropped (it was judged against the old boundaries), and with a change of
    /// unit the remembered windows too. Identical settings change nothing, so a reload that
    /// leaves them alone does not restart a dwell.
    public mutating func reconfigure(_ settings: Settings) {
        guard settings != self.settings else { return }
        if settings.threshold.unit != self.settings.threshold.unit { history.removeAll() }
        self.settings = settings
        candidate = nil
    }

    /// A gap in the windows (a sensor fault): the pending change and the remembered windows are
    /// dropped, the state and the current run kept. A change must then hold its whole dwell in
    /// the windows after the gap.
    public mutating func interrupt() {
        candidate = nil
        history.removeAll()
    }

    private mutating func remember(_ observation: Observation) {
        if let last = history.last, observation.end <= last.end { history.removeAll() }
        history.append(observation)
        // An estimate looks back two windows before the first window past the boundary, and is
        // made one window after it: four windows back is enough.
        let horizon = observation.end - 4 * observation.length
        let stale = history.prefix { $0.end < horizon }.count
        let excess = max(0, history.count - Self.historyLimit)
        if max(stale, excess) > 0 { history.removeFirst(max(stale, excess)) }
    }

    /// When a change that first showed in `opened` happened, once `after` lies wholly after it;
    /// nil while it cannot be told yet.
    ///
    /// A window wholly before the change ends at least two window lengths before `opened` does
    /// (`opened` holds part of the new state, or follows a window that does). Between that one
    /// and `after`, the window whose level lies nearest halfway between theirs is split where
    /// its weighting puts that share of the new level.
    private func estimateChange(opened: Observation, after: Observation) -> Double? {
        let tolerance = 0.05 * opened.length
        guard after.start >= opened.end - tolerance,
              let before = history.last(where: { $0.end <= opened.end - 2 * opened.length + tolerance })
        else { return nil }
        let rise = after.meanSquare - before.meanSquare
        guard abs(rise) > 0 else { return opened.end }
        let weighting: WindowWeighting = settings.threshold.unit == .millimetresPerSecond ? .hann : .uniform
        var best: (distance: Double, estimate: Double)?
        for straddling in history where straddling.end > before.end && straddling.end < after.end {
            let share = (straddling.meanSquare - before.meanSquare) / rise
            let estimate = straddling.end - straddling.length * weighting.fraction(forShare: share)
            let distance = abs(min(1, max(0, share)) - 0.5)
            if distance < best?.distance ?? .infinity { best = (distance, estimate) }
        }
        guard let best else { return opened.end }
        return min(opened.end, max(before.end, best.estimate))
    }
}
