import Geometry
import GeometryTesting
import Level
import Testing

private let tolerance = deg(0.1)
private let hysteresis = deg(0.02)
/// Computed the way the detector computes it, so "exactly at" is exact.
private let leaveLevel = tolerance + hysteresis

private let alarmThreshold = deg(5)
private let alarmClear = alarmThreshold - hysteresis

private func levelDetector(dwell: Double = 0, initial: Bool? = nil) -> ThresholdDetector {
    .level(tolerance: tolerance, hysteresis: hysteresis, dwell: dwell, initial: initial)
}

private func justAbove(_ angle: Angle) -> Angle { Angle(radians: angle.radians.nextUp) }
private func justBelow(_ angle: Angle) -> Angle { Angle(radians: angle.radians.nextDown) }

@Suite("ThresholdDetector: boundaries")
struct ThresholdBoundaryTests {
    @Test("The first reading decides at once, by the entering condition: the band counts as not level",
          arguments: [
              (deg(0), true), (deg(0.05), true), (tolerance, true), (justAbove(tolerance), false),
              (deg(0.11), false), (leaveLevel, false), (justAbove(leaveLevel), false), (deg(45), false),
          ])
    func firstReadingDecides(tilt: Angle, level: Bool) {
        var detector = levelDetector(dwell: 10)
        #expect(detector.isActive == nil)
        let transition = detector.update(tilt: tilt, at: 7)
        #expect(transition == .init(isActive: level, wasActive: nil, time: 7, heldSince: 7))
        #expect(transition?.isInitial == true)
        #expect(detector.isActive == level)
        #expect(detector.pendingSince == nil)
    }

    @Test("Exactly at the tolerance enters; the next representable angle above does not")
    func entersAtTolerance() {
        var outside = levelDetector(initial: false)
        #expect(outside.update(tilt: justAbove(tolerance), at: 0) == nil)
        #expect(outside.isActive == false)
        #expect(outside.update(tilt: tolerance, at: 1) == .init(isActive: true, wasActive: false, time: 1, heldSince: 1))
        #expect(outside.isActive == true)
    }

    @Test("Exactly at tolerance + hysteresis stays level; the next representable angle above leaves")
    func leavesAboveBand() {
        var level = levelDetector(initial: true)
        #expect(level.update(tilt: leaveLevel, at: 0) == nil)
        #expect(level.isActive == true)
        #expect(level.update(tilt: justAbove(leaveLevel), at: 1)
            == .init(isActive: false, wasActive: true, time: 1, heldSince: 1))
    }

    @Test("Inside the band neither state changes, however long it lasts",
          arguments: [justAbove(tolerance), deg(0.11), leaveLevel])
    func bandHoldsBothStates(tilt: Angle) {
        for initial in [true, false] {
            var detector = levelDetector(dwell: 0.5, initial: initial)
            for step in 0..<100 {
                #expect(detector.update(tilt: tilt, at: Double(step)) == nil)
            }
            #expect(detector.isActive == initial)
            #expect(detector.pendingSince == nil)
        }
    }

    @Test("The conditions are exposed as the detector applies them")
    func conditions() {
        let level = levelDetector()
        #expect(level.entersActive(tolerance))
        #expect(!level.entersActive(justAbove(tolerance)))
        #expect(!level.leavesActive(leaveLevel))
        #expect(level.leavesActive(justAbove(leaveLevel)))
        #expect(level.polarity == .activeAtOrBelow)
        #expect(level.enter == tolerance)
        #expect(level.leave == leaveLevel)
    }

    @Test("A negative hysteresis counts as none: one tilt can never both enter and leave")
    func negativeHysteresis() {
        let level = ThresholdDetector.level(tolerance: tolerance, hysteresis: deg(-0.05), dwell: 0)
        #expect(level.leave == level.enter)
        let alarm = ThresholdDetector.alarm(threshold: deg(5), hysteresis: deg(-1), dwell: 0)
        #expect(alarm.leave == alarm.enter)

        var detector = ThresholdDetector(polarity: .activeAtOrBelow, enter: deg(1), leave: deg(0.5), dwell: 0,
                                         initial: true)
        for step in 0..<10 {
            #expect(detector.update(tilt: deg(0.7), at: Double(step)) == nil)
        }
    }

    @Test("A NaN boundary is never crossed")
    func nanBoundary() {
        var detector = ThresholdDetector(polarity: .activeAtOrBelow, enter: Angle(radians: .nan), leave: deg(1),
                                         dwell: 0)
        #expect(detector.update(tilt: .zero, at: 0)?.isActive == false)
        #expect(detector.update(tilt: .zero, at: 1) == nil)
    }
}

@Suite("ThresholdDetector: alarm, the mirror image")
struct ThresholdAlarmTests {
    func alarm(dwell: Double = 0, initial: Bool? = nil) -> ThresholdDetector {
        .alarm(threshold: alarmThreshold, hysteresis: hysteresis, dwell: dwell, initial: initial)
    }

