/// The `type` of every `P/event` message the agent emits. The raw values are the wire names
/// subscribers (automations, tests) match on; ``occasions`` says when each is sent and what it
/// carries, for the events table ``MQTTReference`` writes to docs/reference/mqtt.md.
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

/// One occasion an event is sent on: a row of the reference's events table.
public struct EventOccasion: Sendable, Hashable {
    /// When it is sent, in Markdown.
    public let when: String
    /// The keys it carries beside `type` and `ts`, in Markdown; empty when there are none.
    public let details: String

    public init(when: String, details: String) {
        self.when = when
        self.details = details
    }
}

extension EventType {
    /// When the event is sent and what it carries: one occasion for most, two for those that
    /// answer both calibrations, whose details differ.
    public var occasions: [EventOccasion] {
        switch self {
        case .levelEntered, .levelLeft:
            [EventOccasion(when: "the level state flips", details: "`tilt_deg`")]
        case .alarmRaised, .alarmCleared:
            [EventOccasion(when: "the alarm flips", details: "`tilt_deg`")]
        case .sensorFault:
            [EventOccasion(when: "the sensor fails (bus error, unplugged, no data)",
                           details: "`error`: the message, saying what to check")]
        case .sensorRecovered:
            // "It" is sensor_fault's sensor, the row above.
            [EventOccasion(when: "it answers again, reconfigured", details: "")]
        case .configApplied:
            [EventOccasion(when: "a desired config was applied", details: """
                `changes`: the keys that changed, with their new values; `persisted: false` if the state directory \
                could not be written; `superseded`: the keys of a `written_at`-stamped write that a later write had \
                already set, left as they were
                """)]
        case .configRejected:
            [EventOccasion(when: "a desired config was refused", details: """
                `key`, `value`, `reason` (the whole message was refused; also when every key of a stamped write was \
                written later: `reason` names them)
                """)]
        case .zeroed:
            [EventOccasion(when: "`zero` or `clear_zero`", details: """
                `reference`: the gravity {`x`,`y`,`z`} taken as level, or null when cleared; `stable`: true (a zero \
                is only taken on a stable reading), null for `clear_zero`
                """)]
        case .zeroRejected:
            [EventOccasion(when: "`zero` refused: no reading (starting, faulty, a self-test running) or not stable",
                           details: "`reason` (what to do), `stable` (false, or null without a reading). Nothing changed")]
        case .calibrationProgress:
            [
                EventOccasion(when: "`calibrate_reversal first` took its reading", details: """
                    `step` (`first`), `reading_g` {`x`,`y`,`z`} (device frame, corrected by the calibration in force), \
                    `stable` (true), `next` (what to do now)
                    """),
                EventOccasion(when: "the six-point tumble moved on: started, a face settling, every 10 % of its averaging, done",
                              details: """
                    `method` (`six_point`), `face` (the face to lay next while `waiting`, the one measured while \
                    `averaging` or `done`, null while `settling`; `+x`, `-x`, `+y`, `-y`, `+z`, `-z`: which axis points \
                    up), `state` (`waiting`, `settling`, `averaging`, `done`), `remaining` and `done` (faces), \
                    `fraction` (0–1, only while `averaging`), `message` (a sentence for the person), `started_by` \
                    (`mqtt` or `plumb calibrate`), `refused` (why a face was just refused: done already, not on a face, \
                    never still; the tumble waits again)
                    """),
            ]
        case .calibrationApplied:
            // The tumble's row first: it points to the reversal's for `persisted`.
            [
                EventOccasion(when: "`calibrate_six_point` fitted the sixth face, saved and in force", details: """
                    `method` (`six_point`), `date`, `residual_mg` {`rms`,`max`} (as on `P/calibration`), `started_by`, \
                    `temperature_c` (the tumble's mean temperature, °C; null when none was known), `drift` (a sentence: \
                    how this tumble joined the ones before it at other temperatures, and the drift they fit); \
                    `persisted: false` as below
                    """),
                EventOccasion(when: "`calibrate_reversal second` made a calibration, saved and in force", details: """
                    `method` (`reversal` or `six_point+reversal`), `date`, `mount`, `stable` (true), `zero_roll_deg`, \
                    `zero_pitch_deg` (the zero error found: what the instrument read on a truly level surface), \
                    `surface_roll_deg`, `surface_pitch_deg` (the surface's true tilt at the spot, first position), \
                    `zero_offset_mg` [x, y, z] (folded into the offset); `persisted: false` if `calibration.json` could \
                    not be written (then it holds until the next restart only)
                    """),
            ]
        case .calibrationRejected:
            [
                EventOccasion(when: "a `calibrate_reversal` step was refused", details: """
                    `step` (the payload as sent, at most 100 characters), `reason` (what to do), `stable: false` when \
                    that was why; for `second`, `first_kept` (true: the first reading stands, send `second` again; \
                    false: start again with `first`); `running` (`reversal` or `six_point`) and `started_by` when \
                    another calibration is in progress. Nothing changed; a first reading is kept unless the reason says \
                    to start again
                    """),
                EventOccasion(when: "a `calibrate_six_point` action was refused, or the tumble was cancelled or failed",
                              details: """
                    `method` (`six_point`, or `reversal` when `cancel` dropped a held reversal), `reason` (what \
                    happened and what to do), `action` (the payload, when one caused it), `running` and `started_by` \
                    (the calibration in progress and who started it, when that was why), `cancelled: true` and \
                    `cancelled_by` for a cancel. Nothing was applied; the calibration in force stays
                    """),
            ]
        case .calibrationCleared:
            [EventOccasion(when: "`clear_calibration` ran", details: """
                `previous_method` (null if there was none); `persisted: false` if the file could not be removed
                """)]
        case .selftest:
            [EventOccasion(when: "`selftest` finished or could not run", details: """
                `passed`, `model`, `supply_voltage`, `samples_per_mean` and `axes` [{`name`, `off`, `on`, `delta`, \
                `minimum`, `maximum`, `passed`}], LSB at 256/g: the object of `plumb selftest --json`, from the same \
                encoder. When it could not run (another is running, the sensor is faulty, no answer within 10 s): \
                `passed: null` and `error`
                """)]
        case .runningStarted:
            [EventOccasion(when: """
                the machine's vibration stayed above `running_threshold` for `running_start_s` (never at agent start: \
                the first window decides without an event)
                """, details: """
                `velocity_rms_mm_s` (or `acceleration_rms_g` for a threshold in g): the deciding window's level; \
                `threshold` (`"1 mm/s"`); `since_s`: how long ago the start is estimated to have happened
                """)]
        case .runningStopped:
            // "It" and "the same" are running_started's, the row above: the two cases stay next to each other.
            [EventOccasion(when: "it stayed below the threshold × (1 − `running_hysteresis`) for `running_stop_s`",
                           details: """
                the same, and `duration_s`: how long the run lasted, start to stop, and `start_seen`: false when the \
                machine was already running when the analysis began (an agent restart mid-run), so `duration_s` is \
                only the part it saw
                """)]
        case .zoneChanged:
            [EventOccasion(when: "the ISO 10816 zone changed and held (5 % past the boundary, three windows)", details: """
                `zone`, `previous_zone`, `velocity_rms_mm_s` (the largest per-axis velocity, which the zone is judged \
                on), `vibration_class`
                """)]
        case .temperatureRejected:
            [EventOccasion(when: """
                the temperature source sent what is not a temperature (not a number, no unit Plumb knows, outside \
                −40…125 °C), or a thermal zone could not be read; its value is ignored and the last good one kept
                """, details: """
                `source`, `reason` (what is wrong and what to send), `payload` (escaped, its first 64 bytes), \
                `count` (rejections since the last event: at most one event a minute)
                """)]
        case .driftProgress:
            [EventOccasion(when: "`learn_drift start` was accepted, then every ten buckets", details: """
                `state` (`started`, `learning`), `elapsed_s`, `points` (buckets so far), `skipped` (readings left out: \
                not still, or no temperature known), `low_c`, `high_c`, `span_c`, `ready` (a `stop` would fit now), \
                `waiting_for` (what it still needs, a sentence, or null)
                """)]
        case .driftLearned:
            [EventOccasion(when: "`learn_drift stop` fitted the drift, saved and in force", details: """
                `drift` (the model, as `P/calibration` carries it), `degrees_per_c` [x, y] (the offset drift as a \
                tilt per °C near level); `persisted: false` if it could not be saved
                """)]
        case .driftRejected:
            [EventOccasion(when: """
                a `learn_drift` action was refused, cancelled, or the session failed (the machine moved, the sensor \
                failed, it ran past 14 days)
                """, details: """
                `action` (`start`, `stop`, `cancel`, or `learning` when the session ended itself), `reason` (what \
                happened and what to do), `cancelled: true` when `cancel` ended a session. Nothing was applied
                """)]
        }
    }
}
