/// What one block of samples amounts to, once through the ``LevelPipeline``: the only answer any
/// part of Plumb gives about a reading.
public struct Measurement: Hashable, Sendable {
    /// Filtered gravity in g, device frame, after the ``Calibration``: what `gravity` reports and
    /// what the zero command stores.
    public var deviceGravity: Vector3
    /// The same gravity in the level frame: after the mount and the zero reference.
    public var levelGravity: Vector3
    /// Roll, pitch and tilt of ``levelGravity``.
    public var attitude: Attitude
    /// The standard error of each component of ``levelGravity``, in g (the window's, or the last
    /// block's while the window has fewer than two blocks).
    ///
    /// Carried through the mount's remap but not the zero's rotation: a zero turns the frame by
    /// the mounting error, a few degrees at most, too little to mix the axes' noise meaningfully.
    public var standardError: Vector3
    /// The rms noise of the window's samples per axis, in g, device frame (calibrated); see
    /// ``BlockWindow/noise``.
    public var noise: Vector3
    /// Whether the reading can be held: a full window that neither shakes nor moves (see
    /// ``Stability``).
    public var isStable: Bool
    /// Level and alarm after this block; nil until the first block decides them.
    public var isLevel: Bool?
    public var isAlarm: Bool?
    /// The level and alarm changes this block caused, in the order of ``LevelStateMachine``;
    /// empty for a measurement re-evaluated under new settings.
    public var events: [LevelEvent]
    /// When the newest block in the window was complete, monotonic seconds.
    public var time: Double

    public init(deviceGravity: Vector3, levelGravity: Vector3, attitude: Attitude, standardError: Vector3,
                noise: Vector3, isStable: Bool, isLevel: Bool?, isAlarm: Bool?, events: [LevelEvent], time: Double) {
        self.deviceGravity = deviceGravity
        self.levelGravity = levelGravity
        self.attitude = attitude
        self.standardError = standardError
        self.noise = noise
        self.isStable = isStable
        self.isLevel = isLevel
        self.isAlarm = isAlarm
        self.events = events
        self.time = time
    }
}

/// When a reading counts as stable: the hold of a professional inclinometer, which only takes a
/// reading once the sensor has stopped moving and shaking.
///
/// Two tests, each the window's noise against a multiple of what the chip shows at rest: the
/// spread of all its samples (``BlockWindow/noise``: vibration, handling) within
/// ``noiseFactor`` × the expected noise, and the scatter of its block means
/// (``BlockWindow/meanScatter``: a tilt that moves) within ``noiseFactor`` × the expected noise of
/// a block mean, expected / √n. A still sensor passes both with a wide margin; a tilt moving
/// steadily through a whole window fails the second from about half a degree a second (100 Hz,
/// blocks of 10 samples, a 1 s window).
public struct Stability: Hashable, Sendable {
    /// The rms noise of single samples at rest, per axis, in g (for an ADXL345 at the rate in
    /// use, ``ADXL345Noise/expectedRMS(odrHz:)``).
    public var expectedNoise: Vector3
    /// How many times the expected noise still counts as still, as in
    /// ``StillnessDetector/Configuration/noiseFactor``.
    public var noiseFactor: Double

    public init(expectedNoise: Vector3, noiseFactor: Double = 3) {
        self.expectedNoise = expectedNoise
        self.noiseFactor = noiseFactor
    }

    /// For an ADXL345 at `odrHz`.
    public static func adxl345(odrHz: Double) -> Stability {
        Stability(expectedNoise: ADXL345Noise.expectedRMS(odrHz: odrHz))
    }

    /// Whether `window` is still; false while it is empty.
    public func isStill(_ window: BlockWindow) -> Bool {
        guard let noise = window.noise, let scatter = window.meanScatter, let n = window.samplesPerBlock else { return false }
        let limit = expectedNoise * noiseFactor
        return Self.within(noise, limit) && Self.within(scatter, limit / Double(n).squareRoot())
    }

    /// How far, in standard errors of a block mean, a block must lie from the window's mean to
    /// count as a step. Far past noise (a still sensor's block means stray by more than 8σ about
    /// once in 10¹⁵ blocks), yet only about 0.4° for an ADXL345's 0.1 s blocks.
    public static let stepFactor = 8.0

    /// Whether a block of `samples` samples with calibrated mean `mean` has moved away from
    /// `window`: on some axis it lies more than ``stepFactor`` standard errors of a block mean
    /// from the window's mean. The standard error is the chip's expected one, or, when larger,
    /// the one the window's within-block scatter implies: vibration scatters every sample and so
    /// every block mean, and must not restart the window at every block. The scatter of the block
    /// means themselves is no guide: one block that straddles a step inflates it enough to hide
    /// the step.
    public func isStep(to mean: Vector3, samples: Int, from window: BlockWindow) -> Bool {
        guard let windowMean = window.means.mean, mean.isFinite else { return false }
        let within = window.withinBlockNoise ?? .zero
        let perSample = Vector3(x: max(expectedNoise.x, within.x), y: max(expectedNoise.y, within.y),
                                z: max(expectedNoise.z, within.z))
        let limit = perSample / Double(max(1, samples)).squareRoot() * Self.stepFactor
        let distance = (mean - windowMean).absolute
        return distance.x > limit.x || distance.y > limit.y || distance.z > limit.z
    }

    private static func within(_ value: Vector3, _ limit: Vector3) -> Bool {
        value.x <= limit.x && value.y <= limit.y && value.z <= limit.z
    }
}

/// Everything that shapes the ``LevelPipeline``'s answers, stage by stage.
public struct PipelineSettings: Hashable, Sendable {
    /// The chip's correction; ``Calibration/identity`` reads raw.
    public var calibration: Calibration
    /// How the window becomes one estimate.
    public var filter: GravityFilter
    /// Blocks averaged (at least 1).
    public var windowBlocks: Int
    /// How the device sits on the machine.
    public var mount: Mount
    /// Level and alarm thresholds, hysteresis and dwell.
    public var thresholds: LevelThresholds
    /// When a reading is stable.
    public var stability: Stability

    public init(calibration: Calibration, filter: GravityFilter = .mean, windowBlocks: Int, mount: Mount,
                thresholds: LevelThresholds, stability: Stability) {
        self.calibration = calibration
        self.filter = filter
        self.windowBlocks = max(1, windowBlocks)
        self.mount = mount
        self.thresholds = thresholds
        self.stability = stability
    }
}

extension LevelThresholds {
    /// Level at tilt ≤ `tolerance`, changing at once and never raising an alarm: a single reading
    /// judged on its own, as the command line does.
    public static func instant(tolerance: Angle) -> LevelThresholds {
        LevelThresholds(tolerance: tolerance, hysteresis: .zero, alarmThreshold: Angle(degrees: 180), dwell: 0)
    }
}
