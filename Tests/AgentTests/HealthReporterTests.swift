@testable import Agent
import Testing

/// The health schedule and rate measurement as a value, without the actor.
@Suite("Health reporter")
struct HealthReporterTests {
    @Test func theFirstRateNeedsTwoSecondsOfReadings() {
        var health = HealthReporter(interval: 60)
        let first = health.count(samples: 0, overruns: 0, at: 10)
        #expect(!first)
        let second = health.count(samples: 100, overruns: 0, at: 11)
        #expect(!second)
        #expect(!health.isDue(at: 11, sensorFaulty: false), "no rate yet: a health now would report 0 Hz")
        let known = health.count(samples: 200, overruns: 1, at: 12)
        #expect(known, "the rate is known: the first health goes out")
        #expect(health.measuredSampleRate == 100)
        let sent12 = health.send(at: 12, sensorFaulty: false)
        #expect(sent12 == 100)
        #expect(health.overruns == 1)
        #expect(!health.isDue(at: 71, sensorFaulty: false))
        #expect(health.isDue(at: 72, sensorFaulty: false))
    }

    @Test func aFaultReportsZeroAndARestartForgetsTheOldRate() {
        var health = HealthReporter(interval: 60)
        #expect(health.isReady(sensorFaulty: true), "a faulty sensor's 0 Hz is true at once")
        let sent0 = health.send(at: 0, sensorFaulty: true)
        #expect(sent0 == 0)
        _ = health.count(samples: 0, overruns: 0, at: 1)
        _ = health.count(samples: 300, overruns: 0, at: 4)
        health.restartRateMeasurement()
        _ = health.count(samples: 310, overruns: 0, at: 5)
        #expect(health.measuredSampleRate == nil, "samples from before the restart say nothing about the rate now")
        let sent61 = health.send(at: 61, sensorFaulty: false)
        #expect(sent61 == nil)
    }
}
