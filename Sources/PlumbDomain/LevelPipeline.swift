/// The one road from a block of raw samples to an answer: calibration → filter → mount → zero →
/// attitude → level and alarm, with the noise estimate and stability carried along.
///
/// The agent, `plumb read`, `bubble`, `rise`, `shim`, `watch` and `calibrate` all measure
/// through it, so a change to a stage shows everywhere at once.
///
/// - **Calibration** is applied to each block as it arrives: to its mean exactly (the correction
///   is affine, so the corrected mean is the mean of the corrected samples) and to its spread
///   as the bound ``Calibration/spread(_:)``.
/// - **Filter**: the window of the last ``PipelineSettings/windowBlocks`` calibrated blocks
///   becomes one device-frame gravity (``GravityFilter``). A block that has clearly moved away
///   from the window (``Stability/isStep(to:samples:from:)``) starts the window afresh: the old
///   blocks describe another attitude, and averaging them in only delays the new answer, by up
///   to a whole window. So a step settles in a few blocks instead of a window's length, while a
///   still machine keeps the full average.
/// - **Mount** turns it into the level frame, and the **zero reference**, kept as the calibrated
///   device-frame gravity it was taken at, turns that so the zeroed pose reads level. Storing the
///   device-frame gravity rather than the level-frame one lets a new mount re-derive the zero.
/// - **Level and alarm**: a ``LevelStateMachine`` fed the tilt of every block's estimate.
/// - **Stillness**: ``Stability`` judges the window after every block, keeping the hold's anchor
///   from one block to the next.
///
/// Pure and deterministic: time comes with the blocks, nothing here does I/O.
public struct LevelPipeline: Hashable, Sendable {
    /// The settings in force.
    public private(set) var settings: PipelineSettings
    /// The zero reference as the calibrated device-frame gravity it was taken at; nil for none.
    public private(set) var zeroGravity: Vector3?
    /// The newest measurement; nil before the first block and after ``reset()``.
    public private(set) var latest: Measurement?

    private var window: BlockWindow
    private var zero: ZeroReference?
    private var levelMachine: LevelStateMachine
    /// Whether the last block started the window afresh (a step), so the next may drop it.
    private var afterStep = false
    /// The window's mean when the current hold began; nil while not stable.
    private var anchor: Vector3?

    /// A pipeline with nothing measured yet.
    ///
    /// - Parameter zeroGravity: a stored zero reference, calibrated device frame.
    public init(settings: PipelineSettings, zeroGravity: Vector3? = nil) {
        self.settings = settings
        window = BlockWindow(capacity: settings.windowBlocks)
        levelMachine = LevelStateMachine(thresholds: settings.thresholds)
        setZero(zeroGravity)
    }

    /// Level after the last block; nil until the first decides it. Kept across ``reset()``: a
    /// fault says nothing about whether the machine moved.
    public var isLevel: Bool? { levelMachine.isLevel }
    /// The alarm after the last block; nil until the first decides it.
    public var isAlarm: Bool? { levelMachine.isAlarm }

    /// Takes one block and returns the measurement it leads to; nil when the block could not be
    /// used (a non-finite mean or spread, with nothing measured before).
    @discardableResult
    public mutating func add(_ block: SampleBlock) -> Measurement? {
        let calibration = settings.calibration
        let mean = calibration.apply(block.gravity)
        let step = settings.stability.isStep(to: mean, samples: block.samples, from: window)
        // The block that revealed a step may straddle it, part old attitude and part new: kept,
        // it would bias the new reading for a whole window. So it goes when the next block
        // comes; a block that did not straddle costs only one block of averaging, once.
        if step || (afterStep && window.count == 1) { window.reset() }
        afterStep = step
        window.add(mean: mean, spread: calibration.spread(block.spread), samples: block.samples)
        guard var measurement = evaluate(at: block.time, stillness: judgeStillness()) else { return nil }
        measurement.events = levelMachine.update(tilt: measurement.attitude.tilt, at: block.time)
        measurement.isLevel = levelMachine.isLevel
        measurement.isAlarm = levelMachine.isAlarm
        latest = measurement
        return measurement
    }

