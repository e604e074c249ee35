import Geometry
import GeometryTesting
import Level
import Testing

private func thresholds(dwell: Double = 0, hysteresis: Double = 0.02) -> LevelThresholds {
    LevelThresholds(tolerance: deg(0.1), hysteresis: deg(hysteresis), alarmThreshold: deg(5), dwell: dwell)
}

/// Feeds `tilts` (degrees) one a second from `start` and collects every event.
private func events(_ machine: inout LevelStateMachine, _ tilts: [Double], from start: Double = 0) -> [LevelEvent] {
    tilts.enumerated().flatMap { step, tilt in machine.update(tilt: deg(tilt), at: start + Double(step)) }
}

@Suite("LevelStateMachine")
struct LevelStateMachineTests {
    @Test("The first reading sets level and alarm without events",
          arguments: [(0.0, true, false), (0.1, true, false), (0.11, false, false), (1, false, false),
                      (4.99, false, false), (5, false, false), (5.01, false, true), (90, false, true)])
    func firstReading(tilt: Double, level: Bool, alarm: Bool) {
        var machine = LevelStateMachine(thresholds: thresholds(dwell: 5))
        #expect(machine.isLevel == nil)
        #expect(machine.isAlarm == nil)
        #expect(machine.update(tilt: deg(tilt), at: 0).isEmpty)
        #expect(machine.isLevel == level)
        #expect(machine.isAlarm == alarm)
    }

    @Test("A slow ramp up and back down makes each event once, in order, at the band edges")
    func rampUpAndDown() {
        var machine = LevelStateMachine(thresholds: thresholds())
        let up = events(&machine, [0, 0.1, 0.12, 0.13, 4, 5, 5.1, 6])
        #expect(up == [.levelLeft, .alarmRaised])
        #expect(machine.isLevel == false)
        #expect(machine.isAlarm == true)

        let down = events(&machine, [5, 4.99, 4.98, 1, 0.12, 0.11, 0.1, 0], from: 10)
        #expect(down == [.alarmCleared, .levelEntered])
        #expect(machine.isLevel == true)
        #expect(machine.isAlarm == false)
    }

    @Test("Exactly where each event happens on the way up and down")
    func eventPlaces() {
        var machine = LevelStateMachine(thresholds: thresholds(), isLevel: true, isAlarm: false)
        let leave = deg(0.1) + deg(0.02)
        let clear = deg(5) - deg(0.02)
        #expect(machine.update(tilt: leave, at: 0).isEmpty)
        #expect(machine.update(tilt: Angle(radians: leave.radians.nextUp), at: 1) == [.levelLeft])
        #expect(machine.update(tilt: deg(5), at: 2).isEmpty)
        #expect(machine.update(tilt: Angle(radians: deg(5).radians.nextUp), at: 3) == [.alarmRaised])
        #expect(machine.update(tilt: Angle(radians: clear.radians.nextUp), at: 4).isEmpty)
        #expect(machine.update(tilt: clear, at: 5) == [.alarmCleared])
        #expect(machine.update(tilt: Angle(radians: deg(0.1).radians.nextUp), at: 6).isEmpty)
        #expect(machine.update(tilt: deg(0.1), at: 7) == [.levelEntered])
    }

    @Test("A jump across both thresholds reports both, in the order the tilt passes them")
    func jumpOrdering() {
        var machine = LevelStateMachine(thresholds: thresholds(), isLevel: true, isAlarm: false)
        #expect(machine.update(tilt: deg(30), at: 0) == [.levelLeft, .alarmRaised])
        #expect(machine.update(tilt: deg(0), at: 1) == [.alarmCleared, .levelEntered])
    }

    @Test("With a dwell, a jump across both reports both together once the dwell has passed")
    func jumpWithDwell() {
        var machine = LevelStateMachine(thresholds: thresholds(dwell: 0.5), isLevel: true, isAlarm: false)
        #expect(machine.update(tilt: deg(30), at: 0).isEmpty)
        #expect(machine.update(tilt: deg(30), at: 0.25).isEmpty)
        #expect(machine.update(tilt: deg(30), at: 0.5) == [.levelLeft, .alarmRaised])
    }

    @Test("A brief excursion shorter than the dwell makes no events")
    func briefExcursion() {
        var machine = LevelStateMachine(thresholds: thresholds(dwell: 0.5), isLevel: true, isAlarm: false)
        for (time, tilt) in [(0.0, 30.0), (0.1, 30), (0.4, 30), (0.45, 0), (0.6, 30), (1.05, 30)] {
            #expect(machine.update(tilt: deg(tilt), at: time).isEmpty)
        }
        #expect(machine.isLevel == true)
        #expect(machine.isAlarm == false)
        #expect(machine.update(tilt: deg(30), at: 1.1) == [.levelLeft, .alarmRaised])
    }

    @Test("The hysteresis applies to both: the alarm clears only at threshold − hysteresis")
    func sharedHysteresis() {
        var machine = LevelStateMachine(thresholds: thresholds(hysteresis: 1), isLevel: false, isAlarm: true)
        #expect(events(&machine, [4.5, 4.01, 3.99]) == [.alarmCleared])
        #expect(events(&machine, [1.09, 1.0, 0.5, 0.1], from: 10) == [.levelEntered])
        #expect(events(&machine, [1.09], from: 20).isEmpty)
        #expect(events(&machine, [1.11], from: 30) == [.levelLeft])
    }

    @Test("A NaN tilt changes nothing")
    func nanTilt() {
        var machine = LevelStateMachine(thresholds: thresholds())
        #expect(machine.update(tilt: Angle(radians: .nan), at: 0).isEmpty)
        #expect(machine.isLevel == nil)
        #expect(machine.isAlarm == nil)
    }

    @Test("Reconfiguring keeps both states; the next reading is judged by the new thresholds after the dwell")
    func reconfigure() {
        var machine = LevelStateMachine(thresholds: thresholds())
        #expect(events(&machine, [0.5]).isEmpty)
        #expect(machine.isLevel == false)

        let wider = LevelThresholds(tolerance: deg(1), hysteresis: deg(0.1), alarmThreshold: deg(0.4), dwell: 2)
        machine.reconfigure(wider)
        #expect(machine.thresholds == wider)
        #expect(machine.level.enter == deg(1))
        #expect(machine.alarm.enter == deg(0.4))
        #expect(machine.isLevel == false)
        #expect(machine.isAlarm == false)
        #expect(machine.update(tilt: deg(0.5), at: 10).isEmpty)
        #expect(machine.update(tilt: deg(0.5), at: 11).isEmpty)
        #expect(machine.update(tilt: deg(0.5), at: 12) == [.levelEntered, .alarmRaised])
    }

    @Test("States given at creation are used before the first reading; an alarm clearing comes first")
    func givenStates() {
        var machine = LevelStateMachine(thresholds: thresholds(), isLevel: true, isAlarm: true)
        #expect(machine.isLevel == true)
        #expect(machine.isAlarm == true)
        #expect(machine.update(tilt: deg(1), at: 0) == [.alarmCleared, .levelLeft])
    }
}
