import Accelerometers
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PlumbDomain

/// `plumb selftest`: the ADXL345's electrostatic self-test, per axis, against the datasheet.
struct SelfTestCommand: Subcommand {
    static let name = "selftest"
    static let summary = "Run the chip's self-test against the datasheet limits."
    static let usage = "plumb selftest [--bus PATH | --sensor sim] [--address ADDR] [--supply VOLTS] [--json]"
    static let specs = SensorOptions.specs + [
        .value("--supply", "VOLTS", "The chip's supply voltage, 2.0–3.6 (default 3.3, a Pi's 3V3 pin); scales the limits."),
        .flag("--json", "Print one JSON object instead of text."),
    ]
    static let helpSummary = "Averages 20 samples with the self-test force off and 20 with it on (±16 g, full resolution,\n"
        + "100 Hz) and checks each axis's change against the datasheet's limits. Exit status 0 when every\n"
        + "axis passes, 1 when any fails. The chip's previous configuration is restored."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        let supply = try parsed.double("--supply", in: ADXL345SelfTestLimits.supplyRange, what: "a voltage") ?? 3.3
        let figures: SelfTestFigures
        let source: ReadingSource
        switch try sensor.route(for: name, chipOnly: ["--supply"].filter { parsed.given($0) }, output: output) {
        case .agent(let agent):
            let value = try agent.selfTest()
            do { figures = try JSONDecoder().decode(SelfTestFigures.self, from: Data(JSONValue.object(value).bytes)) } catch {
                throw CommandFailure("the agent's self-test figures were not understood; is it the same version as this command?")
            }
            source = .agent
        case .direct:
            let chip = try sensor.open()
            do {
                _ = try chip.probe()
                figures = SelfTestFigures(try chip.selfTest(supplyVoltage: supply))
            } catch {
                throw CommandFailure(error.description)
            }
            source = .chip
        }
        let report = figures
        if parsed.has("--json") {
            output.print(jsonLine(SourcedReport(figures, source: source)))
        } else {
            var lines = [
                "\(report.model) self-test at \(ParsedArguments.format(report.supplyVoltage)) V, by \(source.text) "
                    + "(mean of \(report.samplesPerMean) samples off and on, ±16 g full resolution, 100 Hz; LSB at 256/g)",
                "axis       off        on     delta    limits              result",
            ]
            for axis in report.axes {
                let figures = [axis.off, axis.on, axis.delta].map { fixed($0, 1).rightAligned(to: 8) }
                lines.append(axis.name + "    " + figures.joined(separator: "  ") + "    "
                             + fixed(axis.minimum, 1, signed: true).rightAligned(to: 7) + " … "
                             + fixed(axis.maximum, 1, signed: true).rightAligned(to: 7) + "   " + (axis.passed ? "pass" : "FAIL"))
            }
            lines.append(report.passed ? "PASS: every axis moved within the datasheet's limits."
                : "FAIL: an axis moved outside the datasheet's limits; the part or its supply is faulty. "
                    + "Check --supply matches the chip's VS, then replace the sensor.")
            output.print(lines.joined(separator: "\n"))
        }
        return report.passed ? 0 : 1
    }
}
