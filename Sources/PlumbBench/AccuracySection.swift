import Accelerometers
import AccuracyBenchmark
import Foundation

/// The accuracy benchmark (README, "Benchmarks"): `chips` random typical parts, seeds 1…chips,
/// calibrated by the CLI's own procedures and read through the agent's pipeline, all in
/// simulated time; the table, then how long it took.
func benchmarkAccuracy(chips: Int) {
    let seeds = (1...chips).map(UInt64.init)
    let options = AccuracyOptions()
    print("accuracy:          \(chips) random typical chips (seeds 1–\(chips)), simulated time; six-point and reversal "
          + "through plumb calibrate's procedures; attitudes read as \(figure(options.attitudeSeconds, 0)) s means, "
          + "repeatability and settling through the agent's 1 s window")
    let wallStart = clock.now()
    let cpuStart = cpuSeconds()
    let report: AccuracyReport
    do {
        report = try AccuracyReport.run(seeds: seeds, options: options)
    } catch {
        print("accuracy benchmark failed: \(error)")
        return
    }
    print(report.table)
    let simulated = report.chips.reduce(0) { $0 + $1.simulatedSeconds }
    let worst = report.chips.max { $0.sixPointTo45 < $1.sixPointTo45 }
    print("                   worst six-point chip: seed \(worst?.seed ?? 0) at \(worst?.worstAttitude?.description ?? "?"); "
          + "\(figure(simulated / 60, 1)) simulated minutes in \(figure(clock.now() - wallStart, 1)) s "
          + "(\(figure(cpuSeconds() - cpuStart, 1)) s CPU)")
}
