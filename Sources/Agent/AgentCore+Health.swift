import I2C
import Contract
import Geometry
import Sampling
import Thermal

extension AgentCore {
    /// Whether `P/health` can be sent (see ``HealthReporter/isReady(sensorFaulty:)``).
    var healthIsReady: Bool { health.isReady(sensorFaulty: sensor.isFaulty) }

    /// Counts the samples of one reading, and sends the first health as soon as its rate is known.
    func countSamples(_ statistics: SamplerStatistics, at now: Double) {
        health.drains = statistics.wakeUps
        if health.count(samples: statistics.samples, overruns: statistics.overruns, at: now) { publishHealth(at: now) }
    }

    /// Sends `P/health` when it is due.
    func publishHealthIfDue(at now: Double) {
        if health.isDue(at: now, sensorFaulty: sensor.isFaulty) { publishHealth(at: now) }
    }

    /// Publishes `P/health`, retained.
    func publishHealth(at now: Double) {
        guard link.canPublish else { return }
        let rate = health.send(at: now, sensorFaulty: sensor.isFaulty)
        let payload: [HealthKey: JSONValue] = [
            .uptimeS: .integer(Int(now - environment.startTime)),
            .samples: .integer(health.samples),
            .sampleRateHz: rate.map { .number($0.rounded(toDecimals: 1)) } ?? .null,
            .dropped: .integer(health.overruns),
            .i2cErrors: .integer(sampling.i2cErrors),
            .i2cMode: health.i2cMode.map { .string($0.rawValue) } ?? .null,
            .chip: health.chip.map(JSONValue.string) ?? .null,
            .reconnects: .integer(link.reconnects),
            .inboundStalls: .integer(link.inboundStalls),
            .queuedEvents: .integer(events.count),
            .droppedEvents: .integer(events.dropped),
            .analysisWindows: .integer(vibration.windowsAnalysed),
            .version: .string(environment.version),
            .broker: link.broker.map { .string("\($0)") } ?? .null,
            .temperatureSource: .string(temperature.source.description),
            .temperatureAgeS: temperature.age(at: now).map { .integer(Int($0.rounded())) } ?? .null,
            .temperatureStale: .bool(temperature.isStale(at: now)),
            .temperatureRejected: .integer(temperature.rejectedTotal),
            .driftLearning: .bool(driftLearning != nil),
        ]
        send(.health(payload))
    }
}
