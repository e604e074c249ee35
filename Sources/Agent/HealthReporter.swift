import I2C

/// The sample counter at one moment: the two ends of a rate measurement.
struct SampleCount: Sendable, Equatable {
    var time: Double
    var samples: Int
}

/// What `P/health` reports about the sensor and when it is due: the rate measurement, the
/// sampler's counters and the schedule. A value type with no I/O; ``AgentCore`` publishes.
struct HealthReporter: Sendable, Equatable {
    /// Seconds between `P/health` messages.
    let interval: Double
    /// When `P/health` was last sent, and whether it ever was (the first waits for a rate).
    private(set) var lastSent = -Double.infinity
    private(set) var sent = false
    /// Samples the sampler has delivered, and drains that found its buffer full.
    private(set) var samples = 0
    private(set) var overruns = 0
    /// How register reads reach the chip, once the first batch said.
    var i2cMode: I2CMode?
    /// The chip's model, as the sampler last opened it.
    var chip: String?
    /// FIFO drains (sampler wake-ups) since the agent started: with ``samples``, the batching
    /// `plumb probe` shows through the agent.
    var drains = 0

    /// Samples per FIFO drain since the start; nil before the first.
    var samplesPerDrain: Double? { drains > 0 ? Double(samples) / Double(drains) : nil }
    /// The sample counter where the current rate measurement starts, and at the last reading.
    private var rateMark: SampleCount?
    private var latest: SampleCount?

    /// Seconds of readings before a first sample rate is reported: long enough that one block's
    /// timing jitter moves the figure by under 1 %, short enough that Home Assistant shows the
    /// rate a few seconds after start instead of after the first 60 s health period.
    static let firstRateWindow = 2.0

    init(interval: Double) {
        self.interval = interval
    }

    /// Samples per second between the start of the current measurement and the last reading;
    /// nil until readings have covered ``firstRateWindow`` (just started, a new rate, or
    /// recovered from a fault).
    var measuredSampleRate: Double? {
        guard let rateMark, let latest, latest.time - rateMark.time >= Self.firstRateWindow else { return nil }
        return Double(latest.samples - rateMark.samples) / (latest.time - rateMark.time)
    }

    /// Whether `P/health` can be sent: once one was, or once there is a true rate to report. A
    /// faulty sensor's rate is a true 0, so a fault doesn't wait for a measurement.
    func isReady(sensorFaulty: Bool) -> Bool {
        sent || measuredSampleRate != nil || sensorFaulty
    }

    /// Whether `P/health` is due at `now`: every ``interval``, and the first as soon as ready.
    func isDue(at now: Double, sensorFaulty: Bool) -> Bool {
        sent ? now - lastSent >= interval : isReady(sensorFaulty: sensorFaulty)
    }

    /// Counts the sampler's totals at one reading. Returns true when this reading made the first
    /// rate known, so the first health can go out at once.
    mutating func count(samples: Int, overruns: Int, at now: Double) -> Bool {
        self.samples = samples
        self.overruns = overruns
        let count = SampleCount(time: now, samples: samples)
        latest = count
        if rateMark == nil { rateMark = count }
        return !sent && measuredSampleRate != nil
    }

    /// Starts a new rate measurement at the next reading: the chip (re)started, perhaps at
    /// another rate, and samples from before say nothing about the rate now.
    mutating func restartRateMeasurement() {
        rateMark = nil
        latest = nil
    }

    /// Records a health message sent at `now` and returns its `sample_rate_hz`: 0 while the
    /// sensor is faulty, the rate measured since the last message (since the first readings for
    /// the first one), and nil when there is no measurement yet: never a 0 that only means "not
    /// measured".
    mutating func send(at now: Double, sensorFaulty: Bool) -> Double? {
        var rate: Double?
        if sensorFaulty {
            rate = 0
        } else if let measured = measuredSampleRate {
            rate = measured
            // The next health reports the rate from here on.
            rateMark = latest
        }
        lastSent = now
        sent = true
        return rate
    }
}
