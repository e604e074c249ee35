import SimulatedADXL345

extension SimulationOptions {
    /// The die temperature the flags ask for: `--sim-temperature C` or
    /// `--sim-temperature-cycle MEAN±AMP/PERIOD`, which exclude each other.
    enum TemperatureFlag: Equatable {
        case constant(Double)
        case cycle(mean: Double, amplitude: Double, period: Double)

        /// The temperatures a simulated die takes, °C: the range the chips are specified over, the
        /// same as a script's `temp:` word.
        static let range = AttitudeScript.temperatureRange
        /// The shortest and longest cycle, seconds: a second (anything faster is no die's) to a week.
        static let periods = 1.0...604_800

        /// nil when neither flag was given.
        init?(_ parsed: ParsedArguments) throws(UsageError) {
            let constant = try parsed.double("--sim-temperature", in: Self.range, what: "a temperature in °C, e.g. 35")
            let cycleText = parsed.string("--sim-temperature-cycle")
            if constant != nil, cycleText != nil {
                throw UsageError("--sim-temperature and --sim-temperature-cycle exclude each other: give a constant"
                    + " (e.g. --sim-temperature 35) or a cycle (e.g. --sim-temperature-cycle 22±8/24h).")
            }
            if let constant {
                self = .constant(constant)
            } else if let cycleText {
                self = try Self.cycle(parsing: cycleText)
            } else {
                return nil
            }
        }

        /// `MEAN±AMP/PERIOD`, `±` or `+-`: MEAN and AMP °C, AMP at least 0, the whole swing within
        /// ``range``; PERIOD a number with `s`, `m` or `h` within ``periods``.
        static func cycle(parsing text: String) throws(UsageError) -> Self {
            let usage = "--sim-temperature-cycle takes MEAN±AMP/PERIOD: a mean and an amplitude in °C and a period"
                + " with s, m or h, e.g. 22±8/24h or 22+-8/24h"
            let halves = text.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2 else { throw UsageError("\(usage); got '\(text)'.") }
            let swing = String(halves[0]).replacing("+-", with: "±").split(separator: "±", omittingEmptySubsequences: false)
            guard swing.count == 2, let mean = Double(String(swing[0])), let amplitude = Double(String(swing[1])),
                  mean.isFinite, amplitude.isFinite, amplitude >= 0 else {
                throw UsageError("\(usage); got '\(text)'.")
            }
            guard range.contains(mean - amplitude), range.contains(mean + amplitude) else {
                throw UsageError("--sim-temperature-cycle swings from \(ParsedArguments.format(mean - amplitude)) to"
                    + " \(ParsedArguments.format(mean + amplitude)) °C; keep it within"
                    + " \(ParsedArguments.format(range.lowerBound)) to \(ParsedArguments.format(range.upperBound)) °C.")
            }
            let periodText = String(halves[1])
            guard let period = AttitudeScript.seconds(parsing: periodText) else {
                throw UsageError("\(usage); the period '\(periodText)' needs a unit: s, m or h, e.g. 24h.")
            }
            guard periods.contains(period) else {
                throw UsageError("--sim-temperature-cycle's period must be 1 s to a week (168h); got '\(periodText)'.")
            }
            return .cycle(mean: mean, amplitude: amplitude, period: period)
        }

        /// The profile, a cycle starting (at its minimum) at `now`.
        func profile(now: Double) -> SimulatedTemperature {
            switch self {
            case .constant(let celsius): .constant(celsius)
            case let .cycle(mean, amplitude, period): .cycle(mean: mean, amplitude: amplitude, period: period, start: now)
            }
        }
    }
}
