import Configuration
import PlumbDomain
import Sampling

extension AgentCore {
    /// Whether `P/health` can be sent (see ``HealthReporter/isReady(sensorFaulty:)``).
    var healthIsReady: Bool { health.isReady(sensorFaulty: sensorFaultMessage != nil) }

    /// Counts the samples of one reading, and sends the first health as soon as its rate is known.
    func countSamples(_ statistics: SamplerStatistics, at now: Double) {
        if health.count(samples: statistics.samples, overruns: statistics.overruns, at: now) { publishHealth(at: now) }
    }

    /// Sends `P/health` when it is due.
    func publishHealthIfDue(at now: Double) {
        if health.isDue(at: now, sensorFaulty: sensorFaultMessage != nil) { publishHealth(at: now) }
    }

    /// Publishes `P/health`, retained.
    func publishHealth(at now: Double) {
        guard connected, !stopping else { return }
        let rate = health.send(at: now, sensorFaulty: sensorFaultMessage != nil)
        let payload: [String: JSONValue] = [
            "uptime_s": .integer(Int(now - startTime)),
            "samples": .integer(health.samples),
            "sample_rate_hz": rate.map { .number($0.rounded(toDecimals: 1)) } ?? .null,
            "dropped": .integer(health.overruns),
            "i2c_errors": .integer(sampling.i2cErrors),
            "reconnects": .integer(max(0, connections - 1)),
            "queued_events": .integer(events.count),
            "dropped_events": .integer(events.dropped),
            "version": .string(version),
        ]
        publish(topics.health, JSONValue.object(payload).bytes, retain: true)
    }
}
