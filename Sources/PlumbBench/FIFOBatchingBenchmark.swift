import Accelerometers
import Foundation
import Geometry
import I2C
import Sampling
import SimulatedADXL345

/// The FIFO batching's figures: bus transactions (what would be ioctls on `/dev/i2c-N`) and CPU per sample
/// while the real driver and sampler read the simulated chip in real time, at 100 and 800 Hz,
/// draining one read per transaction (the path SMBus and the Pi 0–4's adapter take, and every
/// bus took before batching) and in batches. Readings are 0.1 s blocks, as the agent reads them.
/// The four cases take turns, in rounds, so that a change in the machine's load falls on all of
/// them alike.
struct FIFOBatchingBenchmark {
    /// Measured seconds per case, after the warm-ups, split over the rounds.
    let seconds: Double
    static let rounds = 3

    /// The target at 800 Hz.
    static let target = 1.0 / 16
    /// Long enough for the driver to measure the chip's rate and start carrying counts over.
    static let warmUp = 0.5

    private struct Figures {
        var rateHz: Double
        var batched: Bool
        var samples: Int
        var transactions: Int
        var cpuSeconds: Double
        var dropped: Int
        var drains: FIFODrainStatistics

        var transactionsPerSample: Double { Double(transactions) / Double(max(1, samples)) }
        var cpuMicrosecondsPerSample: Double { cpuSeconds / Double(max(1, samples)) * 1e6 }

        static func + (a: Figures, b: Figures) -> Figures {
            Figures(rateHz: a.rateHz, batched: a.batched, samples: a.samples + b.samples,
                    transactions: a.transactions + b.transactions, cpuSeconds: a.cpuSeconds + b.cpuSeconds,
                    dropped: a.dropped + b.dropped, drains: a.drains + b.drains)
        }
    }

    func run() {
        print("FIFO batching:     the real driver and sampler on the simulated chip in real time, 0.1 s blocks, "
              + "\(figure(seconds, 0)) s per case in \(Self.rounds) rounds, each after \(figure(Self.warmUp, 1)) s of "
              + "warm-up; CPU is the whole process's, the simulated chip's own work included")
        let cases = [(100.0, false), (100.0, true), (800.0, false), (800.0, true)]
        var rows: [Figures?] = Array(repeating: nil, count: cases.count)
        for _ in 0..<Self.rounds {
            for (index, (rate, batched)) in cases.enumerated() {
                do {
                    let figures = try measure(rateHz: rate, batched: batched, seconds: seconds / Double(Self.rounds))
                    rows[index] = rows[index].map { $0 + figures } ?? figures
                } catch {
                    print("FIFO batching benchmark failed at \(figure(rate, 0)) Hz: \(error)")
                    return
                }
            }
        }
        print("| rate | draining | ioctls per sample | CPU per sample | samples | dropped | target | |")
        print("|---:|---|---:|---:|---:|---:|---:|---|")
        for case let row? in rows {
            let draining = row.batched ? "in batches (after)" : "one read per ioctl (before)"
            let perSample = row.transactionsPerSample
            let isTarget = row.rateHz == 800 && row.batched
            let target = isTarget ? "≤ 1/16" : ""
            let verdict = isTarget ? (perSample <= Self.target ? "met" : "NOT MET") : ""
            print("| \(figure(row.rateHz, 0)) Hz | \(draining) | \(figure(perSample, 4)) (1/\(figure(1 / perSample, 1))) | "
                  + "\(figure(row.cpuMicrosecondsPerSample, 2)) µs | \(row.samples) | \(row.dropped) | \(target) | \(verdict) |")
        }
        for case let row? in rows where row.batched {
            let drains = row.drains
            print("                   \(figure(row.rateHz, 0)) Hz in batches: \(drains.drains) drains, "
                  + "\(drains.carriedDrains) carried over (one ioctl each), \(drains.statusFirstDrains) status-first, "
                  + "\(drains.discardedBatches) batches discarded")
        }
        // In the simulation a transaction is a function call, not a syscall and an I²C interrupt:
        // the real-time CPU above is mostly each wake-up's own cost. The code path alone:
        for rate in [100.0, 800.0] {
            guard let before = try? codePathMicroseconds(rateHz: rate, batched: false),
                  let after = try? codePathMicroseconds(rateHz: rate, batched: true) else { continue }
            print("                   \(figure(rate, 0)) Hz, driver and simulated bus alone (simulated time, no sleeping): "
                  + "\(figure(before, 2)) µs per sample before, \(figure(after, 2)) µs after")
        }
    }

    /// CPU per sample of the driver's drains and the simulated chip's transactions, without the
    /// sampler's sleeps: a manual clock advanced a watermark's worth between drains.
    private func codePathMicroseconds(rateHz: Double, batched: Bool) throws -> Double {
        let simulated = ManualSimulationClock()
        let chip = SimulatedADXL345(configuration: .init(), clock: simulated)
        let driver = ADXL345(bus: batched ? chip : OneReadPerTransactionBus(chip), clock: simulated)
        let settings = try driver.start(SamplingRequest(rateHz: rateHz, rangeG: 16))
        let interval = Double(settings.watermark) / settings.rateHz
        var samples: [Vector3] = []
        samples.reserveCapacity(Int(settings.rateHz * interval * 12_000))
        for _ in 0..<1_000 {  // past the rate measurement
            simulated.advance(by: interval)
            _ = try driver.drain(into: &samples)
        }
        let delivered = samples.count
        let start = cpuSeconds()
        for _ in 0..<10_000 {
            simulated.advance(by: interval)
            _ = try driver.drain(into: &samples)
        }
        return (cpuSeconds() - start) / Double(samples.count - delivered) * 1e6
    }

    private func measure(rateHz: Double, batched: Bool, seconds: Double) throws -> Figures {
        let chip = SimulatedADXL345(configuration: .init(
            scene: .sweep(roll: .zero, pitch: .zero, amplitude: Angle(degrees: 2), period: 10)))
        let bus: any I2CBus = batched ? chip : OneReadPerTransactionBus(chip)
        let driver = ADXL345(bus: bus, clock: clock)
        let sampler = Sampler(chip: driver, clock: clock)
        let settings = try sampler.start(SamplingRequest(rateHz: rateHz, rangeG: 16))
        let block = max(1, Int((settings.rateHz * 0.1).rounded()))
        let warmUpEnd = clock.now() + Self.warmUp
        while clock.now() < warmUpEnd {
            _ = try sampler.nextBatch(samples: block)
        }
        chip.resetStatistics()
        let drainsBefore = driver.drainStatistics
        let samplesBefore = sampler.statistics.samples
        let cpuStart = cpuSeconds()
        let end = clock.now() + seconds
        while clock.now() < end {
            _ = try sampler.nextBatch(samples: block)
        }
        let cpu = cpuSeconds() - cpuStart
        let simulated = chip.statistics
        let drains = driver.drainStatistics - drainsBefore
        try driver.stop()
        return Figures(rateHz: settings.rateHz, batched: batched, samples: sampler.statistics.samples - samplesBefore,
                       transactions: simulated.transactions, cpuSeconds: cpu,
                       dropped: simulated.overwritten + simulated.lost, drains: drains)
    }
}
