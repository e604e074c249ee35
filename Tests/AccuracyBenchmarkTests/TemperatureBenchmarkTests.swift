import AccuracyBenchmark
import Testing

/// The temperature benchmark at a small scale (``TemperatureOptions/quick``: a two-hour cycle, a
/// one-hour ramp, 2 s readings, two parts per chip), so a breakage is caught: the bench model
/// and the in-place learning both beat the uncompensated reading, and the published uncertainty
/// covers the true error. No timing is asserted.
@Suite("temperature benchmark")
struct TemperatureBenchmarkTests {
    static let seeds: [UInt64] = [1, 2]

    @Test(arguments: BenchChipModel.allCases)
    func compensationBeatsTheUncompensatedReadingAndTheBoundCoversTheError(_ model: BenchChipModel) throws {
        let report = try TemperatureReport.run(seeds: Self.seeds, model: model, options: .quick)
        for part in report.parts {
            // Both tumbles were recorded at what Plumb knew, near 15 and 30 °C (and the 22 °C one).
            #expect(part.tumbleCelsius.count == 3, "\(model) seed \(part.seed): \(part.tumbleCelsius)")
            for (known, truth) in zip(part.tumbleCelsius, [15.0, 30.0, 22.0]) {
                #expect(abs(known - truth) < 1, "\(model) seed \(part.seed): \(known) °C for \(truth) °C")
            }
            #expect(part.benchDrift != nil, "\(model) seed \(part.seed)")
            #expect(part.learningFailures.isEmpty, "\(model) seed \(part.seed): \(part.learningFailures)")
            for run in TemperatureRun.allCases {
                let raw = try #require(part.worst[.init(.uncompensated, run)])
                for compensation in [TemperatureCompensation.bench, .learnedFromBench, .learnedFromSingle] {
                    let compensated = try #require(part.worst[.init(compensation, run)], "\(model) \(compensation) \(run)")
                    #expect(compensated < raw, "\(model) seed \(part.seed) \(compensation) \(run): \(compensated)° vs \(raw)°")
                }
            }
        }
        // The bench calibration meets the chip's target on the cycle, and its bound covers.
        let bench = try #require(report.errorRows.first { $0.figure.hasPrefix(TemperatureCompensation.bench.label) })
        #expect(bench.met == true, "\(model): \(bench)")
        for compensation in TemperatureCompensation.allCases {
            // Under seventy readings per calibration at this scale, both runs pooled: a margin
            // under the 95 % target.
            let readings = report.parts.flatMap { part in
                TemperatureRun.allCases.flatMap { part.readings[.init(compensation, $0)] ?? [] }
            }
            let covered = Double(readings.filter { $0.error <= $0.bound }.count) / Double(max(readings.count, 1))
            #expect(readings.count > 40 && covered >= 0.9, "\(model) \(compensation): \(covered) of \(readings.count)")
        }
    }

    @Test func thePercentileIsTheNearestRank() {
        let values = (1...100).map(Double.init)
        #expect(TemperatureReport.percentile(values, 0.95) == 95)
        #expect(TemperatureReport.percentile(values, 0.5) == 50)
        #expect(TemperatureReport.percentile([], 0.5).isNaN)
    }
}
