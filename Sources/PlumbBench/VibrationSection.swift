import Accelerometers
import Foundation
import Vibration
import VibrationVocabulary

/// The vibration benchmark (docs/guides/vibration.md): the accuracy targets measured on
/// the simulated ADXL345 through the real driver, cross-checked on a synthetic chip-like source
/// that shares no code with the simulator, all in simulated time.
func benchmarkVibration() {
    print("vibration:         800 Hz ODR, 1 s windows (bins of 1 Hz, band 10–312.5 Hz), simulated time; sources: "
          + "the simulated ADXL345 through the driver (its machine vibration, --sim-vibration) and, as a cross-check, "
          + "a synthetic ADXL345-like chip (noise 0.75/1.1 LSB × √(ODR/100), 3.9 mg steps)")
    let wallStart = clock.now()
    let cpuStart = cpuSeconds()
    do {
        try benchmarkVelocity()
        try benchmarkFrequency()
        try benchmarkTwoTones()
        try benchmarkNoiseFloor()
        try benchmarkRunningLatency()
        try benchmarkWasher()
        try benchmarkAnalysisCost()
    } catch {
        print("vibration benchmark failed: \(error)")
    }
    do {
        print("  per chip:        the figures one tone allows, on the other chips")
        try benchmarkVibrationPerChip()
    } catch {
        print("vibration benchmark per chip failed: \(error)")
    }
    print("                   \(figure(clock.now() - wallStart, 1)) s (\(figure(cpuSeconds() - cpuStart, 1)) s CPU)")
}

private let rate = 800.0

/// Every window of `phases` on `source`, through a fresh analyzer.
private func windows(_ phases: [BenchPhase], on source: any VibrationSource, windowSeconds: Double = 1,
                     hopSeconds: Double? = nil) throws -> [VibrationFigures] {
    let analyzer = try VibrationAnalyzer(rateHz: source.rateHz, windowSeconds: windowSeconds, hopSeconds: hopSeconds)
    var all: [VibrationFigures] = []
    try play(phases, on: source) { samples, time in all += analyzer.add(samples, endingAt: time) }
    return all
}

private func percent(_ value: Double) -> String { figure(value * 100, 2) + " %" }

/// Both sources, fresh, at `odr`.
private func sources(_ odr: Double = rate) throws -> [any VibrationSource] {
    [try SimulatedChipSource(rateHz: odr), SyntheticChipSource(rateHz: odr)]
}

private func verdict(_ met: Bool) -> String { met ? "met" : "MISSED" }

// MARK: 4.5 mm/s at 50 Hz on z, within 3 %

private func benchmarkVelocity() throws {
    var worstOverall = 0.0
    var lines: [String] = []
    for frequency in [50.0, 47.3] {
        for source in try sources() {
            let tone = BenchTone(axis: .z, velocityRMS: 4.5, frequency: frequency)
            let velocities = try windows([BenchPhase(seconds: 30, tones: [tone])], on: source).map(\.z.velocityRMS)
            let mean = velocities.reduce(0, +) / Double(velocities.count)
            let worst = velocities.map { abs($0 / 4.5 - 1) }.max() ?? .infinity
            if frequency == 50 { worstOverall = max(worstOverall, worst) }
            lines.append("\(figure(frequency, 1)) Hz on z, \(source.name): z reads \(figure(mean, 3)) mm/s mean, worst "
                         + "\(percent(worst)) off (\(velocities.count) windows)")
        }
    }
    print("  velocity:        4.5 mm/s RMS; " + lines.joined(separator: "\n                   "))
    print("  target:          4.5 mm/s at 50 Hz on z within 3 %: \(verdict(worstOverall <= 0.03))")
}

// MARK: The dominant frequency within one bin

private func benchmarkFrequency() throws {
    let frequencies = [12.3, 23.7, 50, 87.3, 151.1, 287.9, 370.4]
    var worst = (bins: 0.0, frequency: 0.0, source: "")
    for frequency in frequencies {
        for source in try sources() {
            let tone = BenchTone(axis: .z, velocityRMS: 4.5, frequency: frequency)
            for window in try windows([BenchPhase(seconds: 10, tones: [tone])], on: source) {
                let error = abs(window.z.dominantHz - frequency) / window.binWidthHz
                if error >= worst.bins { worst = (error, frequency, source.name) }
            }
        }
    }
    print("  dominant:        4.5 mm/s at \(frequencies.map { figure($0, 1) }.joined(separator: ", ")) Hz, 10 windows each "
          + "on both sources: worst \(figure(worst.bins, 3)) bin off (\(figure(worst.frequency, 1)) Hz, \(worst.source))")
    print("  target:          the dominant frequency within one bin: \(verdict(worst.bins <= 1))")
}

