import PlumbDomain

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

    public let chips: [ChipFigures]
    public let rows: [Row]

    public init(chips: [ChipFigures]) {
        self.chips = chips
        func row(_ figure: String, _ unit: String, _ target: Double?, _ value: (ChipFigures) -> Double) -> Row {
            let values = chips.map(value).sorted()
            return Row(figure: figure, unit: unit, max: values.last ?? .nan, median: Self.median(values), target: target)
        }
        rows = [
            row("uncalibrated max error", "°", nil) { $0.uncalibrated },
            row("after `zero` at 0° only", "°", nil) { $0.zeroOnly },
            row("after six-point, max error 0–10°", "°", 0.05) { $0.sixPointTo10 },
            row("after six-point, max error to 45°", "°", 0.1) { $0.sixPointTo45 },
            row("reversal: zero error after the two readings", "°", 0.03) { $0.reversalZero },
            row("repeatability, 1σ of 1 s means at 100 Hz", "°", 0.02) { $0.repeatability },
            row("settling to within 0.05° after a 1° step (median of 9 steps)", "s", 1) { $0.settling },
            row("settling, the slowest of the 9 steps", "s", nil) { $0.slowestSettling },
        ]
    }

    /// Runs ``ChipBenchmark`` on a random typical part for each seed, in order.
    public static func run(seeds: [UInt64], options: AccuracyOptions = AccuracyOptions()) throws -> AccuracyReport {
        AccuracyReport(chips: try seeds.map { try ChipBenchmark(seed: $0, options: options).run() })
    }

    /// The table, Markdown, as the README shows it.
    public var table: String {
        var lines = ["| figure | max over chips | median | target | |", "|---|---:|---:|---:|---|"]
        for row in rows {
            let decimals = row.unit == "s" ? 2 : 3
            let target = row.target.map { "≤ \(Self.format($0, row.unit == "s" ? 0 : 2))\(row.unit)" } ?? "for contrast"
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
