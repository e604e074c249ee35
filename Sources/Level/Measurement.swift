import Geometry
import Thermal

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
    /// block's while the window has fewer than two blocks; see ``BlockWindow/standardError``).
    ///
    /// Carried through the mount's remap but not the zero's rotation: a zero turns the frame by
    /// the mounting error, a few degrees at most, too little to mix the axes' noise meaningfully.
    public var standardError: Vector3
    /// The rms noise of the window's samples per axis, in g, device frame (calibrated), as the
    /// filter passes them: under `lowpass` vibration above the cutoff does not show here. See
    /// ``BlockWindow/noise``.
    public var noise: Vector3
    /// Whether the reading can be held, is still settling, or moved (see ``Stability``).
    public var stillness: Stillness
    /// Level and alarm after this block; nil until the first block decides them.
    public var isLevel: Bool?
    public var isAlarm: Bool?
    /// The level and alarm changes this block caused, in the order of ``LevelStateMachine``;
    /// empty for a measurement re-evaluated under new settings.
    public var events: [LevelEvent]
    /// When the newest block in the window was complete, monotonic seconds.
    public var time: Double
    /// The part's temperature the reading was corrected at, °C; nil when no fresh one is known
    /// (no source, or a stale one).
    public var temperatureCelsius: Double?
    /// What the reading's error may be: the 95 % bound on the tilt error and its terms
    /// (``UncertaintyBudget``).
    public var uncertainty: UncertaintyBudget

    public init(deviceGravity: Vector3, levelGravity: Vector3, attitude: Attitude, standardError: Vector3,
                noise: Vector3, stillness: Stillness, isLevel: Bool?, isAlarm: Bool?, events: [LevelEvent], time: Double,
                temperatureCelsius: Double? = nil, uncertainty: UncertaintyBudget? = nil) {
        self.temperatureCelsius = temperatureCelsius
        // Without a budget, the standard error alone: what the window's noise says.
        self.uncertainty = uncertainty ?? UncertaintyBudget(
            noise: ((standardError.x * standardError.x + standardError.y * standardError.y) / 2).squareRoot(),
            calibration: 0, temperature: 0, quantisation: 0)
        self.deviceGravity = deviceGravity
        self.levelGravity = levelGravity
        self.attitude = attitude
        self.standardError = standardError
        self.noise = noise
        self.stillness = stillness
        self.isLevel = isLevel
        self.isAlarm = isAlarm
        self.events = events
        self.time = time
    }

    /// Whether the reading can be held: `stable` wherever Plumb reports one.
    public var isStable: Bool { stillness == .stable }
}

/// Everything that shapes the ``LevelPipeline``'s answers, stage by stage.
public struct PipelineSettings: Hashable, Sendable {
    /// The chip's correction; ``Calibration/identity`` reads raw.
    public var calibration: Calibration
    /// How the samples become one estimate (the `filter` setting). A change restarts the window
    /// and the low-pass (``LevelPipeline/reconfigure(_:)``).
    public var filter: GravityFilter
    /// Blocks averaged (at least 1).
    public var windowBlocks: Int
    /// How the device sits on the machine.
    public var mount: Mount
    /// Level and alarm thresholds, hysteresis and dwell.
    public var thresholds: LevelThresholds
    /// When a reading is stable.
    public var stability: Stability
    /// The drift model applied with the calibration, and what the uncertainty counts.
    public var thermal: ThermalCompensation

    public init(calibration: Calibration, filter: GravityFilter = .mean, windowBlocks: Int, mount: Mount,
                thresholds: LevelThresholds, stability: Stability, thermal: ThermalCompensation = .noiseOnly) {
        self.calibration = calibration
        self.thermal = thermal
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