// MARK: Two tones resolved

private func benchmarkTwoTones() throws {
    let pairs: [(BenchTone, BenchTone)] = [
        (BenchTone(axis: .z, velocityRMS: 4.5, frequency: 50), BenchTone(axis: .z, velocityRMS: 2, frequency: 55)),
        (BenchTone(axis: .z, velocityRMS: 4.5, frequency: 50), BenchTone(axis: .z, velocityRMS: 2, frequency: 120)),
        (BenchTone(axis: .z, velocityRMS: 3, frequency: 24.5), BenchTone(axis: .z, velocityRMS: 3, frequency: 29.2)),
    ]
    var allResolved = true
    var lines: [String] = []
    for (first, second) in pairs {
      for source in try sources() {
        let all = try windows([BenchPhase(seconds: 20, tones: [first, second])], on: source)
        var resolved = 0
        var worstTone = 0.0
        var worstTotal = 0.0
        let total = (first.velocityRMS * first.velocityRMS + second.velocityRMS * second.velocityRMS).squareRoot()
        for window in all {
            let found = [first, second].map { tone in
                window.z.peaks.first { abs($0.frequencyHz - tone.frequency) <= window.binWidthHz }
            }
            if found.allSatisfy({ $0 != nil }) { resolved += 1 }
            for (tone, peak) in zip([first, second], found) {
                if let peak { worstTone = max(worstTone, abs(peak.velocityRMS / tone.velocityRMS - 1)) }
            }
            worstTotal = max(worstTotal, abs(window.z.velocityRMS / total - 1))
        }
        allResolved = allResolved && resolved == all.count
        lines.append("\(figure(first.velocityRMS, 1)) mm/s at \(figure(first.frequency, 1)) Hz + \(figure(second.velocityRMS, 1)) "
                     + "at \(figure(second.frequency, 1)) Hz on z, \(source.name): both within a bin in \(resolved) of "
                     + "\(all.count) windows, each tone's velocity worst \(percent(worstTone)) off, the band's √(v1²+v2²) worst "
                     + "\(percent(worstTotal)) off")
      }
    }
    print("  two tones:       " + lines.joined(separator: "\n                   "))
    print("  target:          two tones resolved: \(verdict(allResolved))")
}

// MARK: What a still chip reads

private func benchmarkNoiseFloor() throws {
    var lines: [String] = []
    var loudest = 0.0
    for odr in [100.0, 800] {
        for source in try sources(odr) {
            let all = try windows([BenchPhase(seconds: 30, tones: [])], on: source)
            let velocities = all.map(\.overall.velocityRMS)
            let overall = velocities.max() ?? 0
            let mean = velocities.reduce(0, +) / Double(max(1, velocities.count))
            let axis = all.map(\.severityVelocity).max() ?? 0
            let acceleration = all.map(\.overall.accelerationRMS).max() ?? 0
            loudest = max(loudest, overall)
            lines.append("\(figure(odr, 0)) Hz, \(source.name): overall \(figure(mean, 3)) mm/s mean, \(figure(overall, 3)) "
                         + "worst, largest axis \(figure(axis, 3)) mm/s, overall \(figure(acceleration * 1000, 1)) mg (worst of "
                         + "\(all.count) windows)")
        }
    }
    let threshold = RunningDetector.Settings.default
    print("  still chip:      " + lines.joined(separator: "\n                   "))
    print("                   default running_threshold \(threshold.threshold), stops below \(figure(threshold.stopLevel, 3)) "
          + "mm/s: \(loudest < threshold.stopLevel ? "above" : "NOT above") the noise")
    // What a threshold at the noise does: a machine that was running, then still for 10 minutes.
    var stops: [String] = []
    for value in [0.5, 1.0] {
        for odr in [100.0, 800] {
            var settings = RunningDetector.Settings.default
            settings.threshold = RunningThreshold(value: value, unit: .millimetresPerSecond)!
            var detector = RunningDetector(settings: settings, initial: true)
            let source = try SimulatedChipSource(rateHz: odr)
            let start = source.now
            let analyzer = try VibrationAnalyzer(rateHz: odr, windowSeconds: 1, hopSeconds: 0.1)
            var stoppedAfter: Double?
            try play([BenchPhase(seconds: 600, tones: [])], on: source) { samples, time in
                for window in analyzer.add(samples, endingAt: time) {
                    if let change = detector.update(window), stoppedAfter == nil, !change.isRunning {
                        stoppedAfter = change.time - start
                    }
                }
            }
            stops.append("\(figure(value, 1)) mm/s at \(figure(odr, 0)) Hz: "
                         + (stoppedAfter.map { "stopped after \(figure($0, 1)) s" } ?? "never stopped"))
        }
    }
    print("                   a still chip after a run, running_stop_s \(figure(threshold.stopDwell, 0)), 10 minutes: "
          + stops.joined(separator: "; "))
}

