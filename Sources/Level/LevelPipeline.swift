import Geometry
import Thermal

/// The one road from raw samples to an answer: block → calibration → filter → mount → zero →
/// attitude → level and alarm, with the noise estimate and stability carried along.
///
/// The agent, `plumb read`, `bubble`, `rise`, `shim`, `watch` and `calibrate` all hand it the
/// sampler's batches of raw samples (``SampleBatch``), so a change to a stage shows everywhere
/// at once.
///
/// - **Block**: each batch becomes one block, its samples' mean and spread, in one pass over
///   them (``SampleBlock``). Under the `lowpass` filter each sample goes through the
///   ``LowpassFilter`` in that same pass, before anything is averaged, and the block is of the
///   filtered samples. The filter's state lives here; it starts from the first batch (a
///   Hann-weighted mean of it, not 0 g, which would read a step for seconds, nor one sample,
///   which carries its share of any vibration) and again after ``reset()``, a new filter or a
///   new rate.
/// - **Calibration** is applied to each block: to its mean exactly (the correction is affine, so
///   the corrected mean is the mean of the corrected samples) and to its spread as the bound
///   ``Calibration/spread(_:)``. The low-pass runs on the raw samples, before it: it is linear
///   with unit gain at DC, so filtering and then calibrating equals calibrating and then
///   filtering, and a new calibration carries on with the filter as it is.
/// - **Filter**: the window of the last ``PipelineSettings/windowBlocks`` calibrated blocks
///   becomes one device-frame gravity (``GravityFilter``): their mean, per-axis median, or the
///   mean of the low-passed blocks. A block that has clearly moved away from the window
///   (``Stability/isStep(to:noise:from:recent:)``) starts the window afresh: the old blocks
///   describe another attitude, and averaging them in only delays the new answer, by up to a
///   whole window. So a step settles in a few blocks instead of a window's length, while a still
///   machine keeps the full average. Under `mean` the next block restarts it once more (the
///   step's block may straddle it); under `median` a step is two blocks in a row away (one is a
///   knock, which the median ignores); under `lowpass` the window restarts with each block while
///   the filter is still following the step (``Stability/isFollowing(to:noise:from:recent:)``),
///   so it averages only what the filter has settled on. The filter itself is not restarted: it
///   would start its response to any vibration over, a transient of about the vibration's
///   amplitude × cutoff / frequency (8 mg for 0.2 g at 50 Hz), where carrying on follows the
///   step in its own settling time.
/// - **Mount** turns it into the level frame, and the **zero reference**, kept as the calibrated
///   device-frame gravity it was taken at, turns that so the zeroed pose reads level. Storing the
///   device-frame gravity rather than the level-frame one lets a new mount re-derive the zero.
/// - **Level and alarm**: a ``LevelStateMachine`` fed the tilt of every block's estimate.
/// - **Stillness**: ``Stability`` judges the window after every block, keeping the hold's anchor
///   from one block to the next, on the samples as the filter passes them: a machine running at
///   0.2 g reads `stable` under `lowpass` while its tilt is still.
///
/// Pure and deterministic: time and rate come with the batches, nothing here does I/O, and the
/// same batches give the same measurements.
public struct LevelPipeline: Hashable, Sendable {
    /// The settings in force.
    public private(set) var settings: PipelineSettings
    /// The zero reference as the calibrated device-frame gravity it was taken at; nil for none.
    public private(set) var zeroGravity: Vector3?
    /// The newest measurement; nil before the first batch and after ``reset()``.
    public private(set) var latest: Measurement?

    private var window: BlockWindow
    private var stage = BlockStage()
    private var zero: ZeroReference?
    private var levelMachine: LevelStateMachine
    /// Whether the last block was a step that started the window afresh.
    private var afterStep = false
    /// Blocks still to come that start the window afresh after a step: the straddling block's
    /// drop, or the low-pass's settling.
    private var restartsLeft = 0
    /// Under `median`: whether the last block lay beyond the step limit on its own. A knock,
    /// unless the next block lies beyond it too.
    private var outlier = false
    /// The window's mean when the current hold began; nil while not stable.
    private var anchor: Vector3?
    /// The rate of the last batch, in Hz.
    private var rateHz: Double?
    /// Under `lowpass`: how much neighbouring blocks differed lately, across restarts.
    private var recent = NeighbourDifferences()
    /// The temperature the last batch came with.
    private var temperature = TemperatureReading.unknown

