/// The keys of the `P/event` JSON beside `type` and `ts`: written by the agent, read by the
/// command line (which follows a calibration through the agent) and by the result sentences. The
/// raw values are the wire names docs/reference/mqtt.md documents per event. The self-test's
/// figures are the object of `plumb selftest --json`, from its own encoder, and not listed here.
public enum EventKey: String, Sendable, CaseIterable {
    /// The tilt in degrees when the level or alarm flipped.
    case tiltDeg = "tilt_deg"
    /// What went wrong, saying what to check.
    case error
    /// The settings a write changed, with their new values.
    case changes
    /// False when the state directory could not be written; absent when it was.
    case persisted
    /// The keys of a stamped write that a later write had already set.
    case superseded
    /// The setting a refusal is about; null for the whole message.
    case key
    /// The value refused, as sent.
    case value
    /// Why something was refused or failed, and what to do.
    case reason
    /// The gravity taken as level, or null when cleared.
    case reference
    /// Whether the reading was stable.
    case stable
    /// The reversal step, as sent.
    case step
    /// The reading taken, in g, in the device frame.
    case readingG = "reading_g"
    /// What to do now.
    case next
    /// The calibration method.
    case method
    /// The face of the six-point tumble (`+x` … `-z`).
    case face
    /// The state a calibration or a drift session is in.
    case state
    /// The faces still to do.
    case remaining
    /// The faces done.
    case done
    /// How far the averaging of a face has come, 0–1.
    case fraction
    /// A sentence for the person.
    case message
    /// Who started the calibration: `mqtt` or `plumb calibrate`.
    case startedBy = "started_by"
    /// Why a face was just refused.
    case refused
    /// When the calibration was made, ISO 8601 UTC.
    case date
    /// The tumble's residual, `rms` and `max` in mg.
    case residualMG = "residual_mg"
    /// The drift model, or a sentence about it.
    case drift
    /// A tumble's mean temperature, °C.
    case temperatureC = "temperature_c"
    /// The mount a reversal was made in.
    case mount
    /// The zero error a reversal found, roll.
    case zeroRollDeg = "zero_roll_deg"
    /// The zero error a reversal found, pitch.
    case zeroPitchDeg = "zero_pitch_deg"
    /// The surface's true tilt at the spot, roll.
    case surfaceRollDeg = "surface_roll_deg"
    /// The surface's true tilt at the spot, pitch.
    case surfacePitchDeg = "surface_pitch_deg"
    /// The zero error folded into the offset, mg per axis.
    case zeroOffsetMG = "zero_offset_mg"
    /// Whether a reversal's first reading still stands.
    case firstKept = "first_kept"
    /// The calibration in progress that caused a refusal.
    case running
    /// The payload of the command that caused the event.
    case action
    /// True when `cancel` ended it.
    case cancelled
    /// Who sent the `cancel`.
    case cancelledBy = "cancelled_by"
    /// The method of the calibration cleared; null for none.
    case previousMethod = "previous_method"
    /// Whether the self-test passed; null when it could not run.
    case passed
    /// The deciding window's velocity, mm/s RMS (``VibrationKey/velocityRMSMillimetresPerSecond``).
    case velocityRMSMillimetresPerSecond = "velocity_rms_mm_s"
    /// The deciding window's acceleration, g RMS (``VibrationKey/accelerationRMSG``).
    case accelerationRMSG = "acceleration_rms_g"
    /// The running threshold, with its unit.
    case threshold
    /// How long ago the start or stop is estimated to have happened.
    case sinceS = "since_s"
    /// How long the run lasted.
    case durationS = "duration_s"
    /// False when the run was under way when the analysis began.
    case startSeen = "start_seen"
    /// The ISO 10816 zone.
    case zone
    /// The zone before.
    case previousZone = "previous_zone"
    /// The machine class the zone is judged by (``VibrationKey/vibrationClass``).
    case vibrationClass = "vibration_class"
    /// Where the temperature comes from.
    case source
    /// What the source sent, escaped and cut short.
    case payload
    /// Rejections since the last such event.
    case count
    /// Seconds since the drift session began.
    case elapsedS = "elapsed_s"
    /// The buckets learned so far.
    case points
    /// Readings left out.
    case skipped
    /// The lowest temperature seen, °C.
    case lowC = "low_c"
    /// The highest temperature seen, °C.
    case highC = "high_c"
    /// The temperature span seen, °C.
    case spanC = "span_c"
    /// Whether a `stop` would fit now.
    case ready
    /// What the session still needs, or null.
    case waitingFor = "waiting_for"
    /// The offset drift as a tilt per °C near level, x and y.
    case degreesPerC = "degrees_per_c"
}

extension Dictionary where Key == String, Value == JSONValue {
    /// An event's detail by its key: `event.details[.reason]`.
    public subscript(_ key: EventKey) -> JSONValue? {
        get { self[key.rawValue] }
        set { self[key.rawValue] = newValue }
    }
}
