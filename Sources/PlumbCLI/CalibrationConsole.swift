import Calibrating

/// `plumb calibrate`'s side of a calibration: the procedures' lines on stderr and, at a terminal,
/// prompts answered with Enter and a progress bar.
struct ConsoleCalibrationGuide: CalibrationGuide {
    let output: Console
    /// Whether a person is at a terminal: prompts and a progress bar, instead of progress lines.
    let isInteractive: Bool

    func tell(_ message: String) { output.error(message) }

    func progress(label: String, fraction: Double) { output.progress(label: label, fraction: fraction) }

    /// Ends the redrawn progress line.
    func progressEnded() { output.error("") }

    /// - Throws: ``CalibrationFailure`` when standard input closes.
    func ask(_ instruction: String) throws(CalibrationFailure) {
        output.error(instruction + " Press Enter when done.")
        guard readLine() != nil else {
            throw CalibrationFailure(.abandoned("standard input closed before the calibration was done; nothing was saved."))
        }
    }
}

extension CommandFailure {
    /// A calibration's failure as the command reports it, with the option that allows longer.
    init(_ failure: CalibrationFailure) {
        if case .timedOut = failure.reason {
            self.init(failure.description + " Run it again, or allow longer with --timeout.")
        } else {
            self.init(failure.description)
        }
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