    /// New settings, keeping what still holds: the newest blocks that fit the new window, level
    /// and alarm (any change still needs the dwell), and the zero reference (re-derived for a
    /// new mount). The latest measurement is re-evaluated at once, without level events: a new
    /// mount or tolerance changes the answer now, not at the next block.
    ///
    /// A new calibration empties the window instead: blocks corrected the old way cannot be
    /// averaged with blocks corrected the new way. The zero reference keeps its pose: it was
    /// stored corrected the old way, so it is taken back to the raw reading of that pose and
    /// corrected the new way. The zeroed pose still reads level; only the angles from it gain the
    /// new calibration's accuracy (``zeroGravity`` changes, so a stored copy needs saving again).
    public mutating func reconfigure(_ new: PipelineSettings) {
        let old = settings
        settings = new
        var zeroGravity = zeroGravity
        if new.calibration != old.calibration {
            window.reset()
            afterStep = false
            anchor = nil
            latest = nil
            zeroGravity = zeroGravity.flatMap { old.calibration.raw(correctedTo: $0) }.map(new.calibration.apply)
        }
        window.resize(capacity: new.windowBlocks)
        if new.thresholds != old.thresholds { levelMachine.reconfigure(new.thresholds) }
        if new.mount != old.mount || new.calibration != old.calibration { setZero(zeroGravity) }
        reevaluate()
    }

    /// Makes the current pose level: stores the latest calibrated device-frame gravity as the zero
    /// reference and returns it; nil (and nothing changed) while there is no measurement.
    @discardableResult
    public mutating func zeroHere() -> Vector3? {
        guard let gravity = latest?.deviceGravity else { return nil }
        setZero(gravity)
        reevaluate()
        return gravity
    }

    /// Sets or (with nil) clears the zero reference: `deviceGravity` is calibrated, device frame.
    /// A gravity with no direction (zero or non-finite) sets no zero.
    public mutating func setZero(_ deviceGravity: Vector3?) {
        zero = deviceGravity.flatMap { ZeroReference(referenceGravity: settings.mount.levelFrame($0)) }
        zeroGravity = zero == nil ? nil : deviceGravity
        reevaluate()
    }

    /// Forgets every block, for a sensor fault: nothing from before it may be averaged with, or
    /// zeroed on, what comes after the recovery. Settings, zero, level and alarm stay.
    public mutating func reset() {
        window.reset()
        afterStep = false
        anchor = nil
        latest = nil
    }

    /// The stillness of the window as it stands, keeping the anchor for the next judgement.
    private mutating func judgeStillness() -> Stillness {
        let verdict = settings.stability.judge(window, anchor: anchor, afterStep: afterStep)
        anchor = verdict.anchor
        return verdict.state
    }

    /// The measurement of the window as it stands, with level and alarm as they stand.
    private func evaluate(at time: Double, stillness: Stillness) -> Measurement? {
        guard let estimate = settings.filter.estimate(of: window), let noise = window.noise else { return nil }
        let mounted = settings.mount.levelFrame(estimate.gravity)
        let levelGravity = zero?.corrected(mounted) ?? mounted
        return Measurement(
            deviceGravity: estimate.gravity, levelGravity: levelGravity, attitude: Attitude(gravity: levelGravity),
            standardError: settings.mount.levelFrame(estimate.standardError).absolute, noise: noise, stillness: stillness,
            isLevel: levelMachine.isLevel, isAlarm: levelMachine.isAlarm, events: [], time: time
        )
    }

    /// Judged again too: new settings (a longer window, another rate's noise) may change it, and
    /// the judgement is idempotent, so unchanged settings leave the hold as it was.
    private mutating func reevaluate() {
        guard let time = latest?.time else { return }
        latest = evaluate(at: time, stillness: judgeStillness())
    }
}
