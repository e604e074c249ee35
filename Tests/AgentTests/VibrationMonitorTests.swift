@testable import Agent
import Contract
import Foundation
import Geometry
import Level
import Settings
import Testing
import Vibration
import VibrationVocabulary

/// The agent's vibration stage as a value, without the actor: windows, running, zone, when to
/// publish, and the payload.
@Suite("Vibration monitor")
struct VibrationMonitorTests {
    static let rate = 800.0

    static func settings(_ json: String) throws -> VibrationSettings {
        try LiveSettings().applying(json: Array(json.utf8)).vibration
    }

    /// A z tone of `velocity` mm/s RMS at `frequency` Hz on 1 g, or still when `velocity` is 0.
    struct Machine {
        var frequency = 50.0
        var sample = 0

        mutating func batch(seconds: Double, velocity: Double) -> (samples: [Vector3], end: Double) {
            let count = Int((seconds * VibrationMonitorTests.rate).rounded())
            let amplitude = 2.squareRoot() * velocity / 1000 * 2 * Double.pi * frequency / 9.80665
            var samples: [Vector3] = []
            for _ in 0..<count {
                let t = Double(sample) / VibrationMonitorTests.rate
                samples.append(Vector3(x: 0, y: 0, z: 1 + amplitude * sin(2 * Double.pi * frequency * t)))
                sample += 1
            }
            return (samples, Double(sample - 1) / VibrationMonitorTests.rate)
        }
    }