// MARK: Running detection: latency

private struct Latency {
    var start: [Double] = []
    var stop: [Double] = []
    var placement: [Double] = []
    var extra = 0
}

private func benchmarkRunningLatency() throws {
    let settings = RunningDetector.Settings.default
    let tone = BenchTone(axis: .z, velocityRMS: 4.5, frequency: 50)
    var latencies: [String: Latency] = [:]
    for trial in 0..<20 {
        // Onsets and ends spread over a window's phase.
        let onset = 20 + Double(trial) * 0.05 + 0.013
        let runSeconds = 30 + Double(trial) * 0.037
        let phases = [BenchPhase(seconds: onset, tones: []), BenchPhase(seconds: runSeconds, tones: [tone]),
                      BenchPhase(seconds: settings.stopDwell + 5, tones: [])]
        let source = try SimulatedChipSource(rateHz: rate, seed: 0x5EED_0B5E &+ UInt64(trial))
        let start = source.now
        let feeds: [(String, Double?)] = [("every 0.1 s", 0.1), ("every 1 s", nil)]
        let analyzers = try feeds.map { try VibrationAnalyzer(rateHz: rate, windowSeconds: 1, hopSeconds: $0.1) }
        var detectors = feeds.map { _ in RunningDetector(settings: settings) }
        var transitions: [[RunningDetector.Transition]] = feeds.map { _ in [] }
        try play(phases, on: source) { samples, time in
            for index in analyzers.indices {
                for window in analyzers[index].add(samples, endingAt: time) {
                    if let transition = detectors[index].update(window), !transition.isInitial {
                        transitions[index].append(transition)
                    }
                }
            }
        }
        let on = start + onset, off = on + runSeconds
        for (index, feed) in feeds.enumerated() {
            var latency = latencies[feed.0] ?? Latency()
            let changes = transitions[index]
            if changes.count == 2, changes[0].isRunning, !changes[1].isRunning {
                latency.start.append(changes[0].time - on)
                latency.stop.append(changes[1].time - off)
                latency.placement += [abs(changes[0].changedAt - on), abs(changes[1].changedAt - off)]
            } else {
                latency.extra += 1
            }
            latencies[feed.0] = latency
        }
    }
    var met = true
    for feed in ["every 0.1 s", "every 1 s"] {
        guard let latency = latencies[feed] else { continue }
        let startRange = "\(figure(latency.start.min() ?? .nan, 2))–\(figure(latency.start.max() ?? .nan, 2)) s"
        let stopRange = "\(figure(latency.stop.min() ?? .nan, 2))–\(figure(latency.stop.max() ?? .nan, 2)) s"
        let inBounds = latency.extra == 0 && (latency.start.max() ?? .infinity) <= settings.startDwell + 0.2
            && (latency.stop.max() ?? .infinity) <= settings.stopDwell + 0.2
        if feed == "every 0.1 s" { met = inBounds }
        print("  running (\(feed)): \(latency.start.count) runs of 4.5 mm/s at 50 Hz on z: running_started after "
              + "\(startRange) (running_start_s \(figure(settings.startDwell, 0))), running_stopped after \(stopRange) "
              + "(running_stop_s \(figure(settings.stopDwell, 0))); change placed within "
              + "\(figure(latency.placement.max() ?? .nan, 3)) s; \(latency.extra) runs with other transitions; "
              + "within dwell + 0.2 s: \(inBounds ? "yes" : "no")")
    }
    print("  target:          transitions within the dwell + 0.2 s (windows every 0.1 s): \(verdict(met))")
}

