import Contract
import PlumbDomain

/// The sample counter at one moment: the two ends of a rate measurement.
struct SampleCount: Sendable, Equatable {
    var time: Double
    var samples: Int
}

extension AgentCore {
    /// Seconds of readings before a first sample rate is reported: long enough that one block's
    /// timing jitter moves the figure by under 1 %, short enough that Home Assistant shows the
    /// rate a few seconds after start instead of after the first 60 s health period.
    static let firstRateWindow = 2.0

    /// Samples per second between the start of the current measurement and the last reading;
    /// nil until readings have covered ``firstRateWindow`` (just started, a new rate, or
    /// recovered from a fault).
    func measuredSampleRate() -> Double? {
        guard let rateMark, let latestSampleCount, latestSampleCount.time - rateMark.time >= Self.firstRateWindow
        else { return nil }
        return Double(latestSampleCount.samples - rateMark.samples) / (latestSampleCount.time - rateMark.time)
    }

    /// Whether `P/health` can be sent: once one was, or once there is a true rate to report. A
    /// faulty sensor's rate is a true 0, so a fault doesn't wait for a measurement.
    var healthIsReady: Bool {
        healthSent || measuredSampleRate() != nil || sensorFaultMessage != nil
    }

    /// Counts the samples of one reading, and sends the first health as soon as its rate is known.
    func countSamples(_ samples: Int, at now: Double) {
        samplesDelivered = samples
        let count = SampleCount(time: now, samples: samples)
        latestSampleCount = count
        if rateMark == nil { rateMark = count }
        if !healthSent, measuredSampleRate() != nil { publishHealth(at: now) }
    }

    /// Starts a new rate measurement at the next reading: the chip (re)started, perhaps at
    /// another rate, and samples from before say nothing about the rate now.
    func restartRateMeasurement() {
        rateMark = nil
        latestSampleCount = nil
    }

    /// Sends `P/health` when it is due: every ``healthInterval``, and the first as soon as
    /// ``healthIsReady``.
    func publishHealthIfDue(at now: Double) {
        if healthSent ? now - lastHealth >= Self.healthInterval : healthIsReady {
            publishHealth(at: now)
        }
    }

    /// Publishes `P/health`, retained. `sample_rate_hz` is measured since the last health message
    /// (since the first readings for the first one), 0 while the sensor is faulty, and null when
    /// there is no measurement yet: never a 0 that only means "not measured".
    func publishHealth(at now: Double) {
        guard connected, !stopping else { return }
        let rate: JSONValue
        if sensorFaultMessage != nil {
            rate = .number(0)
        } else if let measured = measuredSampleRate() {
            rate = .number(measured.rounded(toDecimals: 1))
            // The next health reports the rate from here on.
            rateMark = latestSampleCount
        } else {
            rate = .null
        }
        lastHealth = now
        healthSent = true
        let health: [HealthKey: JSONValue] = [
            .uptimeS: .integer(Int(now - startTime)),
            .samples: .integer(samplesDelivered),
            .sampleRateHz: rate,
            .dropped: .integer(overruns),
            .i2cErrors: .integer(sampling.i2cErrors),
            .reconnects: .integer(max(0, connections - 1)),
            .queuedEvents: .integer(events.count),
            .droppedEvents: .integer(events.dropped),
            .version: .string(version),
        ]
        let object = Dictionary(uniqueKeysWithValues: health.map { ($0.key.rawValue, $0.value) })
        publish(topics.health, JSONValue.object(object).bytes, retain: true)
    }
}
