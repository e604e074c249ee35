import Foundation
import Testing
import Vibration
import VibrationVocabulary

private let threshold = RunningThreshold(value: 1, unit: .millimetresPerSecond)!

private func detector(start: Double = 5, stop: Double = 120, hysteresis: Double = 0.25,
                      initial: Bool? = false) -> RunningDetector {
    RunningDetector(settings: .init(threshold: threshold, hysteresis: hysteresis, startDwell: start, stopDwell: stop),
                    initial: initial)
}

/// Feeds one level per window of `window` seconds ending every `hop` seconds, from `from` to
/// `to`, the level given by `level(end)`; returns the transitions.
private func run(_ detector: inout RunningDetector, from: Double, to: Double, window: Double = 1, hop: Double = 1,
                 level: (Double) -> Double) -> [RunningDetector.Transition] {
    var transitions: [RunningDetector.Transition] = []
    var end = from + window
    while end <= to + 1e-9 {
        if let transition = detector.update(level: level(end), from: end - window, to: end) {
            transitions.append(transition)
        }
        end += hop
    }
    return transitions
}

/// The level of a window ending at `end` over a step from `old` to `new` at `step`, as a window
/// weighted like the velocity's Hann window sees it.
private func steppedLevel(end: Double, window: Double, step: Double, old: Double, new: Double) -> Double {
    let newFraction = min(1, max(0, (end - step) / window))
    // The share of sin⁴ weight in the window's last `newFraction`.
    let u = newFraction
    let pi = Double.pi
    let integral: Double = 3 * u / 8 - sin(2 * pi * u) / (4 * pi) + sin(4 * pi * u) / (32 * pi)
    let share = integral / (3.0 / 8)
    return (old * old + (new * new - old * old) * share).squareRoot()
}

@Suite("RunningDetector")
struct RunningDetectorTests {
    @Test("The first window decides at once, without dwell, and is not a change", arguments: [(0.3, false), (1.0, false), (1.01, true), (8, true)])
    func firstWindowDecides(level: Double, running: Bool) throws {
        var unknown = detector(initial: nil)
        #expect(unknown.isRunning == nil)
        let decision = unknown.update(level: level, from: 10, to: 11)
        let first = try #require(decision)
        #expect(first.isInitial && first.isRunning == running && first.wasRunning == nil)
        #expect(first.duration == nil)
        #expect(first.runStartedAt == (running ? 10 : nil))
        #expect(unknown.isRunning == running)
        #expect(unknown.update(level: level, from: 11, to: 12) == nil)
    }

    @Test("Starting needs the start dwell above the threshold; a dip below cancels it")
    func startDwell() {
        var machine = detector(start: 5)
        // 4 s above, then a window at the threshold (not above): no start.
        let short = run(&machine, from: 0, to: 20) { end in end > 10 && end <= 14 ? 3 : (end <= 15 ? 1 : 0.2) }
        #expect(short.isEmpty && machine.isRunning == false)
        let started = run(&machine, from: 20, to: 40) { end in end > 25 ? 3 : 0.2 }
        #expect(started.count == 1)
        let transition = started[0]
        #expect(transition.isRunning && transition.wasRunning == false)
        // Whole windows from 25 s on: the change is at 25 s, reported at 30 s.
        #expect(abs(transition.changedAt - 25) < 0.01 && transition.time == 30)
        #expect(machine.runStartedAt == transition.changedAt)
    }

    @Test("Stopping needs the level below threshold × (1 − hysteresis): the band between keeps it running")
    func hysteresis() {
        var machine = detector(stop: 10, initial: true)
        #expect(run(&machine, from: 0, to: 100) { _ in 0.8 }.isEmpty)
        #expect(run(&machine, from: 100, to: 200) { _ in 0.76 }.isEmpty)
        let stopped = run(&machine, from: 200, to: 230) { _ in 0.74 }
        #expect(stopped.count == 1 && stopped.first?.isRunning == false)
        // The level fell for the window ending at 201 s, so at 200 s: reported 10 s later.
        #expect(stopped.first?.changedAt == 200 && stopped.first?.time == 210)
    }

    @Test("A washer's cycle with pauses shorter than the stop dwell never stops; its end does, with the run's duration")
    func washerCycle() throws {
        var washer = detector(start: 5, stop: 120, initial: nil)
        // Still until 60 s; then 10 minutes of phases: 3 min wash, 110 s pause, 2 min rinse,
        // 115 s pause, then spin until 660 s; still after.
        func level(_ end: Double) -> Double {
            switch end {
            case ...60: 0.3
            case ...240: 2.5
            case ...350: 0.4
            case ...470: 3
            case ...585: 0.3
            case ...660: 9
            default: 0.3
            }
        }
        let transitions = run(&washer, from: 0, to: 900, level: level)
        #expect(transitions.map(\.isRunning) == [false, true, false])
        #expect(transitions[0].isInitial)
        let started = transitions[1], stopped = transitions[2]
        #expect(abs(started.changedAt - 60) < 0.01 && abs(started.time - 65) < 0.01)
        #expect(abs(stopped.changedAt - 660) < 0.01 && abs(stopped.time - 780) < 0.01)
        let duration = try #require(stopped.duration)
        #expect(abs(duration - 600) < 0.02)
        #expect(stopped.runStartedAt == started.changedAt)
        #expect(stopped.startSeen, "the detector saw this run start")
    }

