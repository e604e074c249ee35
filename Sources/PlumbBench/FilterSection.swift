import Accelerometers
import AccuracyBenchmark
import Foundation
import Geometry
import Level

/// The filter benchmark (docs/development/benchmarks.md, "Benchmarks", "Vibration and the filter"): 0.2 g on every axis
/// at 50, 49.3 and 60 Hz (and none, for contrast) at 100 and 800 Hz, read through the agent's
/// pipeline with each filter, in simulated time; one table, then the pipeline's own CPU cost.
func benchmarkFilters(sittingSeconds: Double = FilterBenchmark.Options().sittingSeconds) {
    var options = FilterBenchmark.Options()
    options.sittingSeconds = sittingSeconds
    let benchmark = FilterBenchmark(options: options)
    print("filters:           an ideal ADXL345 (datasheet noise) shaken by \(figure(options.amplitude, 1)) g on every axis, "
          + "read by the real driver into the agent's pipeline (1 s window, defaults), simulated time; "
          + "\(figure(sittingSeconds / 60, 0)) min sitting at the tolerance, "
          + "settling the median of \(options.settlingSteps) steps of 1°")
    print("| ODR | vibration | filter | tilt error | worst | 1σ of 1 s means | transitions/min | settling (median, slowest) | targets |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---|")
    let wallStart = clock.now()
    let cpuStart = cpuSeconds()
    var simulated = 0.0
    for rate in [100.0, 800.0] {
        for frequency in [nil, 50, 49.3, 60, 6.3] as [Double?] {
            for filter in GravityFilter.allCases {
                do {
                    let row = try benchmark.run(rateHz: rate, frequencyHz: frequency, filter: filter)
                    simulated += row.simulatedSeconds
                    let vibration = frequency.map { "\(figure(options.amplitude, 1)) g at \(figure($0, $0.rounded() == $0 ? 0 : 1)) Hz" }
                        ?? "none"
                    let settled = row.settling >= options.settlingHorizon ? "never" : figure(row.settling, 2) + " s"
                    let slowest = row.slowestSettling >= options.settlingHorizon ? "never" : figure(row.slowestSettling, 2) + " s"
                    print("| \(figure(rate, 0)) Hz | \(vibration) | `\(filter.rawValue)` | \(figure(row.tiltError, 3))° | "
                          + "\(figure(row.worstTiltError, 3))° | \(figure(row.sigma, 3))° | \(figure(row.transitionsPerMinute, 1)) | "
                          + "\(settled), \(slowest) | \(row.meetsTargets ? "met" : "NOT MET") |")
                } catch {
                    print("| \(figure(rate, 0)) Hz | \(frequency.map { figure($0, 1) } ?? "none") | `\(filter.rawValue)` | "
                          + "failed: \(error) |")
                }
            }
        }
    }
    print("                   targets: |tilt error| ≤ \(figure(FilterBenchmark.errorTarget, 2))°, 1σ ≤ "
          + "\(figure(FilterBenchmark.sigmaTarget, 2))°, ≤ \(figure(FilterBenchmark.transitionTarget, 0)) transitions/min; "
          + "\(figure(simulated / 60, 1)) simulated minutes in \(figure(clock.now() - wallStart, 1)) s "
          + "(\(figure(cpuSeconds() - cpuStart, 1)) s CPU)")
    var costs: [String] = []
    for filter in GravityFilter.allCases {
        guard let perSample = try? benchmark.pipelineCost(rateHz: 800, frequencyHz: 50, filter: filter, seconds: 60) else {
            costs.append("\(filter.rawValue) failed")
            continue
        }
        costs.append("`\(filter.rawValue)` \(figure(perSample * 1e9, 0)) ns/sample = \(figure(perSample * 800 * 100, 3)) %")
    }
    print("pipeline at 800 Hz: " + costs.joined(separator: ", ") + " of one core (the pipeline alone, vibrating samples)")
}