// MARK: Running detection: a washer's cycle

private func benchmarkWasher() throws {
    var settings = RunningDetector.Settings.default
    settings.stopDwell = 150
    let wash = [BenchTone(axis: nil, velocityRMS: 3, frequency: 24.5)]
    let spin = [BenchTone(axis: nil, velocityRMS: 8, frequency: 16.5)]
    let phases = [
        BenchPhase(seconds: 30, tones: []),
        BenchPhase(seconds: 120, tones: wash), BenchPhase(seconds: 120, tones: []),
        BenchPhase(seconds: 120, tones: wash), BenchPhase(seconds: 120, tones: []),
        BenchPhase(seconds: 120, tones: spin),
        BenchPhase(seconds: settings.stopDwell + 30, tones: []),
    ]
    let source = try SimulatedChipSource(rateHz: rate)
    let start = source.now
    let analyzer = try VibrationAnalyzer(rateHz: source.rateHz, windowSeconds: 1, hopSeconds: 0.1)
    var detector = RunningDetector(settings: settings)
    var transitions: [RunningDetector.Transition] = []
    try play(phases, on: source) { samples, time in
        for window in analyzer.add(samples, endingAt: time) {
            if let transition = detector.update(window), !transition.isInitial { transitions.append(transition) }
        }
    }
    let on = start + 30, off = on + 600
    let falseStops = transitions.filter { !$0.isRunning && $0.time < off + settings.stopDwell - 1 }.count
    let started = transitions.first { $0.isRunning }
    let stopped = transitions.last { !$0.isRunning }
    let startLatency = started.map { $0.time - on } ?? .nan
    let stopLatency = stopped.map { $0.time - off } ?? .nan
    print("  washer:          \(source.name), 10-minute run (wash, 2-minute pause, rinse, 2-minute pause, spin) with "
          + "running_stop_s \(figure(settings.stopDwell, 0)): \(falseStops) false stopped, \(transitions.count) transitions; "
          + "started after \(figure(startLatency, 2)) s, stopped after \(figure(stopLatency, 2)) s, duration_s "
          + "\(figure(stopped?.duration ?? .nan, 2)) (truth 600)")
    let met = falseStops == 0 && transitions.count == 2 && startLatency <= settings.startDwell + 0.2
        && stopLatency <= settings.stopDwell + 0.2
    let durationMet = abs((stopped?.duration ?? .nan) - 600) <= 0.2
    print("  target:          0 false stopped in a run with pauses shorter than running_stop_s: \(verdict(falseStops == 0)); "
          + "its transitions within the dwell + 0.2 s: \(verdict(met)); duration_s within 0.2 s: \(verdict(durationMet))")
}

// MARK: What the analysis costs

private func benchmarkAnalysisCost() throws {
    let source = SyntheticChipSource(rateHz: rate)
    source.play([BenchTone(axis: .z, velocityRMS: 4.5, frequency: 50)])
    let chunks = (0..<600).map { _ in source.read(seconds: 0.1) }
    var lines: [String] = []
    for hop in [nil, 0.1] as [Double?] {
        // Ten passes over the minute: enough windows for the clock to resolve.
        var count = 0
        let start = clock.now()
        for _ in 0..<10 {
            let analyzer = try VibrationAnalyzer(rateHz: rate, windowSeconds: 1, hopSeconds: hop)
            for chunk in chunks { count += analyzer.add(chunk.samples, endingAt: chunk.time).count }
        }
        let elapsed = clock.now() - start
        lines.append("\(hop == nil ? "windows every 1 s" : "every 0.1 s"): \(figure(elapsed / Double(count) * 1e6, 0)) µs a "
                     + "window, \(figure(elapsed / 600 * 100, 3)) % of one core")
    }
    print("  cost:            60 s at 800 Hz, " + lines.joined(separator: "; "))
}