    @Test("A run already under way at the first window stops with startSeen false: its duration is only the part seen")
    func runFoundUnderWay() {
        var machine = detector(start: 5, stop: 10, initial: nil)
        let transitions = run(&machine, from: 0, to: 60) { $0 <= 30 ? 4 : 0.2 }
        #expect(transitions.map(\.isRunning) == [true, false])
        #expect(transitions[0].isInitial && transitions[1].startSeen == false)
        #expect(transitions[1].duration.map { abs($0 - 30) < 0.5 } == true, "\(String(describing: transitions[1].duration))")
    }

    @Test("With windows every 0.1 s the change is placed within 0.1 s of where it happened, and reported within 0.2 s of its dwell",
          arguments: [100.03, 100.27, 100.5, 100.71, 100.96])
    func estimatedChange(step: Double) throws {
        var machine = detector(start: 5, stop: 20)
        let fall = step + 30
        let transitions = run(&machine, from: 90, to: 190, hop: 0.1) { end in
            end < step + 15
                ? steppedLevel(end: end, window: 1, step: step, old: 0.3, new: 4.5)
                : steppedLevel(end: end, window: 1, step: fall, old: 4.5, new: 0.3)
        }
        try #require(transitions.count == 2)
        let start = transitions[0], stop = transitions[1]
        #expect(start.isRunning && !stop.isRunning)
        #expect(abs(start.changedAt - step) < 0.1, "start placed at \(start.changedAt)")
        #expect(start.time - step >= 5 && start.time - step <= 5.2)
        #expect(abs(stop.changedAt - fall) < 0.1, "stop placed at \(stop.changedAt)")
        #expect(stop.time - fall >= 20 - 0.1 && stop.time - fall <= 20.2)
        #expect(abs(try #require(stop.duration) - 30) < 0.2)
    }

    @Test("An acceleration threshold compares the overall acceleration, its windows weighted uniformly")
    func accelerationThreshold() throws {
        let g = RunningThreshold(value: 0.02, unit: .gravities)!
        var machine = RunningDetector(settings: .init(threshold: g, startDwell: 2, stopDwell: 2), initial: false)
        let transitions = run(&machine, from: 0, to: 20, hop: 0.1) { end in
            let share = min(1, max(0, (end - 5.42) / 1))
            return (0.005 * 0.005 + (0.1 * 0.1 - 0.005 * 0.005) * share).squareRoot()
        }
        let start = try #require(transitions.first)
        #expect(abs(start.changedAt - 5.42) < 0.02)
    }

    @Test("Reconfiguring keeps the state and the run, drops a pending change, and the same settings change nothing")
    func reconfigure() {
        var machine = detector(stop: 10, initial: true)
        _ = run(&machine, from: 0, to: 5) { _ in 0.1 }
        #expect(machine.pendingSince != nil)
        let same = machine.settings
        machine.reconfigure(same)
        #expect(machine.pendingSince != nil)
        var longer = same
        longer.stopDwell = 300
        machine.reconfigure(longer)
        #expect(machine.pendingSince == nil && machine.isRunning == true && machine.settings.stopDwell == 300)
        #expect(run(&machine, from: 5, to: 200) { _ in 0.1 }.isEmpty)
    }

    @Test("A NaN level or a time that is not finite changes nothing and keeps a pending change")
    func notANumber() {
        var machine = detector(start: 3)
        #expect(machine.update(level: 5, from: 0, to: 1) == nil)
        let pending = machine.pendingSince
        #expect(pending != nil)
        #expect(machine.update(level: .nan, from: 1, to: 2) == nil)
        #expect(machine.update(level: 5, from: .nan, to: 2) == nil)
        #expect(machine.update(level: 5, from: 2, to: .infinity) == nil)
        #expect(machine.pendingSince == pending)
    }

    @Test("An interruption (a sensor fault) drops the pending change but keeps the state")
    func interrupt() {
        var machine = detector(stop: 10, initial: true)
        _ = run(&machine, from: 0, to: 8) { _ in 0.1 }
        machine.interrupt()
        #expect(machine.pendingSince == nil && machine.isRunning == true)
        let after = run(&machine, from: 100, to: 120) { _ in 0.1 }
        #expect(after.count == 1 && after.first?.changedAt == 101)
    }

    @Test("Settings are kept in range: hysteresis 0…0.9, dwells not negative")
    func settingsNormalized() {
        let settings = RunningDetector.Settings(threshold: threshold, hysteresis: 2, startDwell: -1, stopDwell: .nan)
        #expect(settings.hysteresis == 0.9 && settings.startDwell == 0 && settings.stopDwell == 0)
        #expect(RunningDetector.Settings(hysteresis: .nan).hysteresis == 0)
        #expect(RunningDetector.Settings.default.stopLevel == RunningThreshold.default.value * 0.75)
        #expect(RunningDetector.Settings.default.startDwell == 5 && RunningDetector.Settings.default.stopDwell == 120)
    }
}
