import Contract
import Geometry
import HomeAssistant
import Level
import Ruler

/// What `plumb watch` shows for one measurement, as text: the full screen for a terminal and
/// the one line per reading without one. Pure: the command measures and asks the ruler
/// service, this only lays out what came back.
struct WatchView {
    /// The figures, rounded as `plumb read` rounds them.
    let figures: ReadingFigures
    /// The level gravity the bubble is drawn from.
    let levelGravity: Vector3
    let level: Bool
    let stable: Bool
    let calibration: CalibrationInUse
    let plan: WatchPlan
    /// The rise service's data for `--span`, or why there is none (a vertical device).
    let rise: Result<JSONValue, Failure>?
    /// The shim service's data for `--length`/`--width`, or why there is none.
    let shim: Result<JSONValue, Failure>?
    /// Whether the window is full yet: until it is, stable can't be judged.
    let settled: Bool
    /// The vibration line; nil to show none.
    var vibration: WatchVibration? = nil

    /// A service's refusal, shown in place of its answer.
    struct Failure: Error {
        let message: String
    }

    // MARK: One line per reading

    /// `roll  +1.997°  pitch  +0.022°  tilt   1.997°  NOT LEVEL  STABLE    raw`, then
    /// `  rise 17.628 mm ± 0.698 mm high +y` and `  shims front_left 0.562 mm, …` as asked.
    var line: String {
        var parts = ["roll \(figure(figures.roll, signed: true))  pitch \(figure(figures.pitch, signed: true))  "
            + "tilt \(figure(figures.tilt, signed: false))  \(levelWord)  \(stableWord)  \(calibration.label)"]
        if let rise { parts.append("rise " + riseSummary(rise)) }
        if let shim { parts.append("shims " + shimSummary(shim)) }
        if let vibration { parts.append(vibration.text) }
        return parts.joined(separator: "  ")
    }

    // MARK: The screen

    /// The screen: a header, the bubble with the figures beside it, then the key to quit.
    /// `colour` wraps the bubble and the level word in green (level) or yellow (not).
    func screen(colour: Bool) -> [String] {
        let paint = { (text: String) in colour ? "\u{1B}[1;\(self.level ? 32 : 33)m\(text)\u{1B}[0m" : text }
        let picture = BubblePicture(levelGravity: levelGravity, mount: plan.mount, tolerance: plan.tolerance,
                                    level: level, unit: figures.unit)
        let bubble = TextBubble.rows(bubble: TextBubble.offset(of: picture), mark: paint("O"))
        var side = [
            "roll   \(figure(figures.roll, signed: true))",
            "pitch  \(figure(figures.pitch, signed: true))",
            "tilt   \(figure(figures.tilt, signed: false))   tolerance \(toleranceText)",
            "",
            paint(levelWord) + "  " + (settled ? stableWord : "settling (\(ParsedArguments.format(plan.windowSeconds)) s window)"),
            "",
        ]
        if let rise, let span = plan.span {
            side.append("rise over \(LengthArgument.text(span.value, span.unit)) (\(plan.axis.rawValue))")
            side.append("  " + riseSummary(rise))
            side.append("")
        }
        if let shim {
            side += shimRows(shim)
        }
        if let vibration {
            side.append(vibration.text)
        }
        let height = max(bubble.count, side.count)
        var lines = ["plumb watch   \(calibration.label)   mount \(plan.mount.name)   \(figures.unit.rawValue)", ""]
        for index in 0..<height {
            let left = index < bubble.count ? bubble[index] : String(repeating: " ", count: TextBubble.width)
            lines.append(left + "   " + (index < side.count ? side[index] : ""))
        }
        lines += ["", "q or Ctrl-C to quit"]
        return lines
    }

    // MARK: Pieces

    private var levelWord: String { level ? "LEVEL    " : "NOT LEVEL" }
    private var stableWord: String { stable ? "STABLE  " : "UNSTABLE" }

    private var toleranceText: String {
        let unit = figures.unit
        return plan.tolerance.value(in: unit).map { fixed($0, unit.displayDecimals) + unit.symbol } ?? "n/a"
    }

    /// An angle in the unit, right-aligned as `plumb read` prints it; `n/a` where a slope unit has
    /// no value.
    private func figure(_ value: Double?, signed: Bool) -> String {
        let unit = figures.unit
        let text = value.map { fixed($0, unit.displayDecimals, signed: signed) + unit.symbol } ?? "n/a"
        return text.rightAligned(to: 9 + unit.symbol.count)
    }

    /// `17.628 mm ± 0.698 mm high +y (the left side)`, or `none: level along roll`.
    private func riseSummary(_ result: Result<JSONValue, Failure>) -> String {
        switch result {
        case .failure(let failure): return "n/a: " + failure.message
        case .success(let data):
            let unit = plan.resultUnit
            let rise = data["rise"]?.numberValue.map { LengthArgument.measured($0, unit) } ?? "n/a"
            let uncertainty = data["uncertainty"]?.numberValue.map { LengthArgument.measured($0, unit) } ?? "n/a"
            let end = data["high_end"]?.stringValue.map { "high \($0) (\(Frame.describe($0)))" } ?? "level"
            return "\(rise) ± \(uncertainty) \(end)"
        }
    }

    /// `front_left 0.562 mm, front_right 14.685 mm, …`.
    private func shimSummary(_ result: Result<JSONValue, Failure>) -> String {
        switch result {
        case .failure(let failure): return "n/a: " + failure.message
        case .success(let data):
            return data["feet"]?.elements.map { foot in
                "\(foot["foot"]?.stringValue ?? "?") \(foot["shim"]?.numberValue.map { LengthArgument.measured($0, plan.resultUnit) } ?? "n/a")"
            }.joined(separator: ", ") ?? ""
        }
    }

    /// A row a foot with its shim and uncertainty, the highest marked as the one left alone.
    private func shimRows(_ result: Result<JSONValue, Failure>) -> [String] {
        guard case .success(let data) = result else { return ["shims  " + shimSummary(result)] }
        let feet = data["feet"]?.elements ?? []
        let highest = data["highest_foot"]?.stringValue
        let names = feet.map { $0["foot"]?.stringValue ?? "?" }
        let width = names.map(\.count).max() ?? 0
        var rows = ["shims (\(feet.count) feet)"]
        for (foot, name) in zip(feet, names) {
            let shim = foot["shim"]?.numberValue.map { LengthArgument.measured($0, plan.resultUnit) } ?? "n/a"
            let uncertainty = foot["uncertainty"]?.numberValue.map { LengthArgument.measured($0, plan.resultUnit) } ?? "n/a"
            rows.append("  " + name.padded(to: width) + "  " + shim.rightAligned(to: 11) + "  ± " + uncertainty
                        + (name == highest ? "  highest: leave it" : ""))
        }
        return rows
    }
}
