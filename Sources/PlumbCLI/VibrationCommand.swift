import Accelerometers
import Agent
import Contract
import Control
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import Sampling
import Vibration
import VibrationVocabulary

/// `plumb vibration`: the vibration figures of one analysis window (or several), as
/// `P/vibration` carries them.
struct VibrationCommand: Subcommand {
    static let name = "vibration"
    static let summary = "Print vibration severity: RMS velocity and acceleration, peak, crest factor, dominant frequency."
    static let usage = "plumb vibration [--bus PATH | --sensor sim] [--address ADDR] [--rate HZ] [--window S] [--class C] "
        + "[--threshold T] [--count N | --watch] [--json]"
    static let specs = SensorOptions.specs + [
        .value("--rate", "HZ", "Output data rate above 25.6 Hz, one the chip offers (default its nearest to 200, about the\n"
               + "most the Pi's default 100 kHz bus carries; the velocity band reaches rate/2.56)."),
        .value("--window", "S", "Seconds of samples per window, 0.5–10 (default 1: 1 Hz frequency resolution)."),
        .value("--class", "CLASS", "The machine group the zone is judged by: \(MachineClass.list) (default class_i)."),
        .value("--threshold", "T", "The running threshold: \"1 mm/s\" (default) or \"0.02 g\"; running is this window's\n"
               + "figure above it, without the agent's dwells."),
        .value("--count", "N", "Windows to print, then exit (default 1)."),
        .flag("--watch", "Print a window every window's length until interrupted (Ctrl-C)."),
        .flag("--json", "One JSON object per window, the schema of P/vibration (docs/reference/mqtt.md)."),
    ]
    static let helpSummary = """
        Samples raw acceleration, removes gravity (each axis's mean and trend over the window) and
        reports, per axis and for the vector: RMS velocity in mm/s over the ISO 10816 band (10 Hz to
        min(1000 Hz, rate/2.56), integrated by FFTW), RMS and peak acceleration in g, crest factor,
        the dominant frequency and the strongest tones, and the ISO 10816 zone of the axis that
        vibrates most.
        """
    static let footer = RateAdvice.text

    /// The rate without `--rate`: the most the Pi's default bus carries, which puts 2-pole
    /// motors (about 49 Hz) and everything slower inside the band.
    static let defaultRateHz = 200.0

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        let givenRate = try parsed.double("--rate", what: "a rate in Hz")
        let window = try parsed.double("--window", in: 0.5...10, what: "a window in seconds") ?? 1
        let machine = try parsed.choice("--class", from: MachineClass.allCases.map(\.rawValue))
            .flatMap(MachineClass.init(rawValue:)) ?? .default
        var threshold = RunningThreshold.default
        if let text = parsed.string("--threshold") {
            do { threshold = try RunningThreshold(parsing: text) } catch { throw UsageError("--threshold: \(error)") }
        }
        let count = try parsed.integer("--count", in: 1...10_000_000)
        let watch = parsed.has("--watch")
        if watch && count != nil {
            throw UsageError("--count and --watch exclude each other: give one.")
        }
        if let givenRate {
            // Refused before the chip is opened, whichever chip it is: a band that cannot exist.
            do { _ = try VibrationAnalyzer(rateHz: givenRate, windowSeconds: window) } catch {
                throw UsageError("--rate/--window: \(error)")
            }
        }
        let chipOnly = ["--rate", "--window", "--class", "--threshold"].filter { parsed.given($0) }
        if case .agent(let agent) = try sensor.route(for: name, chipOnly: chipOnly, output: output) {
            return try throughAgent(agent, json: parsed.has("--json"), count: watch ? nil : (count ?? 1), output: output)
        }
        let chip = try sensor.open()
        let rate = try sensor.rate(givenRate, default: defaultRateHz, for: chip)
        let analyzer: VibrationAnalyzer
        do {
            analyzer = try VibrationAnalyzer(rateHz: rate, windowSeconds: window)
        } catch {
            throw UsageError("--rate/--window: \(error)")
        }
        if !sensor.isSimulated, let warning = RateAdvice.warning(forRate: rate, chip: chip.chip) {
            output.error(warning)
        }
        let sampler = Sampler(chip: chip)
        InterruptFlag.install()
        do {
            // The widest range: vibration must not clip.
            try sampler.start(SamplingRequest(rateHz: rate, rangeG: chip.chip.rangesG.last ?? chip.chip.defaultRangeG))
            let perBatch = max(1, Int((rate * 0.1).rounded()))
            var printed = 0
            while watch || printed < (count ?? 1) {
                if InterruptFlag.raised { break }
                let batch = try sampler.nextBatch(samples: perBatch)
                var contiguous = batch.samples[...]
                if let gap = batch.gapIndex {
                    // Samples were lost: no window may join the wave across the loss.
                    analyzer.reset()
                    contiguous = batch.samples[min(gap, batch.samples.count)...]
                }
                for figures in analyzer.add(contiguous, endingAt: batch.time) {
                    let running = figures.runningLevel(threshold.unit) > threshold.value
                    let payload = VibrationPayloadText(figures: figures, machine: machine, running: running)
                    output.print(parsed.has("--json") ? payload.jsonLine : payload.text)
                    printed += 1
                }
            }
            try? chip.stop()
        } catch {
            try? chip.stop()
            throw CommandFailure("\(error)")
        }
        return 0
    }
}

