import Accelerometers
import Geometry
import Level

/// Raw samples from the chip, judged for stillness and averaged, for the calibration procedures.
///
/// The samples are judged for stillness by a ``StillnessJudge`` (blocks of a tenth of a second
/// through a raw ``LevelPipeline``), the same judgement as ``SixPointTumble``'s, so "still" here is
/// the agent's `stable` (``Stability``). Every wait has the session's
/// deadline, so a script that never turns the chip to the next face ends with a failure instead
/// of hanging.
///
/// Time comes from the injected ``PacingClock``: `plumb calibrate` runs on the monotonic clock,
/// the accuracy benchmark on a simulated chip's manual clock, where each wait advances the
/// simulation instead of the wall clock. Not thread-safe: one procedure owns a session.
public final class CalibrationSession {
    /// The rate calibration asks for: slow enough that each chip's datasheet noise holds, fast
    /// enough for blocks of a tenth of a second. The chip runs at its offered rate nearest it
    /// (``rateHz``).
    public static let requestedRateHz = 100.0
    /// How long each wait for samples sleeps: short enough for a responsive progress bar.
    static let pollSeconds = 0.1

    /// The chip, read raw.
    public let chip: any Accelerometer
    /// Who the calibration is done with.
    public let guide: any CalibrationGuide
    private let clock: any PacingClock
    private let deadline: Double
    private let timeout: Double
    private var judge: StillnessJudge
    /// The rate the chip samples at, in Hz: its offered rate nearest ``requestedRateHz``.
    public var rateHz: Double { judge.rateHz }
    /// The drain buffer, reused.
    private var buffer: [Vector3] = []
    /// The die temperatures read during the session (about one a second), for a chip with a
    /// sensor: the tumble's record is made at their mean.
    private var celsiusSum = 0.0
    private var celsiusCount = 0
    private var lastTemperatureRead = -Double.infinity

    /// The mean die temperature over the session so far, °C; nil for a chip without a sensor.
    public var meanCelsius: Double? { celsiusCount > 0 ? celsiusSum / Double(celsiusCount) : nil }

    /// A session that gives up `timeout` seconds of `clock` from now.
    public init(chip: any Accelerometer, guide: any CalibrationGuide, timeout: Double,
                clock: any PacingClock = MonotonicPacingClock()) {
        self.chip = chip
        self.guide = guide
        self.timeout = timeout
        self.clock = clock
        deadline = clock.now() + timeout
        judge = StillnessJudge(chip: chip.chip.operatingPoint(rateHz: Self.requestedRateHz))
    }

    /// Whether someone answers prompts (the guide's ``CalibrationGuide/isInteractive``).
    public var isInteractive: Bool { guide.isInteractive }

    /// Starts the chip at its default range (the one the agent runs at unless told otherwise)
    /// and ``rateHz``.
    public func start() throws(CalibrationFailure) {
        do {
            _ = try chip.start(SamplingRequest(rateHz: rateHz, rangeG: chip.chip.defaultRangeG))
        } catch {
            throw CalibrationFailure(.sensor(error))
        }
    }

    /// Puts the chip back in standby.
    public func stop() {
        try? chip.stop()
    }

    /// Forgets the stillness judged so far and the samples waiting: after a person said a step
    /// was done, only what comes next counts.
    public func restart() {
        buffer.removeAll()
        _ = try? chip.drain(into: &buffer)
        buffer.removeAll()
        judge.reset()
    }

    /// Adds one raw sample to the judgement; its measurement when it completes a block.
    private func add(_ sample: Vector3) -> Measurement? {
        judge.add(sample, at: clock.now())
    }

    /// Waits about a tenth of a second and returns the samples that arrived.
    ///
    /// - Throws: ``CalibrationFailure`` on a sensor error, or when the deadline has passed while
    ///   `waitingFor` was still awaited.
    private func nextSamples(waitingFor: String) throws(CalibrationFailure) -> [Vector3] {
        guard clock.now() < deadline else {
            throw CalibrationFailure(.timedOut(afterSeconds: timeout, waitingFor: waitingFor))
        }
        clock.sleep(seconds: Self.pollSeconds)
        buffer.removeAll(keepingCapacity: true)
        do {
            _ = try chip.drain(into: &buffer)
            if chip.chip.temperature != nil, clock.now() - lastTemperatureRead >= 1 {
                lastTemperatureRead = clock.now()
                if let celsius = try chip.dieTemperature() {
                    celsiusSum += celsius
                    celsiusCount += 1
                }
            }
        } catch {
            throw CalibrationFailure(.sensor(error))
        }
        return buffer
    }

    /// Blocks until the sensor is still (the pipeline's `stable`); returns the raw gravity of the
    /// window that made it so.
    public func waitUntilStill(_ what: String) throws(CalibrationFailure) -> Vector3 {
        while true {
            for sample in try nextSamples(waitingFor: what) {
                if let measurement = add(sample), measurement.isStable {
                    return measurement.deviceGravity
                }
            }
        }
    }

    /// Blocks until the sensor has moved (been turned or picked up): a window that moved or shook,
    /// not one that is merely filling.
    public func waitUntilMoved(_ what: String) throws(CalibrationFailure) {
        while true {
            for sample in try nextSamples(waitingFor: what) where add(sample)?.stillness == .moving {
                return
            }
        }
    }

    /// Averages `seconds` of samples while the sensor stays still (every block's measurement
    /// holds `stable`); nil when it moved meanwhile. An interactive guide is shown the progress.
    public func average(seconds: Double, label: String) throws(CalibrationFailure) -> GravityAverage? {
        let wanted = Int((seconds * rateHz).rounded())
        var average = GravityAverage()
        while average.count < wanted {
            for sample in try nextSamples(waitingFor: "\(label) to be averaged") where average.count < wanted {
                average.add(sample)
                if let measurement = add(sample), !measurement.isStable {
                    if isInteractive { guide.progressEnded() }
                    return nil
                }
            }
            if isInteractive { guide.progress(label: label, fraction: Double(average.count) / Double(wanted)) }
        }
        if isInteractive { guide.progressEnded() }
        return average
    }

    /// Asks the person to do `what` and waits for them; the stillness judged before then is
    /// forgotten.
    ///
    /// - Throws: ``CalibrationFailure`` when the guide can no longer ask.
    public func prompt(_ what: String) throws(CalibrationFailure) {
        try guide.ask(what)
        restart()
    }
}