    /// A pipeline with nothing measured yet.
    ///
    /// - Parameter zeroGravity: a stored zero reference, calibrated device frame.
    public init(settings: PipelineSettings, zeroGravity: Vector3? = nil) {
        self.settings = settings
        window = BlockWindow(capacity: settings.windowBlocks, filter: settings.filter)
        levelMachine = LevelStateMachine(thresholds: settings.thresholds)
        setZero(zeroGravity)
    }

    /// Level after the last block; nil until the first decides it. Kept across ``reset()``: a
    /// fault says nothing about whether the machine moved.
    public var isLevel: Bool? { levelMachine.isLevel }
    /// The alarm after the last block; nil until the first decides it.
    public var isAlarm: Bool? { levelMachine.isAlarm }

    /// Takes one batch of raw samples and returns the measurement it leads to; nil when nothing
    /// could be measured (no finite sample, with nothing measured before).
    ///
    /// A batch at another rate than the one before starts the window and the filter afresh:
    /// blocks of another size carry another noise, and the low-pass is designed per rate.
    ///
    /// - Parameter temperature: the part's temperature as the source in force reports it: the
    ///   drift model corrects the batch's block at it (at the last value known, while stale),
    ///   and the uncertainty counts how far it lies from what the calibration covers.
    @discardableResult
    public mutating func add(_ batch: SampleBatch, temperature: TemperatureReading = .unknown) -> Measurement? {
        self.temperature = temperature
        if let rateHz, rateHz != batch.rateHz {
            restartWindow()
            recent.reset()
        }
        rateHz = batch.rateHz
        if let output = stage.block(of: batch, filter: settings.filter) { take(output) }
        guard var measurement = evaluate(at: batch.time, stillness: judgeStillness()) else { return nil }
        measurement.events = levelMachine.update(tilt: measurement.attitude.tilt, at: batch.time)
        measurement.isLevel = levelMachine.isLevel
        measurement.isAlarm = levelMachine.isAlarm
        latest = measurement
        return measurement
    }

    /// Puts one block in the window, restarting it on a step.
    private mutating func take(_ output: BlockStage.Output) {
        let calibration = settings.calibration
        let calibrated = settings.thermal.correct(output.block.gravity, by: calibration, temperature: temperature)
        let away = settings.stability.isStep(to: calibrated, noise: output.noise, from: window, recent: recent)
        if output.noise.isFiltered { recent.add(calibrated) }
        let step: Bool
        if settings.filter == .median {
            // A knock moves one block and the median ignores it; a step moves every block from
            // then on, so it is one only when the next block agrees. The first may straddle it,
            // so the window restarts with the second, and nothing needs dropping after it.
            step = away && outlier
            outlier = away && !step
        } else {
            step = away
        }
        if step {
            window.reset()
            // Raw: the block that revealed the step may straddle it, part old attitude and part
            // new: kept, it would bias the new reading for a whole window. So it goes when the
            // next block comes; a block that did not straddle costs only one block of averaging,
            // once. Low-passed: the filter follows the step over its settling time, and each of
            // those blocks is nearer the new attitude than the last, so the window restarts with
            // each until the filter has settled, and the reading is the filter's alone meanwhile.
            restartsLeft = output.restartsAfterStep
        } else if restartsLeft > 0 {
            let stillFollowing = !output.noise.isFiltered
                || settings.stability.isFollowing(to: calibrated, noise: output.noise, from: window, recent: recent)
            if stillFollowing {
                window.reset()
                restartsLeft -= 1
            } else {
                restartsLeft = 0
            }
        }
        afterStep = step
        // A low-pass that starts mid-vibration rings for its settling time, whatever it starts
        // from (about the vibration's amplitude × cutoff / frequency): followed like a step's.
        if output.seeded { restartsLeft = output.restartsAfterStep }
        window.add(mean: calibrated, spread: calibration.spread(output.block.spread), samples: output.block.samples,
                   noise: output.noise)
    }

