import Accelerometers
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// `plumb selftest`: the chip's electrostatic self-test, per axis, against its datasheet.
struct SelfTestCommand: Subcommand {
    static let name = "selftest"
    static let summary = "Run the chip's self-test against the datasheet limits."
    static let usage = "plumb selftest [--bus PATH | --sensor sim] [--address ADDR] [--supply VOLTS] [--json]"
    static let specs = SensorOptions.specs + [
        .value("--supply", "VOLTS", "The chip's supply voltage (default 3.3, a Pi's 3V3 pin), within what its datasheet\n"
               + "characterises; scales the limits of a chip whose response depends on it."),
        .flag("--json", "Print one JSON object instead of text."),
    ]
    static let helpSummary = "Averages samples with the self-test force off and with it on, at the range and rate its\n"
        + "datasheet prescribes, and checks each axis's change against the datasheet's limits. Exit status 0\n"
        + "when every axis passes, 1 when any fails. The chip's previous configuration is restored."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        // Each driver refuses a supply outside its datasheet's, naming its range.
        let supply = try parsed.double("--supply", in: 1.0...5.5, what: "a voltage") ?? 3.3
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
            if let range = chip.chip.selfTest?.supplyRange, !range.contains(supply) {
                throw UsageError("--supply takes the \(chip.chip.model)'s supply, \(ParsedArguments.format(range.lowerBound))"
                    + " to \(ParsedArguments.format(range.upperBound)) V (its datasheet's); got \(ParsedArguments.format(supply)).")
            }
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
                    + "(mean of \(report.samplesPerMean) samples off and on, \(report.conditions ?? "figures in LSB"))",
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
