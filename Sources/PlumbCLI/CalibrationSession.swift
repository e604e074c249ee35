import Accelerometers
import PlumbDomain
#if canImport(Glibc)
import Glibc
#endif

/// Raw samples from the chip, judged for stillness and averaged, for `plumb calibrate`.
///
/// Reads the chip's FIFO directly, never through a calibration: calibrating must see the chip's
/// own errors. Every wait has the command's deadline, so a script that never turns the chip to
/// the next face ends with a message instead of hanging.
final class CalibrationSession {
    /// The rate calibration samples at: the datasheet's noise figure holds up to 100 Hz.
    static let rateHz = 100.0
    /// Stillness is judged on half-second blocks; two passing blocks in a row make it still.
    static let blockSeconds = 0.5

    let chip: ADXL345
    let output: Console
    /// Whether a person is at a terminal: prompts and a progress bar, instead of progress lines.
    let interactive: Bool
    private let clock = MonotonicPacingClock()
    private let deadline: Double
    private let timeout: Double
    private var detector = StillnessDetector(configuration: .adxl345(odrHz: CalibrationSession.rateHz,
                                                                     blockSeconds: CalibrationSession.blockSeconds))
    private var buffer: [Vector3] = []

    init(chip: ADXL345, output: Console, interactive: Bool, timeout: Double) {
        self.chip = chip
        self.output = output
        self.interactive = interactive
        self.timeout = timeout
        deadline = MonotonicPacingClock().now() + timeout
    }

    /// Starts the chip at ±16 g, full resolution, 100 Hz.
    func start() throws(CommandFailure) {
        do {
            _ = try chip.start(SamplingRequest(rateHz: Self.rateHz, rangeG: 16))
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Puts the chip back in standby.
    func stop() {
        try? chip.stop()
    }

    /// Forgets the stillness judged so far and the samples waiting: after a person pressed
    /// Enter, only what comes next counts.
    func restart() {
        buffer.removeAll()
        _ = try? chip.drain(into: &buffer)
        buffer.removeAll()
        detector.reset()
    }

    /// Waits about a tenth of a second and returns the samples that arrived.
    ///
    /// - Throws: ``CommandFailure`` on a sensor error, or when the deadline has passed while
    ///   `waitingFor` was still awaited.
    private func nextSamples(waitingFor: String) throws(CommandFailure) -> [Vector3] {
        guard clock.now() < deadline else {
            throw CommandFailure("gave up after \(ParsedArguments.format(timeout)) s waiting for \(waitingFor); nothing"
                + " was saved. Run it again, or allow longer with --timeout.")
        }
        clock.sleep(seconds: 0.1)
        buffer.removeAll(keepingCapacity: true)
        do {
            _ = try chip.drain(into: &buffer)
        } catch {
            throw CommandFailure(error.description)
        }
        return buffer
    }

    /// Blocks until the sensor is still; returns the mean of the block that made it so.
    func waitUntilStill(_ what: String) throws(CommandFailure) -> Vector3 {
        while true {
            for sample in try nextSamples(waitingFor: what) {
                if let block = detector.add(sample), detector.isStable {
                    return block.mean
                }
            }
        }
    }

    /// Blocks until the sensor has moved (been turned or picked up).
    func waitUntilMoved(_ what: String) throws(CommandFailure) {
        while true {
            for sample in try nextSamples(waitingFor: what) {
                if detector.add(sample) != nil, detector.state == .moving { return }
            }
        }
    }

    /// Averages `seconds` of samples while the sensor stays still; nil when it moved meanwhile.
    /// At a terminal a progress bar runs on stderr.
    func average(seconds: Double, label: String) throws(CommandFailure) -> GravityAverage? {
        let wanted = Int((seconds * Self.rateHz).rounded())
        var average = GravityAverage()
        while average.count < wanted {
            for sample in try nextSamples(waitingFor: "\(label) to be averaged") where average.count < wanted {
                average.add(sample)
                if detector.add(sample) != nil, detector.state == .moving {
                    if interactive { output.error("") }
                    return nil
                }
            }
            if interactive { output.progress(label: label, fraction: Double(average.count) / Double(wanted)) }
        }
        if interactive { output.error("") }
        return average
    }

    /// Asks the person at the terminal to do `what`, then press Enter; the stillness judged
    /// before then is forgotten.
    ///
    /// - Throws: ``CommandFailure`` when standard input closes.
    func prompt(_ what: String) throws(CommandFailure) {
        output.error(what + " Press Enter when done.")
        guard readLine() != nil else {
            throw CommandFailure("standard input closed before the calibration was done; nothing was saved.")
        }
        restart()
    }
}

extension Console {
    /// `\r  +x up  [##########----------]  50 %` on stderr, redrawn in place.
    func progress(label: String, fraction: Double) {
        let width = 30
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        errorWithoutNewline("\r  averaging \(label)  [\(bar)] \(Int((fraction * 100).rounded())) %")
    }
}
