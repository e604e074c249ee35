/// The keys of the `P/vibration` JSON: written by the agent, read by Home Assistant's value
/// templates and by `plumb vibration --json`. The raw values are the wire names of the payload
/// table in docs/reference/mqtt.md.
///
/// The payload holds the overall figures at the top level, the same figures per axis under
/// ``axes`` (keys `x`, `y`, `z`), then the band, the zone and the running state:
///
/// ```json
/// {"velocity_rms_mm_s": 4.49, "acceleration_rms_g": 0.144, "peak_g": 0.21, "crest_factor": 1.44,
///  "dominant_hz": 50, "peaks": [{"hz": 50, "velocity_rms_mm_s": 4.49}],
///  "axes": {"x": {…}, "y": {…}, "z": {…}}, "band_hz": [10, 312.5], "zone": "C", "vibration_class": "class_i", "running": true, "window_s": 1, "rate_hz": 800,
///  "ts": "2026-12-01T14:30:00.100Z"}
/// ```
public enum VibrationKey: String, Sendable, CaseIterable {
    /// RMS velocity over ``bandHz``, mm/s.
    case velocityRMSMillimetresPerSecond = "velocity_rms_mm_s"
    /// RMS acceleration, gravity removed, g.
    case accelerationRMSG = "acceleration_rms_g"
    /// Largest absolute acceleration, gravity removed, g.
    case peakG = "peak_g"
    /// Peak over RMS acceleration.
    case crestFactor = "crest_factor"
    /// The frequency with the most acceleration power, Hz.
    case dominantHz = "dominant_hz"
    /// The strongest tones, strongest first: a list of objects with ``hz`` and
    /// ``velocityRMSMillimetresPerSecond``.
    case peaks
    /// A peak's frequency, Hz (inside ``peaks``).
    case hz
    /// The per-axis figures: an object with keys `x`, `y`, `z`, each holding the six above.
    case axes
    /// The velocity band covered, `[low, high]` in Hz.
    case bandHz = "band_hz"
    /// The ISO 10816 zone, `A`…`D`.
    case zone
    /// The machine group the zone is judged by (`vibration_class`).
    case vibrationClass = "vibration_class"
    /// Whether the machine is running; null until the first window decides it.
    case running
    /// Seconds of samples in the window.
    case windowS = "window_s"
    /// The output data rate the window was sampled at, Hz.
    case rateHz = "rate_hz"
    /// When the window ended, ISO 8601 UTC with milliseconds, like `P/state`'s.
    case ts
}
