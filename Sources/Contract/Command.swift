/// The commands, the last level of `P/command/<name>`: published by Home Assistant's buttons and
/// by people, run by the agent. ``documentation`` and ``payloads`` say what each does and takes,
/// for the commands table ``MQTTReference`` writes to docs/reference/mqtt.md.
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

/// A payload a command reads, and what it asks for.
public struct CommandPayload: Sendable, Hashable {
    /// The payload, exactly as sent.
    public let name: String
    /// What it asks the command to do, in Markdown.
    public let documentation: String

    public init(name: String, documentation: String) {
        self.name = name
        self.documentation = documentation
    }
}

extension Command {
    /// What the command does and what it reports, in Markdown; links are relative to docs/reference/.
    public var documentation: String {
        switch self {
        case .zero:
            """
            takes the current averaged reading as level, persisted: `zeroed`, or `zero_rejected` when there is no \
            reading or it is not stable
            """
        case .clearZero: "forgets the zero reference, persisted: `zeroed` with a null `reference`"
        case .republish:
            "publishes again what the agent publishes [on every connect](agent-behaviour.md#on-every-connect)"
        case .calibrateReversal:
            """
            the reversal: a reading, the device turned 180° about the vertical on the same spot, a second reading; \
            the two separate the chip's zero error from the surface's tilt. `calibration_progress`, then \
            `calibration_applied` or `calibration_rejected` (see \(Self.calibrationOverMQTT))
            """
        case .calibrateSixPoint:
            """
            the six-point tumble, as `plumb calibrate six-point`: the device laid on each of its six faces in turn, \
            each averaged once still, the six means fitted. `calibration_progress` (`method` `six_point`), then \
            `calibration_applied` or `calibration_rejected` (see \(Self.calibrationOverMQTT))
            """
        case .clearCalibration:
            """
            removes `calibration.json` and goes back to the chip's raw figures: `calibration_cleared`, \
            `P/calibration` all null
            """
        case .selftest:
            "runs the chip's built-in self-test between two blocks of sampling, as `plumb selftest`: a `selftest` event"
        case .learnDrift:
            """
            learns the temperature drift in place, on a machine that will not move: the reading fitted against the \
            temperature over hours. `drift_progress`, then `drift_learned` or `drift_rejected` (see \
            [Temperature and uncertainty](../guides/temperature.md#temperature-and-uncertainty))
            """
        }
    }

    /// The payloads the command reads; empty for one that ignores its payload, which any button may press.
    public var payloads: [CommandPayload] {
        switch self {
        case .zero, .clearZero, .republish, .clearCalibration, .selftest: []
        case .calibrateReversal: ReversalStep.allCases.map { CommandPayload(name: $0.rawValue, documentation: $0.documentation) }
        case .calibrateSixPoint:
            SixPointAction.allCases.map { CommandPayload(name: $0.rawValue, documentation: $0.documentation) }
        case .learnDrift:
            DriftLearningAction.allCases.map { CommandPayload(name: $0.rawValue, documentation: $0.documentation) }
        }
    }

    /// The behaviour page's section on both calibrations, which their rows point to.
    static let calibrationOverMQTT = "[Calibration over MQTT](agent-behaviour.md#calibration-over-mqtt)"
}

extension ReversalStep {
    /// What the step asks for, for the commands table.
    public var documentation: String {
        switch self {
        case .first: "the reading in the first position; starts (or restarts) the reversal"
        case .second: "the reading after the turn; finishes the reversal"
        }
    }
}

extension SixPointAction {
    /// What the action asks for, for the commands table.
    public var documentation: String {
        switch self {
        case .start: "starts a tumble (refused while any calibration is in progress)"
        case .next: "the device lies on the next face now: settle, then average it"
        case .cancel: "ends the calibration in progress, a tumble or a reversal's held first reading, applying nothing"
        }
    }
}

extension DriftLearningAction {
    /// What the action asks for, for the commands table.
    public var documentation: String {
        switch self {
        case .start: "starts learning (restarting one under way); the machine must not move until `stop`"
        case .stop: "fits what was learned and applies it, or says what it still needs"
        case .cancel: "ends the learning, applying nothing"
        }
    }
}