    @Test("Exactly at the threshold is no alarm; the next representable angle above raises it")
    func raisesAboveThreshold() {
        var detector = alarm(initial: false)
        #expect(detector.update(tilt: alarmThreshold, at: 0) == nil)
        #expect(detector.update(tilt: justAbove(alarmThreshold), at: 1)
            == .init(isActive: true, wasActive: false, time: 1, heldSince: 1))
    }

    @Test("Raised, it holds through the band below the threshold and clears exactly at threshold − hysteresis")
    func clearsAtBandBottom() {
        var detector = alarm(initial: true)
        for tilt in [alarmThreshold, deg(4.99), justAbove(alarmClear)] {
            #expect(detector.update(tilt: tilt, at: 0) == nil)
        }
        #expect(detector.isActive == true)
        #expect(detector.update(tilt: alarmClear, at: 1)
            == .init(isActive: false, wasActive: true, time: 1, heldSince: 1))
    }

    @Test("The first reading raises only above the threshold: in the band there is no alarm",
          arguments: [(deg(0), false), (alarmClear, false), (deg(4.99), false), (alarmThreshold, false),
                      (justAbove(alarmThreshold), true), (deg(90), true)])
    func firstReading(tilt: Angle, raised: Bool) {
        var detector = alarm(dwell: 10)
        #expect(detector.update(tilt: tilt, at: 0)?.isActive == raised)
    }

    @Test("The alarm waits for the dwell both ways, like the level")
    func alarmDwell() {
        var detector = alarm(dwell: 0.5, initial: false)
        #expect(detector.update(tilt: deg(6), at: 1) == nil)
        #expect(detector.update(tilt: deg(6), at: 1.25) == nil)
        #expect(detector.update(tilt: deg(6), at: 1.5) == .init(isActive: true, wasActive: false, time: 1.5, heldSince: 1))
        #expect(detector.update(tilt: deg(1), at: 2) == nil)
        #expect(detector.update(tilt: deg(1), at: 2.5) == .init(isActive: false, wasActive: true, time: 2.5, heldSince: 2))
    }
}

@Suite("ThresholdDetector: dwell")
struct ThresholdDwellTests {
    @Test("Leaving waits until the new side has held for the dwell: dwell − ε is not enough, dwell is")
    func leaveAfterDwell() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 10) == nil)
        #expect(detector.pendingSince == 10)
        #expect(detector.update(tilt: deg(1), at: 10.25) == nil)
        #expect(detector.update(tilt: deg(1), at: 10.5.nextDown) == nil)
        #expect(detector.isActive == true)
        #expect(detector.update(tilt: deg(1), at: 10.5) == .init(isActive: false, wasActive: true, time: 10.5, heldSince: 10))
        #expect(detector.isActive == false)
        #expect(detector.pendingSince == nil)
    }

    @Test("Entering waits for the dwell the same way")
    func enterAfterDwell() {
        var detector = levelDetector(dwell: 0.5, initial: false)
        #expect(detector.update(tilt: deg(0.05), at: 3) == nil)
        #expect(detector.update(tilt: deg(0.05), at: 3.5.nextDown) == nil)
        #expect(detector.update(tilt: tolerance, at: 3.5) == .init(isActive: true, wasActive: false, time: 3.5, heldSince: 3))
    }

    @Test("With readings sparser than the dwell, the second reading past the boundary changes the state")
    func sparseReadings() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 0) == nil)
        #expect(detector.update(tilt: deg(1), at: 1)?.heldSince == 0)
    }

    @Test("Going back to the current side cancels the candidate; the count restarts at the next crossing")
    func returnCancels() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 0) == nil)
        #expect(detector.update(tilt: deg(0.05), at: 0.3) == nil)
        #expect(detector.pendingSince == nil)
        #expect(detector.update(tilt: deg(1), at: 0.4) == nil)
        #expect(detector.update(tilt: deg(1), at: 0.6) == nil)  // 0.6 s since the first, but 0.2 s since 0.4
        #expect(detector.update(tilt: deg(1), at: 0.9) == .init(isActive: false, wasActive: true, time: 0.9, heldSince: 0.4))
    }

    @Test("A reading inside the band also cancels: the new side must hold continuously")
    func bandCancels() {
        var leaving = levelDetector(dwell: 0.5, initial: true)
        #expect(leaving.update(tilt: deg(1), at: 0) == nil)
        #expect(leaving.update(tilt: leaveLevel, at: 0.25) == nil)
        #expect(leaving.update(tilt: deg(1), at: 0.5) == nil)
        #expect(leaving.pendingSince == 0.5)

        var entering = levelDetector(dwell: 0.5, initial: false)
        #expect(entering.update(tilt: .zero, at: 0) == nil)
        #expect(entering.update(tilt: justAbove(tolerance), at: 0.25) == nil)
        #expect(entering.update(tilt: .zero, at: 0.5) == nil)
        #expect(entering.pendingSince == 0.5)
    }

    @Test("A dwell of zero, negative or NaN changes on the first reading past the boundary",
          arguments: [0, -1, Double.nan])
    func noDwell(dwell: Double) {
        var detector = levelDetector(dwell: dwell, initial: true)
        #expect(detector.dwell == 0)
        #expect(detector.update(tilt: deg(1), at: 5) == .init(isActive: false, wasActive: true, time: 5, heldSince: 5))
    }

    @Test("An infinite dwell never changes a known state, though the first reading still decides")
    func infiniteDwell() {
        var detector = levelDetector(dwell: .infinity)
        #expect(detector.update(tilt: deg(1), at: 0)?.isActive == false)
        for step in 1...100 {
            #expect(detector.update(tilt: .zero, at: Double(step) * 1e6) == nil)
        }
    }

    @Test("A time before the candidate began counts as no time held")
    func timeBackwards() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 10) == nil)
        #expect(detector.update(tilt: deg(1), at: 2) == nil)
        #expect(detector.pendingSince == 10)
        #expect(detector.update(tilt: deg(1), at: 10.5)?.heldSince == 10)
    }
}

