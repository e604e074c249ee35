/// The commands, the last level of `P/command/<name>`: published by Home Assistant's buttons and
/// by people, run by the agent. The raw values are the wire names the README documents.
public enum Command: String, Sendable, CaseIterable {
    /// Takes the current averaged reading as level, persisted; emits `zeroed`.
    case zero
    /// Forgets the zero reference, persisted; emits `zeroed` with a null reference.
    case clearZero = "clear_zero"
    /// Publishes everything retained again: discovery, `online`, the config, level, state, health.
    case republish
    /// Will run the reversal calibration: a reading, the device turned end for end on the same
    /// surface, a second reading; the two separate the sensor's zero error from the surface's
    /// tilt. It reports `calibration_progress`, then `calibration_applied` or
    /// `calibration_rejected`. Not run yet: the agent answers it as an unknown command.
    case calibrateReversal = "calibrate_reversal"
    /// Will forget the stored calibration and go back to the chip's raw figures. Not run yet: the
    /// agent answers it as an unknown command.
    case clearCalibration = "clear_calibration"
    /// Will run the chip's built-in self-test and report it as a `selftest` event. Not run yet:
    /// the agent answers it as an unknown command.
    case selftest

    /// The names joined for a message: `zero, clear_zero and republish`.
    public static func list(_ commands: [Command]) -> String {
        let names = commands.map(\.rawValue)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }
}