extension VibrationCommand {
    /// `vibration` while the agent owns the chip: its windows (`P/vibration`'s figures, with its
    /// class and running threshold), each new one once, `count` of them or until Ctrl-C.
    static func throughAgent(_ agent: AgentLink, json: Bool, count: Int?, output: Console) throws -> Int32 {
        InterruptFlag.install()
        if !json { output.error("windows of \(ReadingSource.agent.text), \(agent.owner.who)") }
        var printed = 0
        var last: Int?
        while !InterruptFlag.raised && count.map({ printed < $0 }) ?? true {
            let (window, figures) = try agent.vibration()
            if window != last {
                last = window
                output.print(json ? JSONValue.object(figures).adding(source: .agent).jsonText : text(agentWindow: figures))
                printed += 1
            }
            usleep(200_000)
        }
        return 0
    }

    /// The agent's window as text, the lines ``VibrationPayloadText`` prints for the chip read
    /// directly: the vector's velocity, the zone and running, each axis with its tones, and the
    /// vector's acceleration (what an acceleration `running_threshold` is compared with).
    static func text(agentWindow figures: [String: JSONValue]) -> String {
        func number(_ object: [String: JSONValue], _ key: VibrationKey, _ decimals: Int) -> String {
            object[key.rawValue]?.numberValue.map { fixed($0, decimals) } ?? "n/a"
        }
        let band = figures[VibrationKey.bandHz.rawValue]?.elements.compactMap(\.numberValue).map { plain($0, 2) } ?? []
        let running = figures[VibrationKey.running.rawValue].map { $0 == .bool(true) ? "yes" : $0 == .bool(false) ? "no" : "n/a" }
        var lines = ["velocity \(number(figures, .velocityRMSMillimetresPerSecond, 2)) mm/s RMS (\(band.joined(separator: "–")) Hz)"
            + "  zone \(figures[VibrationKey.zone.rawValue]?.stringValue ?? "n/a")"
            + " (\(figures[VibrationKey.vibrationClass.rawValue]?.stringValue ?? "?"))  running \(running ?? "n/a")  (agent)"]
        if case .object(let axes)? = figures[VibrationKey.axes.rawValue] {
            for axis in VibrationAxis.allCases {
                guard case .object(let a)? = axes[axis.rawValue] else { continue }
                let tones = (a[VibrationKey.peaks.rawValue]?.elements ?? []).compactMap { peak -> String? in
                    guard case .object(let tone) = peak else { return nil }
                    return "\(number(tone, .hz, 1)) Hz \(number(tone, .velocityRMSMillimetresPerSecond, 2)) mm/s"
                }
                lines.append("  \(axis.rawValue)  \(number(a, .velocityRMSMillimetresPerSecond, 2).rightAligned(to: 6)) mm/s  "
                    + "\(number(a, .accelerationRMSG, 4)) g RMS  peak \(number(a, .peakG, 4)) g  crest \(number(a, .crestFactor, 2))"
                    + "  dominant \(number(a, .dominantHz, 1)) Hz" + (tones.isEmpty ? "" : "  tones: " + tones.joined(separator: ", ")))
            }
        }
        lines.append("  all \(number(figures, .accelerationRMSG, 4)) g RMS  peak \(number(figures, .peakG, 4)) g  crest "
            + "\(number(figures, .crestFactor, 2))  dominant \(number(figures, .dominantHz, 1)) Hz")
        return lines.joined(separator: "\n")
    }
}

/// One window as `plumb vibration` prints it: a JSON line in `P/vibration`'s schema, or text.
struct VibrationPayloadText {
    var figures: VibrationFigures
    var machine: MachineClass
    var running: Bool

    var zone: SeverityZone { figures.zone(machine) }

    var jsonLine: String {
        String(decoding: VibrationPayload(figures, zone: zone, machineClass: machine, running: running).bytes,
               as: UTF8.self)
    }

    /// The vector's figures with the band and zone, then one line per axis.
    var text: String {
        let band = "\(plain(figures.band.low, 2))–\(plain(figures.band.high, 2)) Hz"
        var lines = [
            "velocity \(fixed(figures.overall.velocityRMS, 2)) mm/s RMS (\(band))  zone \(zone.rawValue) "
                + "(\(machine.rawValue): \(zone.meaning))  running \(running ? "yes" : "no")",
        ]
        for axis in VibrationAxis.allCases {
            let a = figures[axis]
            let tones = a.peaks.map { "\(fixed($0.frequencyHz, 1)) Hz \(fixed($0.velocityRMS, 2)) mm/s" }
            lines.append("  \(axis.rawValue)  \(fixed(a.velocityRMS, 2).rightAligned(to: 6)) mm/s  "
                + "\(fixed(a.accelerationRMS, 4)) g RMS  peak \(fixed(a.peak, 4)) g  crest \(fixed(a.crestFactor, 2))  "
                + "dominant \(fixed(a.dominantHz, 1)) Hz" + (tones.isEmpty ? "" : "  tones: " + tones.joined(separator: ", ")))
        }
        let o = figures.overall
        lines.append("  all \(fixed(o.accelerationRMS, 4)) g RMS  peak \(fixed(o.peak, 4)) g  crest "
            + "\(fixed(o.crestFactor, 2))  dominant \(fixed(o.dominantHz, 1)) Hz")
        return lines.joined(separator: "\n")
    }
}
