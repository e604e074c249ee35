/// The `type` of every `P/event` message the agent emits. The raw values are the wire names the
/// README's event table documents; subscribers (automations, tests) match on them.
public enum EventType: String, Sendable, CaseIterable {
    /// The level state flipped to level; details `tilt_deg`.
    case levelEntered = "level_entered"
    /// The level state flipped to not level; details `tilt_deg`.
    case levelLeft = "level_left"
    /// The alarm was raised; details `tilt_deg`.
    case alarmRaised = "alarm_raised"
    /// The alarm cleared; details `tilt_deg`.
    case alarmCleared = "alarm_cleared"
    /// The sensor failed; details `error`, saying what to check.
    case sensorFault = "sensor_fault"
    /// The sensor answers again, reconfigured.
    case sensorRecovered = "sensor_recovered"
    /// A desired config was applied; details `changes` and, when it could not be saved,
    /// `persisted: false`.
    case configApplied = "config_applied"
    /// A desired config was refused; details `key`, `value`, `reason`.
    case configRejected = "config_rejected"
    /// `zero` or `clear_zero` ran; details `reference`, null when cleared.
    case zeroed
    /// A step of `calibrate_reversal`: the first reading taken, waiting for the turned one.
    case calibrationProgress = "calibration_progress"
    /// `calibrate_reversal` finished and its calibration is in force.
    case calibrationApplied = "calibration_applied"
    /// `calibrate_reversal` could not finish (moved, not turned, no reading), and says why.
    case calibrationRejected = "calibration_rejected"
    /// The result of the `selftest` command.
    case selftest
}