    @Test("A run and a stop are each reported once, within a hop of their dwells, with the run's duration")
    func runAndStop() throws {
        let monitor = try VibrationMonitor(settings: Self.settings(
            #"{"sample_rate_hz": 800, "running_start_s": 2, "running_stop_s": 3}"#))
        var machine = Machine()
        var changes: [(RunningDetector.Transition, Double)] = []
        var publications: [VibrationPublishDecision] = []
        // Still 3 s, running 10 s (from 3 s), still 10 s (from 13 s), in the sampler's 0.1 s batches.
        for (seconds, velocity) in [(3.0, 0.0), (10.0, 4.5), (10.0, 0.0)] {
            for _ in 0..<Int(seconds * 10) {
                let (samples, end) = machine.batch(seconds: 0.1, velocity: velocity)
                for outcome in monitor.add(samples, endingAt: end) {
                    if let change = outcome.runningChange { changes.append((change, end)) }
                    if let reason = outcome.publish { publications.append(reason) }
                }
            }
        }
        try #require(changes.count == 2, "\(changes.map(\.0))")
        let (start, startedAt) = changes[0]
        #expect(start.isRunning && start.wasRunning == false)
        // Times are the newest sample's, one 1/800 s period short of the batch boundary.
        #expect(startedAt >= 3 + 2 - 0.01 && startedAt <= 3 + 2 + 0.2, "start reported at \(startedAt) s")
        let (stop, stoppedAt) = changes[1]
        #expect(!stop.isRunning)
        #expect(stoppedAt >= 13 + 3 - 0.01 && stoppedAt <= 13 + 3 + 0.2, "stop reported at \(stoppedAt) s")
        let duration = try #require(stop.duration)
        #expect(abs(duration - 10) < 0.2, "ran \(duration) s")
        // First, the start and the stop at once; a steady run and a still machine stay quiet
        // (no heartbeat within 30 s): the moves are the window filling and emptying.
        #expect(publications.first == .first)
        #expect(publications.filter { $0 == .changed }.count >= 2)
        #expect(publications.count <= 8, "\(publications)")
        #expect(monitor.windowsCompleted >= 220, "windows every 0.1 s over 23 s")
        #expect(monitor.isRunning == false)
    }

    @Test("A pause shorter than running_stop_s is not a stop")
    func pauseIsNotDone() throws {
        let monitor = try VibrationMonitor(settings: Self.settings(
            #"{"sample_rate_hz": 800, "running_start_s": 1, "running_stop_s": 5}"#))
        var machine = Machine()
        var stops = 0
        for (seconds, velocity) in [(5.0, 3.0), (3.0, 0.0), (5.0, 3.0), (4.0, 0.0), (5.0, 3.0)] {
            for _ in 0..<Int(seconds * 10) {
                let (samples, end) = machine.batch(seconds: 0.1, velocity: velocity)
                stops += monitor.add(samples, endingAt: end).filter { $0.runningChange?.isRunning == false }.count
            }
        }
        #expect(stops == 0)
        #expect(monitor.isRunning == true)
    }

    /// Samples lost to an overrun: no window may join the wave across the loss, so the window
    /// in progress is dropped and the next one is all after it. The running state carries on.
    @Test("A loss in a batch drops the window in progress; the next window is whole after it")
    func aLossRestartsTheWindow() throws {
        let monitor = try VibrationMonitor(settings: Self.settings(#"{"sample_rate_hz": 800}"#))
        var machine = Machine()
        var windowsBefore = 0
        for _ in 0..<30 {
            let (samples, end) = machine.batch(seconds: 0.1, velocity: 3)
            windowsBefore += monitor.add(SampleBatch(samples: samples, time: end, rateHz: Self.rate), endingAt: end).count
        }
        #expect(windowsBefore > 10, "a window every hop while the samples are whole")
        let runningBefore = monitor.add(SampleBatch(samples: [], time: 3, rateHz: Self.rate), endingAt: 3).last?.running
        machine.sample += 11  // lost: the chip's buffer overran
        let windowBatches = Int((monitor.settings.windowS / 0.1).rounded())
        var outcomes: [[VibrationOutcome]] = []
        for index in 0..<(windowBatches + 2) {
            let (samples, end) = machine.batch(seconds: 0.1, velocity: 3)
            outcomes.append(monitor.add(SampleBatch(samples: samples, time: end, rateHz: Self.rate,
                                                    gapIndex: index == 0 ? 0 : nil), endingAt: end))
        }
        let first = try #require(outcomes.firstIndex { !$0.isEmpty }, "windows come again")
        #expect(first == windowBatches - 1, "the first window after the loss is all after it: batch \(first)")
        #expect(outcomes[first].last?.running == runningBefore ?? outcomes[first].last?.running)
        #expect(abs((outcomes[first].last?.figures.overall.dominantHz ?? 0) - 50) < 1)
    }

    @Test("The payload carries every figure under the contract's keys, the band and the zone")
    func payload() throws {
        let monitor = try VibrationMonitor(settings: Self.settings(#"{"sample_rate_hz": 800}"#))
        var machine = Machine()
        var last: VibrationOutcome?
        for _ in 0..<30 {
            let (samples, end) = machine.batch(seconds: 0.1, velocity: 3)
            last = monitor.add(samples, endingAt: end).last ?? last
        }
        let outcome = try #require(last)
        let json = VibrationPayload(outcome.figures, zone: outcome.zone, machineClass: .classI, running: outcome.running,
                                    ts: "2026-12-01T00:00:00.000Z").json
        guard case .object(let object) = json else { Issue.record("not an object"); return }
        #expect(Set(object.keys) == Set(VibrationKey.allCases.map(\.rawValue)).subtracting(["hz"]))
        #expect(object["band_hz"] == .array([.number(10), .number(312.5)]))
        #expect(object["zone"] == .string("C"), "3 mm/s is zone C for class I")
        #expect(object["vibration_class"] == .string("class_i"))
        guard case .number(let velocity) = object["velocity_rms_mm_s"], case .number(let dominant) = object["dominant_hz"],
              case .object(let axes) = object["axes"], case .object(let z) = axes["z"], case .object(let x) = axes["x"]
        else { Issue.record("figures missing: \(object)"); return }
        #expect(abs(velocity - 3) < 0.09, "\(velocity) mm/s")
        #expect(abs(dominant - 50) <= 1)
        #expect(z["velocity_rms_mm_s"] == .number(velocity))
        #expect(x["velocity_rms_mm_s"] == .number(0))
        guard case .array(let peaks) = z["peaks"], case .object(let strongest) = peaks.first else {
            Issue.record("no peaks: \(z)"); return
        }
        guard case .number(let hz) = strongest["hz"] else { Issue.record("no hz: \(strongest)"); return }
        #expect(abs(hz - 50) <= 1)
    }

    @Test("A rate with no velocity band is refused with what to choose")
    func slowRateRefused() throws {
        let settings = try Self.settings(#"{"sample_rate_hz": 25}"#)
        #expect(throws: VibrationAnalyzerError.self) { try VibrationMonitor(settings: settings) }
        do {
            _ = try VibrationMonitor(settings: settings)
        } catch {
            #expect("\(error)".contains("faster than 25.6 Hz"), "\(error)")
        }
    }

    @Test("A new machine class re-decides the zone and publishes at once; a new rate restarts the windows")
    func reconfigure() throws {
        let monitor = try VibrationMonitor(settings: Self.settings(#"{"sample_rate_hz": 800}"#))
        var machine = Machine()
        func feed() -> [VibrationOutcome] {
            let (samples, end) = machine.batch(seconds: 0.1, velocity: 3)
            return monitor.add(samples, endingAt: end)
        }
        for _ in 0..<31 { _ = feed() }
        #expect(monitor.zone == .c)
        try monitor.reconfigure(Self.settings(#"{"sample_rate_hz": 800, "vibration_class": "class_iv"}"#))
        let after = feed()
        #expect(after.last?.zone == .b, "3 mm/s is zone B for class IV")
        #expect(after.last?.publish == .forced)
        try monitor.reconfigure(Self.settings(#"{"sample_rate_hz": 400, "vibration_class": "class_iv"}"#))
        #expect(monitor.latest == nil)
    }
}
