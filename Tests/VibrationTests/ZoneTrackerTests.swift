import Testing
import Vibration
import VibrationVocabulary

@Suite("ZoneTracker")
struct ZoneTrackerTests {
    private func feed(_ tracker: inout ZoneTracker, _ velocities: [Double]) -> [ZoneChange] {
        velocities.compactMap { tracker.update(velocityRMS: $0) }
    }

    @Test("The first window decides at once, by the bare table, and is not a change")
    func firstWindow() {
        var tracker = ZoneTracker(machineClass: .classI)
        let first = tracker.update(velocityRMS: 1.85)
        #expect(first == ZoneChange(zone: .c, previous: nil, velocityRMS: 1.85))
        #expect(first?.isInitial == true && tracker.zone == .c)
    }

    @Test("A machine sitting at a boundary does not chatter")
    func boundaryChatter() {
        var tracker = ZoneTracker(machineClass: .classI)
        _ = tracker.update(velocityRMS: 1.7)
        // Class I's B/C boundary is 1.8 mm/s: ±5 % is 1.71…1.89.
        let wobble = (0..<200).map { index in index % 2 == 0 ? 1.79 : 1.88 }
        #expect(feed(&tracker, wobble).isEmpty)
        #expect(tracker.zone == .b)
    }

    @Test("A zone changes after three windows beyond the band; two and a window back do not")
    func hold() {
        var tracker = ZoneTracker(machineClass: .classI)
        _ = tracker.update(velocityRMS: 1)
        #expect(feed(&tracker, [2, 2, 1.5, 2, 2, 1.5]).isEmpty)
        let changes = feed(&tracker, [2, 2.2, 5])
        #expect(changes == [ZoneChange(zone: .d, previous: .b, velocityRMS: 5)])
        // Back down needs the velocity below 4.5 × 0.95 = 4.275 for three windows.
        #expect(feed(&tracker, [4.4, 4.3, 4.3, 4.3]).isEmpty)
        #expect(feed(&tracker, [4.2, 4.2, 0.5]) == [ZoneChange(zone: .a, previous: .d, velocityRMS: 0.5)])
    }

    @Test("A change of side restarts the count")
    func sideChange() {
        var tracker = ZoneTracker(machineClass: .classII, holdWindows: 2)
        _ = tracker.update(velocityRMS: 2)
        #expect(feed(&tracker, [3.2, 0.9, 3.2]).isEmpty)
        #expect(feed(&tracker, [3.3]).first?.zone == .c)
    }

    @Test("A new machine class is judged afresh at the next window; the same class changes nothing")
    func reconfigure() {
        var tracker = ZoneTracker(machineClass: .classI)
        _ = tracker.update(velocityRMS: 3)
        #expect(tracker.zone == .c)
        tracker.reconfigure(machineClass: .classI)
        #expect(tracker.zone == .c)
        tracker.reconfigure(machineClass: .classIV)
        #expect(tracker.zone == nil)
        #expect(tracker.update(velocityRMS: 3) == ZoneChange(zone: .b, previous: nil, velocityRMS: 3))
    }

    @Test("NaN is ignored; a hold of 0 counts as 1; a negative margin as none")
    func edges() {
        var tracker = ZoneTracker(machineClass: .classI, margin: -1, holdWindows: 0)
        #expect(tracker.margin == 0 && tracker.holdWindows == 1)
        #expect(tracker.update(velocityRMS: .nan) == nil && tracker.zone == nil)
        _ = tracker.update(velocityRMS: 0.5)
        #expect(tracker.update(velocityRMS: .nan) == nil)
        #expect(tracker.update(velocityRMS: 0.72)?.zone == .b)
    }
}
