import Geometry
import Level
import Settings
import Vibration
import VibrationVocabulary

/// What one analysis window led to: its figures, the zone and running state after it, the
/// changes it made, and whether `P/vibration` should carry it.
public struct VibrationOutcome: Sendable {
    /// The window's figures.
    public var figures: VibrationFigures
    /// The ISO zone in force after the window; nil until decided (or at a rate with no velocity
    /// band, which the monitor refuses anyway).
    public var zone: SeverityZone?
    /// Whether the machine runs after the window; nil until decided.
    public var running: Bool?
    /// A start or stop this window made (never the first decision, which is no change).
    public var runningChange: RunningDetector.Transition?
    /// A zone change this window made (never the first decision).
    public var zoneChange: ZoneChange?
    /// Whether and why to publish `P/vibration` now; nil to stay quiet.
    public var publish: VibrationPublishDecision?
}

/// The vibration stage of the agent and of `plumb watch`: raw sample batches in, one
/// ``VibrationOutcome`` per analysis window out.
///
/// It holds the analysis (``VibrationAnalyzer``), the running state (``RunningDetector``), the
/// zone (``ZoneTracker``) and the publish decision (``VibrationPublishPolicy``), and feeds each
/// window to each in turn. Windows of `vibration_window_s` end every ``hopSeconds`` (they
/// overlap), so that a start or stop is reported within a hop of its dwell rather than within a
/// window; the zone, which the standard judges on disjoint looks, is fed every window-length'th
/// window only.
///
/// A class, because the analyzer owns FFTW buffers; not `Sendable`: one owner (the agent's
/// actor, or the CLI's loop) uses it.
public final class VibrationMonitor {
    /// Seconds from one window's end to the next: the sampler's block length, so each batch ends
    /// about one window.
    public static let hopSeconds = 0.1

    /// The settings in force.
    public private(set) var settings: VibrationSettings
    private var analyzer: VibrationAnalyzer
    private var runningDetector: RunningDetector
    private var zoneTracker: ZoneTracker
    private var policy: VibrationPublishPolicy
    /// The newest window's figures; nil before the first and after ``reset()``.
    public private(set) var latest: VibrationFigures?
    /// Windows completed since the monitor was made, across analyzers (`analysis_windows`).
    public private(set) var windowsCompleted = 0
    /// Windows since the zone tracker was last fed.
    private var windowsSinceZoneLook = 0

    /// - Throws: ``VibrationAnalyzerError`` when the rate or window cannot be analysed (at
    ///   25 Hz and below there is no velocity band); its message says what to choose.
    public init(settings: VibrationSettings) throws(VibrationAnalyzerError) {
        self.settings = settings
        analyzer = try Self.analyzer(for: settings)
        runningDetector = RunningDetector(settings: Self.runningSettings(settings.running))
        zoneTracker = ZoneTracker(machineClass: settings.machineClass)
        policy = VibrationPublishPolicy(interval: settings.intervalS, heartbeat: settings.heartbeatS)
    }

    /// The zone in force; nil until the first window decides it.
    public var zone: SeverityZone? { zoneTracker.zone }
    /// Whether the machine runs; nil until the first window decides it.
    public var isRunning: Bool? { runningDetector.isRunning }
    /// When the current run began, on the caller's clock; nil while stopped or unknown.
    public var runStartedAt: Double? { runningDetector.runStartedAt }

    /// Adds a batch of raw samples (g, device frame, oldest first) whose newest is at `time`.
    public func add(_ samples: some Collection<Vector3>, endingAt time: Double) -> [VibrationOutcome] {
        analyzer.add(samples, endingAt: time).map(judge)
    }

    private func judge(_ figures: VibrationFigures) -> VibrationOutcome {
        windowsCompleted += 1
        latest = figures
        var outcome = VibrationOutcome(figures: figures)
        if let transition = runningDetector.update(figures), !transition.isInitial {
            outcome.runningChange = transition
        }
        let perLook = max(1, analyzer.windowSamples / analyzer.hopSamples)
        if windowsSinceZoneLook % perLook == 0, let change = zoneTracker.update(figures), !change.isInitial {
            outcome.zoneChange = change
        }
        windowsSinceZoneLook += 1
        outcome.zone = zoneTracker.zone
        outcome.running = runningDetector.isRunning
        outcome.publish = policy.decide(
            velocity: figures.overall.velocityRMS, acceleration: figures.overall.accelerationRMS,
            changed: outcome.runningChange != nil || outcome.zoneChange != nil, at: figures.time)
        return outcome
    }

    /// New settings, keeping what still holds: the running state and its run (a new threshold
    /// or dwell applies from the next window), the zone unless the machine class changed. A new
    /// rate or window needs a new analyzer, which starts its first window afresh.
    ///
    /// - Throws: ``VibrationAnalyzerError`` when the new rate or window cannot be analysed; the
    ///   monitor is then unchanged.
    public func reconfigure(_ new: VibrationSettings) throws(VibrationAnalyzerError) {
        if new.rateHz != settings.rateHz || new.windowS != settings.windowS {
            analyzer = try Self.analyzer(for: new)
            runningDetector.interrupt()
            windowsSinceZoneLook = 0
            latest = nil
        }
        runningDetector.reconfigure(Self.runningSettings(new.running))
        zoneTracker.reconfigure(machineClass: new.machineClass)
        policy.interval = new.intervalS
        policy.heartbeat = new.heartbeatS
        if new.machineClass != settings.machineClass {
            // The zone is forgotten: the next window decides it, and goes out at once.
            windowsSinceZoneLook = 0
            policy.force()
        }
        settings = new
    }

    /// A gap in the samples (a sensor fault, a job on the chip): no window may straddle it, and
    /// a pending start or stop must hold its whole dwell after it. The state is kept: a fault
    /// says nothing about whether the machine stopped.
    public func reset() {
        analyzer.reset()
        runningDetector.interrupt()
        windowsSinceZoneLook = 0
        latest = nil
    }

    /// A batch's samples. Where samples were lost before some of them (the chip's buffer overran:
    /// ``SampleBatch/gapIndex``), the window in progress is dropped first, since a window across
    /// the loss would join two stretches of the wave out of phase; unlike ``reset()`` the running
    /// and zone judgements carry on, since a few lost milliseconds say nothing about the machine.
    public func add(_ batch: SampleBatch, endingAt time: Double) -> [VibrationOutcome] {
        guard let gap = batch.gapIndex else { return add(batch.samples, endingAt: time) }
        analyzer.reset()
        return add(batch.samples[min(gap, batch.samples.count)...], endingAt: time)
    }

    /// Makes the next window publish (`republish`, a reconnect).
    public func force() {
        policy.force()
    }

    private static func analyzer(for settings: VibrationSettings) throws(VibrationAnalyzerError) -> VibrationAnalyzer {
        try VibrationAnalyzer(rateHz: settings.rateHz, windowSeconds: settings.windowS,
                              hopSeconds: min(hopSeconds, settings.windowS))
    }

    private static func runningSettings(_ running: RunningSettings) -> RunningDetector.Settings {
        RunningDetector.Settings(threshold: running.threshold, hysteresis: running.hysteresis,
                                 startDwell: running.startS, stopDwell: running.stopS)
    }
}
