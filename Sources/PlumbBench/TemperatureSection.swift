import Accelerometers
import AccuracyBenchmark
import Foundation

/// The temperature benchmark (docs/development/benchmarks.md, "Temperature"): per chip, `parts` random typical parts,
/// seeds 1…parts, calibrated on the bench at 15 and 30 °C (and once at 22 °C) by the CLI's own
/// tumble, their drift learned in place over a simulated day, then read through the agent's
/// pipeline over a second day and a 0 → 40 °C ramp, in simulated time; each chip's two tables,
/// then how long it took.
func benchmarkTemperature(parts: Int, models: [BenchChipModel] = BenchChipModel.allCases) {
    guard parts > 0 else { return }
    let seeds = (1...parts).map(UInt64.init)
    let options = TemperatureOptions()
    print("temperature:       \(parts) random typical parts per model (seeds 1–\(parts)), simulated time, drift drawn from "
          + "the datasheet; bench tumbles at 15 and 30 °C through plumb calibrate's procedure; in-place learning over "
          + "a \(figure(options.cyclePeriodSeconds / 3600, 0)) h cycle of \(figure(options.cycleMeanCelsius, 0))±"
          + "\(figure(options.cycleAmplitudeCelsius, 0)) °C, then measured over a second one and a "
          + "\(figure(options.rampFromCelsius, 0))→\(figure(options.rampToCelsius, 0)) °C ramp over "
          + "\(figure(options.rampSeconds / 3600, 0)) h; \(figure(options.readingSeconds, 0)) s of the agent's 1 s readings "
          + "every \(figure(options.cycleSpacingSeconds / 60, 0)) min (ramp: \(figure(options.rampSpacingSeconds / 60, 0)) min), "
          + "tilts 0–10°")
    for model in models {
        let description = model.description
        let source = description.temperature == nil
            ? "an mqtt: thermometer (±\(figure(options.thermometerNoiseCelsius, 1)) °C rms, "
                + "\(figure(options.thermometerStepCelsius, 1)) °C steps, every \(figure(options.thermometerIntervalSeconds, 0)) s)"
            : "its die sensor"
        print("  \(description.model): temperature from \(source)")
        let wallStart = clock.now()
        let cpuStart = cpuSeconds()
        let report: TemperatureReport
        do {
            report = try TemperatureReport.run(seeds: seeds, model: model, options: options)
        } catch {
            print("temperature benchmark failed for \(description.model): \(error)")
            continue
        }
        print(report.errorTable)
        print("")
        print(report.coverageTable)
        for part in report.parts {
            for (compensation, failure) in part.learningFailures.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                print("                   seed \(part.seed): learning for \(compensation.label) failed: \(failure)")
            }
        }
        let simulated = report.parts.reduce(0) { $0 + $1.simulatedSeconds }
        print("                   \(description.model): \(figure(simulated / 3600, 0)) simulated hours in "
              + "\(figure(clock.now() - wallStart, 1)) s (\(figure(cpuSeconds() - cpuStart, 1)) s CPU)")
    }
}
