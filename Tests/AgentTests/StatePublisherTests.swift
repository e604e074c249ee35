@testable import Agent
import Geometry
import Level
import Settings
import Testing

/// When `P/state` goes out and what it says, as a value, without the actor.
@Suite("State publisher")
struct StatePublisherTests {
    /// Defaults: a 0.05° deadband, 0.5 s minimum interval, 30 s heartbeat.
    let settings = LiveSettings()

    static func measurement(roll degrees: Double, stable: Bool = true, events: [LevelEvent] = [],
                            time: Double = 0) -> Measurement {
        let gravity = Attitude.gravity(roll: Angle(degrees: degrees), pitch: .zero)
        return Measurement(deviceGravity: gravity, levelGravity: gravity, attitude: Attitude(gravity: gravity),
                           standardError: .zero, noise: .zero, stillness: stable ? .stable : .moving, isLevel: true, isAlarm: false,
                           events: events, time: time)
    }

    /// Publishes `measurement` as the actor does after a decision.
    static func publish(_ state: inout StatePublisher, _ measurement: Measurement?, reason: PublishReason = .policy(.first),
                        sensorOK: Bool = true, at time: Double) -> StatePayload? {
        state.message(for: measurement, level: measurement?.isLevel, alarm: measurement?.isAlarm, sensorOK: sensorOK,
                      sensorFaulty: !sensorOK, unit: .deg, reason: reason, at: time)
    }

    @Test func theFirstReadingPublishesThenTheDeadbandAndIntervalHold() throws {
        var state = StatePublisher(settings: settings)
        let first = Self.measurement(roll: 0)
        #expect(state.reason(for: first, at: 0) == .policy(.first))
        let payload = try #require(Self.publish(&state, first, at: 0))
        #expect(payload.seq == 1)
        #expect(state.reason(for: Self.measurement(roll: 0.01), at: 1) == nil, "inside the deadband")
        #expect(state.reason(for: Self.measurement(roll: 1), at: 0.2) == nil, "before the minimum interval")
        #expect(state.reason(for: Self.measurement(roll: 1), at: 1) == .policy(.moved))
    }

    @Test func aLevelChangePublishesAtOnceAndAForceOnce() throws {
        var state = StatePublisher(settings: settings)
        _ = Self.publish(&state, Self.measurement(roll: 0), at: 0)
        #expect(state.reason(for: Self.measurement(roll: 0, events: [.levelLeft]), at: 0.1) == .policy(.flipped))
        state.force()
        #expect(state.reasonOnTick(reading: Self.measurement(roll: 0).attitude, at: 0.2) == .policy(.forced))
        #expect(state.reasonOnTick(reading: Self.measurement(roll: 0).attitude, at: 0.3) == nil)
    }

    @Test func aChangeOfStableIsNewsAtMostOncePerInterval() throws {
        var state = StatePublisher(settings: settings)
        _ = Self.publish(&state, Self.measurement(roll: 0, stable: true), at: 0)
        #expect(state.publishedStable == true)
        #expect(state.reason(for: Self.measurement(roll: 0, stable: false), at: 0.2) == nil, "within min_interval_s")
        #expect(state.reason(for: Self.measurement(roll: 0, stable: false), at: 0.6) == .policy(.flipped))
    }

    @Test func withoutAReadingTheTickerSendsHeartbeats() throws {
        var state = StatePublisher(settings: settings)
        #expect(Self.publish(&state, nil, at: 0) == nil, "nothing true to say before a reading or a fault")
        #expect(state.seq == 0)
        let fault = try #require(Self.publish(&state, nil, reason: .fault, sensorOK: false, at: 0))
        #expect(fault.seq == 1)
        #expect(!fault.sensorOK)
        #expect(state.reasonOnTick(reading: nil, at: 29) == nil)
        #expect(state.reasonOnTick(reading: nil, at: 30) == .policy(.heartbeat))
    }

    @Test func theBubbleFollowsMovementNotHeartbeats() throws {
        var state = StatePublisher(settings: settings)
        let first = Self.measurement(roll: 0)
        _ = Self.publish(&state, first, at: 0)
        #expect(state.gravity == first.levelGravity)
        _ = Self.publish(&state, Self.measurement(roll: 0.01), reason: .policy(.heartbeat), at: 30)
        #expect(state.gravity == first.levelGravity, "a heartbeat's noise does not redraw the picture")
        let moved = Self.measurement(roll: 2)
        _ = Self.publish(&state, moved, reason: .policy(.moved), at: 31)
        #expect(state.gravity == moved.levelGravity)
        _ = Self.publish(&state, moved, reason: .fault, sensorOK: false, at: 32)
        #expect(state.gravity == nil, "a faulty sensor draws no bubble")
        #expect(state.publishedStable == nil)
    }

    @Test func newSettingsStartTheTimingAfresh() throws {
        var state = StatePublisher(settings: settings)
        _ = Self.publish(&state, Self.measurement(roll: 0), at: 0)
        state.reconfigure(try settings.applying(key: "heartbeat_s", rawValue: Array("10".utf8)))
        #expect(state.policy.heartbeat == 10)
        #expect(state.reason(for: Self.measurement(roll: 0), at: 0.1) == .policy(.first))
    }
}
