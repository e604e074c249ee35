/// The `type` of every `P/event` message the agent emits. The raw values are the wire names the
/// event table of docs/reference/mqtt.md documents; subscribers (automations, tests) match on them.
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
    /// `zero` or `clear_zero` ran; details `reference`, null when cleared, and `stable`, whether
    /// the reading zeroed on was stable (null for `clear_zero`, which reads nothing).
    case zeroed
    /// `zero` was refused (no reading, or not stable); details `reason`, `stable`. Nothing changed.
    case zeroRejected = "zero_rejected"
    /// A step of `calibrate_reversal`: the first reading taken, waiting for the turned one;
    /// details `step`, `reading_g`, `stable`, `next`. Of `calibrate_six_point`: details `method`
    /// (`six_point`), `face`, `state`, `remaining`, `done`, `fraction` (averaging), `message`.
    case calibrationProgress = "calibration_progress"
    /// `calibrate_reversal` or `calibrate_six_point` finished and its calibration is in force;
    /// details `method`, `date`, the reversal's zero error and surface tilt and `stable`, or the
    /// tumble's `residual_mg`, and, when it could not be saved, `persisted: false`.
    case calibrationApplied = "calibration_applied"
    /// A `calibrate_reversal` step was refused (a bad payload, no first reading, not stable, not
    /// turned, readings from different spots, another calibration in progress); details `step`,
    /// `reason`. A `calibrate_six_point` was refused, cancelled or failed; details `method`
    /// (`six_point`), `action`, `reason`. Nothing changed.
    case calibrationRejected = "calibration_rejected"
    /// `clear_calibration` removed the calibration; details `previous_method` and, when the file
    /// could not be removed, `persisted: false`.
    case calibrationCleared = "calibration_cleared"
    /// The result of the `selftest` command: `passed` and the per-axis figures of
    /// `plumb selftest --json`, or `passed: null` and `error` when it could not run.
    case selftest
    /// The machine started running: its vibration stayed above `running_threshold` for
    /// `running_start_s`; details the figure compared and the threshold.
    case runningStarted = "running_started"
    /// The machine stopped: its vibration stayed below the threshold (less the hysteresis) for
    /// `running_stop_s`; details `duration_s`, how long it ran.
    case runningStopped = "running_stopped"
    /// The ISO 10816 zone changed; details `zone`, `previous_zone`, `velocity_rms_mm_s`.
    case zoneChanged = "zone_changed"
    /// The temperature source sent something that is not a temperature (not a number, no
    /// `temperature` or `value`, out of range); it is ignored. Details `source`, `reason`,
    /// `payload` (escaped, cut at 64 characters) and `count`, the rejections since the last such
    /// event: at most one a minute, so a broken thermometer cannot flood the events.
    case temperatureRejected = "temperature_rejected"
    /// `learn_drift` is under way: details `state` (`started` or `learning`), `elapsed_s`,
    /// `points`, `skipped`, `low_c`, `high_c`, `span_c`, `ready` and `waiting_for` (what it still
    /// needs; null once ready). Every ten minutes, and at the start.
    case driftProgress = "drift_progress"
    /// `learn_drift stop` fitted and applied a drift model; details `drift` (the model as
    /// `calibration.json` stores it), `degrees_per_c` (what it means near level) and, when it
    /// could not be saved, `persisted: false`.
    case driftLearned = "drift_learned"
    /// `learn_drift` was refused, cancelled or failed (the machine moved, too small a
    /// temperature span, the sensor failed); details `action` and `reason`. Nothing changed.
    case driftRejected = "drift_rejected"
}