    /// New settings, keeping what still holds: the newest blocks that fit the new window, level
    /// and alarm (any change still needs the dwell), and the zero reference (re-derived for a
    /// new mount). The latest measurement is re-evaluated at once, without level events: a new
    /// mount or tolerance changes the answer now, not at the next block.
    ///
    /// A new filter starts the window and the low-pass afresh: blocks measured one way cannot be
    /// averaged with blocks measured another (low-passed blocks lag and carry no vibration, raw
    /// ones carry it), the window's figures and the noise stillness expects of them differ with
    /// the filter, and a low-pass must start from the samples, not from a state of long ago.
    ///
    /// A new calibration empties the window too: blocks corrected the old way cannot be
    /// averaged with blocks corrected the new way (the low-pass, on raw samples, carries on). The zero reference keeps its pose: it was
    /// stored corrected the old way, so it is taken back to the raw reading of that pose and
    /// corrected the new way. The zeroed pose still reads level; only the angles from it gain the
    /// new calibration's accuracy (``zeroGravity`` changes, so a stored copy needs saving again).
    public mutating func reconfigure(_ new: PipelineSettings) {
        let old = settings
        settings = new
        var zeroGravity = zeroGravity
        if new.filter != old.filter {
            window = BlockWindow(capacity: new.windowBlocks, filter: new.filter)
            stage = BlockStage()
            recent.reset()
            restartWindow()
        } else if new.calibration != old.calibration || new.thermal.drift != old.thermal.drift {
            restartWindow()
        }
        if new.calibration != old.calibration || new.thermal.drift != old.thermal.drift {
            let temperature = temperature
            zeroGravity = zeroGravity.flatMap {
                old.thermal.raw(correctedTo: $0, by: old.calibration, temperature: temperature)
            }.map { new.thermal.correct($0, by: new.calibration, temperature: temperature) }
        }
        window.resize(capacity: new.windowBlocks)
        if new.thresholds != old.thresholds { levelMachine.reconfigure(new.thresholds) }
        if new.mount != old.mount || new.calibration != old.calibration || new.thermal.drift != old.thermal.drift {
            setZero(zeroGravity)
        }
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

    /// Forgets every block and the low-pass's state, for a sensor fault: nothing from before it
    /// may be averaged with, filtered into, or zeroed on what comes after the recovery. Settings,
    /// zero, level and alarm stay.
    public mutating func reset() {
        restartWindow()
        stage.restart()
        recent.reset()
    }

    /// Forgets the window's blocks and what was judged of them.
    private mutating func restartWindow() {
        window.reset()
        afterStep = false
        restartsLeft = 0
        outlier = false
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
        guard let gravity = window.center, let standardError = window.standardError, let noise = window.noise else {
            return nil
        }
        let mounted = settings.mount.levelFrame(gravity)
        let levelGravity = zero?.corrected(mounted) ?? mounted
        let levelError = settings.mount.levelFrame(standardError).absolute
        let uncertainty = settings.thermal.budget(
            standardError: levelError, levelGravity: levelGravity, mount: settings.mount, temperature: temperature,
            samples: window.count * (window.samplesPerBlock ?? 1))
        return Measurement(
            deviceGravity: gravity, levelGravity: levelGravity, attitude: Attitude(gravity: levelGravity),
            standardError: levelError, noise: noise, stillness: stillness,
            isLevel: levelMachine.isLevel, isAlarm: levelMachine.isAlarm, events: [], time: time,
            temperatureCelsius: temperature.celsius, uncertainty: uncertainty
        )
    }

    /// Judged again too: new settings (a longer window, another rate's noise) may change it, and
    /// the judgement is idempotent, so unchanged settings leave the hold as it was.
    private mutating func reevaluate() {
        guard let time = latest?.time else { return }
        latest = evaluate(at: time, stillness: judgeStillness())
    }
}