@Suite("ThresholdDetector: NaN and live settings")
struct ThresholdRobustnessTests {
    @Test("A NaN tilt is ignored: no first decision, no change, and a candidate is neither cancelled nor confirmed")
    func nanTilt() {
        let nan = Angle(radians: .nan)
        var unknown = levelDetector()
        #expect(unknown.update(tilt: nan, at: 0) == nil)
        #expect(unknown.isActive == nil)

        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 0) == nil)
        #expect(detector.update(tilt: nan, at: 0.3) == nil)
        #expect(detector.update(tilt: nan, at: 0.6) == nil)
        #expect(detector.pendingSince == 0)
        #expect(detector.isActive == true)
        #expect(detector.update(tilt: deg(1), at: 0.7) == .init(isActive: false, wasActive: true, time: 0.7, heldSince: 0))
    }

    @Test("A non-finite time is ignored", arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteTime(time: Double) {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: time) == nil)
        #expect(detector.pendingSince == nil)
        #expect(detector.isActive == true)
    }

    @Test("Reconfiguring keeps the state, and the next reading is judged by the new boundaries and dwell")
    func reconfigureKeepsState() {
        var detector = levelDetector(dwell: 0, initial: true)
        // Tighten the tolerance below the current tilt: still level until a reading says otherwise.
        detector.reconfigure(enter: deg(0.01), leave: deg(0.02), dwell: 1)
        #expect(detector.isActive == true)
        #expect(detector.enter == deg(0.01))
        #expect(detector.leave == deg(0.02))
        #expect(detector.dwell == 1)
        #expect(detector.update(tilt: deg(0.05), at: 0) == nil)
        #expect(detector.update(tilt: deg(0.05), at: 0.5) == nil)
        #expect(detector.update(tilt: deg(0.05), at: 1) == .init(isActive: false, wasActive: true, time: 1, heldSince: 0))
    }

    @Test("Reconfiguring drops a pending candidate judged by the old boundaries")
    func reconfigureDropsCandidate() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 0) == nil)
        detector.reconfigure(enter: deg(0.1), leave: deg(0.5), dwell: 0.5)
        #expect(detector.pendingSince == nil)
        #expect(detector.update(tilt: deg(1), at: 0.5) == nil)
        #expect(detector.update(tilt: deg(1), at: 1)?.heldSince == 0.5)
    }

    @Test("Reapplying the same settings keeps a pending candidate, so a reload does not restart the dwell")
    func reconfigureSameSettings() {
        var detector = levelDetector(dwell: 0.5, initial: true)
        #expect(detector.update(tilt: deg(1), at: 0) == nil)
        detector.reconfigure(enter: tolerance, leave: leaveLevel, dwell: 0.5)
        #expect(detector.pendingSince == 0)
        #expect(detector.update(tilt: deg(1), at: 0.5)?.heldSince == 0)
    }

    @Test("Reconfiguring before the first reading keeps the state unknown")
    func reconfigureUnknown() {
        var detector = levelDetector()
        detector.reconfigure(enter: deg(1), leave: deg(2), dwell: 3)
        #expect(detector.isActive == nil)
        #expect(detector.update(tilt: deg(0.5), at: 0)?.isActive == true)
    }

    @Test("Reconfiguring normalizes like the initializer: negative hysteresis and dwell count as none")
    func reconfigureNormalizes() {
        var detector = ThresholdDetector.alarm(threshold: deg(5), hysteresis: deg(1), dwell: 1)
        detector.reconfigure(enter: deg(5), leave: deg(6), dwell: -2)
        #expect(detector.leave == deg(5))
        #expect(detector.dwell == 0)
    }
}
