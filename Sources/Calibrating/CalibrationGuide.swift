import Accelerometers

/// The person (or script) a calibration is done with: what the procedure says to them and, at a
/// terminal, how it waits for them.
///
/// The procedures in this module never touch a terminal themselves, so `plumb calibrate`, the
/// accuracy benchmark and anything else that turns a chip face by face run the same steps; only
/// the guide differs.
public protocol CalibrationGuide {
    /// Whether someone answers ``ask(_:)``. Without, each new position is taken as soon as the
    /// sensor is still on it (after having moved), so a script can drive the calibration.
    var isInteractive: Bool { get }
    /// A line of progress: a face found, averaged, refused.
    func tell(_ message: String)
    /// How far averaging `label` has come, 0…1; called only when ``isInteractive``.
    func progress(label: String, fraction: Double)
    /// The averaging that ``progress(label:fraction:)`` reported on has ended (done or moved).
    func progressEnded()
    /// Asks the person to do `instruction` and waits until they say it is done; called only when
    /// ``isInteractive``.
    ///
    /// - Throws: ``CalibrationFailure`` when they can no longer answer (input closed).
    func ask(_ instruction: String) throws(CalibrationFailure)
}

/// Why a calibration ended without a result. Nothing is stored after one.
public struct CalibrationFailure: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable {
        /// The deadline passed while `waitingFor` was still awaited.
        case timedOut(afterSeconds: Double, waitingFor: String)
        /// The chip could not be started or read.
        case sensor(SensorError)
        /// A position or the fit was refused; the message says why and what to do.
        case refused(String)
        /// The guide could not go on (its input closed, say); the message says so.
        case abandoned(String)
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// What went wrong, for a person; callers add how to allow longer where they can.
    public var description: String {
        switch reason {
        case let .timedOut(seconds, waitingFor):
            "gave up after \(ProgressText.seconds(seconds)) s waiting for \(waitingFor); nothing was saved."
        case let .sensor(error):
            error.description
        case let .refused(message), let .abandoned(message):
            message
        }
    }
}

/// A guide for a calibration nobody watches: never interactive, its lines kept for a report.
public final class RecordingGuide: CalibrationGuide {
    /// Every line told, oldest first.
    public private(set) var lines: [String] = []

    public init() {}

    public var isInteractive: Bool { false }
    public func tell(_ message: String) { lines.append(message) }
    public func progress(label: String, fraction: Double) {}
    public func progressEnded() {}
    public func ask(_ instruction: String) throws(CalibrationFailure) {
        throw CalibrationFailure(.abandoned("nobody is there to answer: \(instruction)"))
    }
}
