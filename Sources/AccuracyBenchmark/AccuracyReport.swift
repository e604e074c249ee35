import Accelerometers
import Geometry

/// The accuracy benchmark's table: each figure's worst and median over the chips, against its
/// target.
public struct AccuracyReport: Sendable {
    /// One row of the table.
    public struct Row: Sendable {
        public let figure: String
        public let unit: String
        /// Over the chips.
        public let max: Double
        public let median: Double
        /// The target the worst chip must meet; nil for a figure shown for contrast.
        public let target: Double?

        /// Met when the worst chip is within the target.
        public var met: Bool? { target.map { max <= $0 } }
    }

    /// The targets a chip's figures are checked against, in degrees (settling in seconds); nil
    /// shows the figure for contrast.
    public struct Targets: Sendable, Hashable {
        public var sixPointTo10: Double?
        public var sixPointTo45: Double?
        public var reversalZero: Double?
        public var repeatability: Double?
        /// The agent's 1 s window, the same on every chip.
        public var settling: Double? = 1

        public init(sixPointTo10: Double?, sixPointTo45: Double?, reversalZero: Double?, repeatability: Double?,
                    settling: Double? = 1) {
            self.sixPointTo10 = sixPointTo10
            self.sixPointTo45 = sixPointTo45
            self.reversalZero = reversalZero
            self.repeatability = repeatability
            self.settling = settling
        }

        /// The targets per chip: the ADXL345's; the ADXL355's (≤ 0.01° to 10°, ≤ 0.02° to 45°,
        /// 1σ ≤ 0.002°) and the MPU-6050's (≤ 0.05° to 10°, its other figures for contrast).
        public static func of(_ model: BenchChipModel) -> Targets {
            switch model {
            case .adxl345: Targets(sixPointTo10: 0.05, sixPointTo45: 0.1, reversalZero: 0.03, repeatability: 0.02)
            case .adxl355: Targets(sixPointTo10: 0.01, sixPointTo45: 0.02, reversalZero: nil, repeatability: 0.002)
            case .mpu6050: Targets(sixPointTo10: 0.05, sixPointTo45: nil, reversalZero: nil, repeatability: nil)
            }
        }
    }

    /// The chip the figures are of.
    public let model: BenchChipModel
    public let chips: [ChipFigures]
    public let rows: [Row]

    public init(chips: [ChipFigures], model: BenchChipModel = .adxl345) {
        self.chips = chips
        self.model = model
        let targets = Targets.of(model)
        let rate = model.description.nearestRate(to: BenchChip.agentRateHz)?.hertz ?? BenchChip.agentRateHz
        let rateName = rate == rate.rounded() ? String(Int(rate)) : "\(rate)"
        func row(_ figure: String, _ unit: String, _ target: Double?, _ value: (ChipFigures) -> Double) -> Row {
            let values = chips.map(value).sorted()
            return Row(figure: figure, unit: unit, max: values.last ?? .nan, median: Self.median(values), target: target)
        }
        rows = [
            row("uncalibrated max error", "°", nil) { $0.uncalibrated },
            row("after `zero` at 0° only", "°", nil) { $0.zeroOnly },
            row("after six-point, max error 0–10°", "°", targets.sixPointTo10) { $0.sixPointTo10 },
            row("after six-point, max error to 45°", "°", targets.sixPointTo45) { $0.sixPointTo45 },
            row("reversal: zero error after the two readings", "°", targets.reversalZero) { $0.reversalZero },
            row("repeatability, 1σ of 1 s means at \(rateName) Hz", "°", targets.repeatability) { $0.repeatability },
            row("settling to within 0.05° after a 1° step (median of 9 steps)", "s", targets.settling) { $0.settling },
            row("settling, the slowest of the 9 steps", "s", nil) { $0.slowestSettling },
        ]
    }

    /// Runs ``ChipBenchmark`` on a random typical part of `model` for each seed, in order.
    public static func run(seeds: [UInt64], model: BenchChipModel = .adxl345,
                           options: AccuracyOptions = AccuracyOptions()) throws -> AccuracyReport {
        AccuracyReport(chips: try seeds.map { try ChipBenchmark(seed: $0, model: model, options: options).run() }, model: model)
    }

    /// The table, Markdown, as docs/development/benchmarks.md shows it.
    public var table: String {
        var lines = ["| figure | max over chips | median | target | |", "|---|---:|---:|---:|---|"]
        for row in rows {
            // A tenth of the finest target's step: 4 decimals where a target is 0.002°.
            let fine = rows.contains { $0.unit == "°" && ($0.target ?? 1) < 0.01 }
            let decimals = row.unit == "s" ? 2 : fine ? 4 : 3
            let target = row.target.map {
                "≤ \(Self.format($0, row.unit == "s" ? 0 : $0 < 0.01 ? 3 : 2))\(row.unit)"
            } ?? "for contrast"
            let verdict = row.met.map { $0 ? "met" : "NOT MET" } ?? ""
            lines.append("| \(row.figure) | \(Self.format(row.max, decimals))\(row.unit) | "
                + "\(Self.format(row.median, decimals))\(row.unit) | \(target) | \(verdict) |")
        }
        return lines.joined(separator: "\n")
    }

    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Fixed decimals without Foundation.
    static func format(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let units = Int((abs(value) * scale).rounded())
        let whole = units / Int(scale), fraction = String(units % Int(scale))
        let digits = decimals > 0 ? "." + String(repeating: "0", count: decimals - fraction.count) + fraction : ""
        return (value < 0 && units != 0 ? "-" : "") + "\(whole)" + digits
    }
}
