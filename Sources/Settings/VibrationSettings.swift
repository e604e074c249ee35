import VibrationVocabulary

/// What the vibration analysis and the `P/vibration` publisher need of the live settings, in
/// one value: take ``LiveSettings/vibration`` again after every settings change and compare, so
/// a change that touches none of these leaves the analysis alone.
///
/// Always valid, like the settings it comes from: `windowS` is 0.5 to 10 s, `intervalS` at
/// least `windowS`, `heartbeatS` 1 to 86400 s, the running figures within their rules.
public struct VibrationSettings: Sendable, Equatable {
    /// `vibration`: false means no analysis, no `P/vibration` and no vibration entities.
    public let isEnabled: Bool
    /// `sample_rate_hz`: the rate the windows are sampled at.
    public let rateHz: Double
    /// `vibration_window_s`: seconds of samples per analysis window.
    public let windowS: Double
    /// `vibration_interval_s`: seconds between `P/vibration` messages caused by the figures
    /// moving (`VibrationPublishPolicy`'s interval). A zone or running change is published at
    /// once, and a steady machine every ``heartbeatS``.
    public let intervalS: Double
    /// `heartbeat_s`: `P/vibration` is published at least this often, in seconds
    /// (`VibrationPublishPolicy`'s heartbeat). Home Assistant's vibration entities expire after
    /// `ceil(2 × (heartbeatS + windowS) + 10)` seconds without one (HomeAssistant's
    /// `Discovery.vibrationExpiryS`), so the publisher must keep to it.
    public let heartbeatS: Double
    /// `vibration_class`: the machine group whose zone boundaries judge the velocity.
    public let machineClass: MachineClass
    /// `running_threshold`, `running_hysteresis`, `running_start_s`, `running_stop_s`.
    public let running: RunningSettings

    /// The settings as given, which callers have validated; ``LiveSettings/vibration`` is how the
    /// agent gets them.
    package init(isEnabled: Bool, rateHz: Double, windowS: Double, intervalS: Double, heartbeatS: Double,
                 machineClass: MachineClass, running: RunningSettings) {
        self.isEnabled = isEnabled
        self.rateHz = rateHz
        self.windowS = windowS
        self.intervalS = intervalS
        self.heartbeatS = heartbeatS
        self.machineClass = machineClass
        self.running = running
    }

    /// Samples per window: `windowS × rateHz`, rounded to the nearest whole sample, at least 1
    /// (3 at the slowest rate and shortest window, 32 000 at the fastest and longest).
    public var windowSamples: Int {
        max(1, Int((windowS * rateHz).rounded()))
    }

    /// The velocity band at ``rateHz``: 10 Hz to `min(1000, rate / 2.56)`. Nil at 25.6 Hz and
    /// below, where the band's top would not reach its 10 Hz start: there the agent turns the
    /// analysis off (no `P/vibration`, no running state) and says so in its log. The settings
    /// accept such a rate with vibration on, so that a config that samples slowly for levelling
    /// alone stays valid.
    public var band: VelocityBand? {
        VelocityBand(rateHz: rateHz)
    }
}

/// When the machine counts as running: above ``threshold`` for ``startS`` to start, below
/// ``stopLevel`` for ``stopS`` to stop. Between the two levels the state holds, so a figure
/// that hovers at the threshold cannot make the machine chatter on and off.
public struct RunningSettings: Sendable, Equatable {
    /// What is compared, and the level to rise above: mm/s RMS over the velocity band, or g RMS.
    public let threshold: RunningThreshold
    /// The fraction of ``threshold`` the figure must fall below it to stop, 0 to 0.9.
    public let hysteresis: Double
    /// Seconds above ``threshold`` before the machine counts as running. Judged window by
    /// window, so in effect rounded up to whole windows.
    public let startS: Double
    /// Seconds below ``stopLevel`` before the machine counts as stopped, likewise
    /// rounded up to whole windows.
    public let stopS: Double

    /// The settings as given, which callers have validated.
    package init(threshold: RunningThreshold, hysteresis: Double, startS: Double, stopS: Double) {
        self.threshold = threshold
        self.hysteresis = hysteresis
        self.startS = startS
        self.stopS = stopS
    }

    /// `threshold × (1 − hysteresis)`, in the threshold's unit: the machine stops below
    /// this. 0.75 mm/s with the defaults.
    public var stopLevel: Double {
        threshold.value * (1 - hysteresis)
    }
}

extension LiveSettings {
    /// The vibration analysis' settings (``VibrationSettings``) at the configured rate.
    public var vibration: VibrationSettings { vibration(atRateHz: sampleRateHz) }

    /// The vibration analysis' settings for a chip running at `rateHz`: the rate it offers
    /// nearest `sample_rate_hz`, which the windows and the velocity band are cut by.
    public func vibration(atRateHz rateHz: Double) -> VibrationSettings {
        VibrationSettings(
            isEnabled: isVibrationEnabled, rateHz: rateHz, windowS: vibrationWindowS,
            intervalS: vibrationIntervalS, heartbeatS: heartbeatS, machineClass: vibrationClass,
            running: RunningSettings(threshold: runningThreshold, hysteresis: runningHysteresis,
                                     startS: runningStartS, stopS: runningStopS)
        )
    }
}
