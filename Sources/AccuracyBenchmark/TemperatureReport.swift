import Thermal

/// The temperature benchmark's tables for one chip: the worst errors per calibration and run,
/// and how well the published uncertainty covers the true errors.
public struct TemperatureReport: Sendable {
    /// One error row: the worst reading's error per part, its max and median over the parts.
    public struct ErrorRow: Sendable {
        public let figure: String
        public let max: Double
        public let median: Double
        /// Parts the row has a figure for (a failed learning has none).
        public let parts: Int
        /// nil: shown for contrast.
        public let target: Double?

        public var met: Bool? { target.map { max <= $0 && parts > 0 } }
    }

    /// One coverage row: every 1 s reading of every part under one calibration, pooled.
    public struct CoverageRow: Sendable {
        public let compensation: TemperatureCompensation
        public let run: TemperatureRun
        public let readings: Int
        /// The fraction of readings whose true error is within the published bound.
        public let coverage: Double
        /// The 95th percentile of the true error, degrees.
        public let errorP95: Double
        /// The median and the 95th percentile of the published bound, degrees.
        public let boundMedian: Double
        public let boundP95: Double
        /// The term that dominated the budget most often.
        public let dominant: String

        /// The bound's 95th percentile over the true error's: 1 for a bound as tight as honest
        /// allows, at most 3 by the target.
        public var ratio: Double { boundP95 / errorP95 }
        public var coverageMet: Bool { coverage >= TemperatureReport.coverageTarget }
        public var ratioMet: Bool { ratio <= TemperatureReport.ratioTarget }
    }

    /// The uncertainty's coverage targets: at least 95 % of 1 s readings, the bound at most 3× the error.
    public static let coverageTarget = 0.95
    public static let ratioTarget = 3.0

    /// The targets for the compensated worst error at 0–10°, degrees.
    public static func target(_ model: BenchChipModel) -> Double {
        switch model {
        case .adxl355: 0.01
        case .adxl345, .mpu6050: 0.1
        }
    }

    public let model: BenchChipModel
    public let parts: [TemperaturePartFigures]
    public let options: TemperatureOptions
    public let errorRows: [ErrorRow]
    public let coverageRows: [CoverageRow]
    /// What the tables call each run.
    public let runNames: [TemperatureRun: String]

    public init(parts: [TemperaturePartFigures], model: BenchChipModel, options: TemperatureOptions) {
        self.parts = parts
        self.model = model
        self.options = options
        let target = Self.target(model)
        let seconds = AccuracyReport.format(options.readingSeconds, 0)
        let from = AccuracyReport.format(options.rampFromCelsius, 0), to = AccuracyReport.format(options.rampToCelsius, 0)
        let mean = AccuracyReport.format(options.cycleMeanCelsius, 0)
        let amplitude = AccuracyReport.format(options.cycleAmplitudeCelsius, 0)
        func runName(_ run: TemperatureRun) -> String {
            run == .ramp ? "\(from)→\(to) °C ramp" : "day 2 of \(mean)±\(amplitude) °C"
        }
        var rows: [ErrorRow] = []
        for compensation in TemperatureCompensation.allCases {
            for run in [TemperatureRun.cycle, .ramp] {
                let key = TemperaturePartFigures.Key(compensation, run)
                let values = parts.compactMap { $0.worst[key] }.sorted()
                // The targets are for the compensated calibrations; the learned models on the ramp
                // run 14 °C beyond the span they were learned over, shown for contrast.
                let targeted = compensation == .bench || (compensation != .uncompensated && run == .cycle)
                rows.append(ErrorRow(figure: "\(compensation.label), \(runName(run)): worst \(seconds) s mean",
                                     max: values.last ?? .nan,
                                     median: AccuracyReport.median(values), parts: values.count,
                                     target: targeted ? target : nil))
            }
        }
        for compensation in [TemperatureCompensation.bench, .learnedFromBench] {
            let key = TemperaturePartFigures.Key(compensation, .cycle)
            let values = parts.compactMap { $0.worstOneSecond[key] }.sorted()
            rows.append(ErrorRow(figure: "\(compensation.label), \(runName(.cycle)): worst single 1 s reading",
                                 max: values.last ?? .nan, median: AccuracyReport.median(values), parts: values.count,
                                 target: nil))
        }
        errorRows = rows
        runNames = [.cycle: runName(.cycle), .ramp: runName(.ramp)]
        coverageRows = TemperatureCompensation.allCases.flatMap { compensation in
            [TemperatureRun.cycle, .ramp].map { (compensation, $0) }
        }.compactMap { compensation, run in
            let samples = parts.flatMap { $0.readings[TemperaturePartFigures.Key(compensation, run)] ?? [] }
            guard !samples.isEmpty else { return nil }
            let covered = samples.filter { $0.error <= $0.bound }.count
            var counts: [String: Int] = [:]
            for sample in samples { counts[sample.dominant.rawValue, default: 0] += 1 }
            let dominant = counts.max { $0.value < $1.value }?.key ?? ""
            return CoverageRow(compensation: compensation, run: run, readings: samples.count,
                               coverage: Double(covered) / Double(samples.count),
                               errorP95: Self.percentile(samples.map(\.error), 0.95),
                               boundMedian: Self.percentile(samples.map(\.bound), 0.5),
                               boundP95: Self.percentile(samples.map(\.bound), 0.95), dominant: dominant)
        }
    }

