import Accelerometers
import AccuracyBenchmark
import Foundation
import I2C

/// The accuracy benchmark (docs/development/benchmarks.md, "Benchmarks"): per chip, `chips` random typical parts, seeds
/// 1…chips, calibrated by the CLI's own procedures and read through the agent's pipeline, all in
/// simulated time; each chip's table, then how long it took.
func benchmarkAccuracy(chips: Int, models: [BenchChipModel] = BenchChipModel.allCases) {
    let seeds = (1...chips).map(UInt64.init)
    let options = AccuracyOptions()
    print("accuracy:          \(chips) random typical chips per model (seeds 1–\(chips)), simulated time; six-point and reversal "
          + "through plumb calibrate's procedures; attitudes read as \(figure(options.attitudeSeconds, 0)) s means, "
          + "repeatability and settling through the agent's 1 s window")
    for model in models {
        let description = model.description
        let rate = description.nearestRate(to: BenchChip.agentRateHz)?.hertz ?? BenchChip.agentRateHz
        print("  \(description.model): simulator + driver at \(description.addresses.first?.description ?? "?"), "
              + "±\(description.defaultRangeG) g, \(figure(rate, rate == rate.rounded() ? 0 : 2)) Hz")
        let wallStart = clock.now()
        let cpuStart = cpuSeconds()
        let report: AccuracyReport
        do {
            report = try AccuracyReport.run(seeds: seeds, model: model, options: options)
        } catch {
            print("accuracy benchmark failed for \(description.model): \(error)")
            continue
        }
        print(report.table)
        let simulated = report.chips.reduce(0) { $0 + $1.simulatedSeconds }
        let worst = report.chips.max { $0.sixPointTo45 < $1.sixPointTo45 }
        print("                   \(description.model) worst six-point chip: seed \(worst?.seed ?? 0) at "
              + "\(worst?.worstAttitude?.description ?? "?"); "
              + "\(figure(simulated / 60, 1)) simulated minutes in \(figure(clock.now() - wallStart, 1)) s "
              + "(\(figure(cpuSeconds() - cpuStart, 1)) s CPU)")
    }
}
