/// The commands, the last level of `P/command/<name>`: published by Home Assistant's buttons and
/// by people, run by the agent. The raw values are the wire names docs/reference/mqtt.md documents.
public enum Command: String, Sendable, CaseIterable {
    /// Takes the current averaged reading as level, persisted; emits `zeroed`.
    case zero
    /// Forgets the zero reference, persisted; emits `zeroed` with a null reference.
    case clearZero = "clear_zero"
    /// Publishes everything retained again: discovery, `online`, the config, level, state, health.
    case republish
    /// Runs the reversal calibration in two steps, named by the payload (``ReversalStep``): a
    /// reading, the device turned 180° about the vertical on the same spot, a second reading; the
    /// two separate the sensor's zero error from the surface's tilt. It reports
    /// `calibration_progress`, then `calibration_applied` or `calibration_rejected`.
    case calibrateReversal = "calibrate_reversal"
    /// Runs the six-point tumble in the agent, driven by the payload (``SixPointAction``): the
    /// person lays the device on each of its six faces in turn and says `next`; the agent waits
    /// for stillness, averages each face and fits the six means. It reports
    /// `calibration_progress` (method `six_point`), then `calibration_applied` or
    /// `calibration_rejected`.
    case calibrateSixPoint = "calibrate_six_point"
    /// Forgets the stored calibration and goes back to the chip's raw figures; emits
    /// `calibration_cleared`.
    case clearCalibration = "clear_calibration"
    /// Runs the chip's built-in self-test between two blocks of sampling and reports it as a
    /// `selftest` event.
    case selftest
    /// Learns the temperature drift in place, driven by the payload (``DriftLearningAction``):
    /// on a machine the person says will not move, Plumb fits the reading against the
    /// temperature over hours. It reports `drift_progress`, then `drift_learned` or
    /// `drift_rejected`.
    case learnDrift = "learn_drift"

    /// The names joined for a message: `zero, clear_zero and republish`.
    public static func list(_ commands: [Command]) -> String {
        list(words: commands.map(\.rawValue))
    }

    /// Words joined for a message: `a, b and c`.
    static func list(words names: [String]) -> String {
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }
}

/// The payloads of `P/command/calibrate_reversal`: which of the reversal's two readings to take.
public enum ReversalStep: String, Sendable, CaseIterable {
    /// The reading in the first position; starts (or restarts) the reversal.
    case first
    /// The reading after the turn; finishes the reversal.
    case second

    /// `first and second`, for "the payloads are …".
    public static let list = allCases.map(\.rawValue).joined(separator: " and ")
}

/// The payloads of `P/command/calibrate_six_point`: what the person says to the tumble.
public enum SixPointAction: String, Sendable, CaseIterable {
    /// Starts a tumble (refused while any calibration is in progress).
    case start
    /// The device lies on the next face now: settle, then average it.
    case next
    /// Ends the calibration in progress, applying nothing.
    case cancel

    /// `start, next and cancel`, for "the payloads are …".
    public static let list = Command.list(words: allCases.map(\.rawValue))
}

/// The payloads of `P/command/learn_drift`.
public enum DriftLearningAction: String, Sendable, CaseIterable {
    /// Starts learning (restarting one under way); the machine must not move until `stop`.
    case start
    /// Fits what was learned and applies it, or says what it still needs.
    case stop
    /// Ends the learning, applying nothing.
    case cancel

    /// `start, stop and cancel`, for "the payloads are …".
    public static let list = Command.list(words: allCases.map(\.rawValue))
}