    /// Runs ``TemperatureBenchmark`` on a random typical part of `model` for each seed, in order.
    public static func run(seeds: [UInt64], model: BenchChipModel, options: TemperatureOptions = TemperatureOptions()) throws
        -> TemperatureReport {
        TemperatureReport(parts: try seeds.map { try TemperatureBenchmark(seed: $0, model: model, options: options).run() },
                          model: model, options: options)
    }

    /// The errors' table, Markdown, as docs/development/benchmarks.md shows it.
    public var errorTable: String {
        let decimals = model == .adxl355 ? 4 : 3
        var lines = ["| figure | max over parts | median | target | |", "|---|---:|---:|---:|---|"]
        for row in errorRows {
            let target = row.target.map { "≤ \(AccuracyReport.format($0, $0 < 0.1 ? 2 : 1))°" } ?? "for contrast"
            let verdict = row.met.map { $0 ? "met" : "NOT MET" } ?? ""
            let missing = row.parts < parts.count ? " (\(row.parts) of \(parts.count) parts)" : ""
            lines.append("| \(row.figure)\(missing) | \(AccuracyReport.format(row.max, decimals))° | "
                + "\(AccuracyReport.format(row.median, decimals))° | \(target) | \(verdict) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The coverage table, Markdown.
    public var coverageTable: String {
        let decimals = model == .adxl355 ? 4 : 3
        var lines = ["| calibration | 1 s readings | covered (≥ 95 %) | | error p95 | bound median | bound p95 | "
            + "bound p95 / error p95 (≤ 3) | | dominant term |",
                     "|---|---:|---:|---|---:|---:|---:|---:|---|---|"]
        for row in coverageRows {
            lines.append("| \(row.compensation.label), \(runNames[row.run] ?? row.run.rawValue) | \(row.readings) | "
                + "\(AccuracyReport.format(row.coverage * 100, 1)) % | "
                + "\(row.coverageMet ? "met" : "NOT MET") | \(AccuracyReport.format(row.errorP95, decimals))° | "
                + "\(AccuracyReport.format(row.boundMedian, decimals))° | \(AccuracyReport.format(row.boundP95, decimals))° | "
                + "\(AccuracyReport.format(row.ratio, 2)) | \(row.ratioMet ? "met" : "NOT MET") | \(row.dominant) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The `p` quantile of `values` (nearest rank); NaN when empty.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
