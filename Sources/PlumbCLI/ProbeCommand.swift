import Accelerometers
import Contract
import Geometry
import I2C
import StrictJSON

/// `plumb probe`: finds the chip and reports how the bus reaches it.
struct ProbeCommand: Subcommand {
    static let name = "probe"
    static let summary = "Find the accelerometer and show how the bus reaches it."
    static let usage = "plumb probe [--bus PATH | --sensor sim] [--address ADDR] [--scan] [--json]"
    static let specs = SensorOptions.specs + [
        .flag("--scan", "Look for every supported chip at every address it can have, and list what answers."),
        .flag("--json", "Print one JSON object instead of text."),
    ]
    static let helpSummary = "Checks that the chip answers with its identification registers (--sensor, or the one a scan\n"
        + "finds), and prints what the I²C adapter can do,\n"
        + "whether register reads use one I2C_RDWR transaction or the SMBus block fallback, and whether the\n"
        + "adapter takes several reads in one transaction (i2c_mode rdwr-batched) or one (rdwr)."
    static let footer = RateAdvice.text

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let sensor = try SensorOptions(parsed)
        if parsed.has("--scan") { return try scan(sensor, parsed: parsed, output: output) }
        let report: ChipProbeReport
        let source: ReadingSource
        var sampling: [String: JSONValue]?
        switch try sensor.route(for: name, output: output) {
        case .agent(let agent):
            (report, sampling) = try agent.probe()
            source = .agent
        case .direct:
            let chip = try sensor.open()
            do { report = try ChipProbeReport(chip: chip) } catch { throw CommandFailure("\(error)") }
            source = .chip
        }
        if parsed.has("--json") {
            let line = jsonLine(SourcedReport(report, source: source))
            guard let sampling, case .object(var object)? = try? StrictJSON.parse(Array(line.utf8), allowingScalars: false) else {
                output.print(line)
                return 0
            }
            object["sampling"] = .object(sampling)
            output.print(JSONValue.object(object).jsonText)
            return 0
        }
        let transferNote = switch I2CTransferMode(rawValue: report.transfer) {
        case .combined?: "I2C_RDWR (one combined write + repeated-start read per register read)"
        case .smbusBlock?: "SMBus I²C-block (the adapter lacks plain I²C; reads go in ≤32-byte blocks)"
        case .simulated?: "simulated (in-process register model)"
        case nil: report.transfer
        }
        var lines = [
            "source       \(source.text)",
            "bus          \(report.bus)",
            "address      \(report.address)",
            "chip         \(report.chip) (\(report.idRegister) \(report.deviceID))",
        ]
        if let warning = report.warning { lines.append("warning      \(warning)") }
        lines += [
            "transfer     \(transferNote)",
            "i2c mode     \(I2CMode(rawValue: report.i2cMode).map(Self.modeNote) ?? report.i2cMode)",
            "adapter      \(report.functionality.joined(separator: ", "))\(report.functionalityMask.map { " (\($0))" } ?? "")",
        ]
        if let offsets = report.offsets {
            lines.append("offsets      OFSX \(offsets.x), OFSY \(offsets.y), OFSZ \(offsets.z) (15.6 mg/LSB)")
        }
        let limits = report.maxRateHz.sorted { $0.key < $1.key }.map { "\(formatHertz($0.value)) Hz at \($0.key.dropLast(3)) kHz" }
        lines.append("rate limit   I²C carries the \(report.chip) up to \(limits.joined(separator: ", "))")
        output.print(lines.joined(separator: "\n"))
        if let sampling {
            let perDrain = sampling["samples_per_drain"]?.numberValue.map { fixed($0, 1, signed: false) } ?? "n/a"
            let rate = sampling["sample_rate_hz"]?.numberValue.map { ParsedArguments.format($0) } ?? "?"
            output.print("sampling     \(perDrain) samples per FIFO drain at \(rate) Hz (the agent's sampler, since it started)")
        }
        return 0
    }
    /// `--scan`: the supported chips that answer on the bus. Reads identification registers
    /// only, so it runs beside an agent that owns a chip there.
    static func scan(_ sensor: SensorOptions, parsed: ParsedArguments, output: Console) throws -> Int32 {
        if parsed.given("--address") { throw UsageError("--scan looks at every address a supported chip can have; leave --address out.") }
        let bus: any I2CBus
        switch sensor.source {
        case .hardware(let path):
            do { bus = try LinuxI2CBus(path: path) } catch { throw CommandFailure(error.description) }
        case .simulated(let simulation):
            bus = simulation.makeChip(address: simulation.chip.addresses[0])
        }
        let findings = ChipScan.scan(bus)
        if parsed.has("--json") {
            let chips: [JSONValue] = findings.map { finding in
                .object([
                    "address": .string(finding.address.description), "model": .string(finding.chip.model),
                    "kind": .string(finding.chip.kind), "clone": .bool(finding.isClone),
                    "i2c_mode": .string(finding.mode.rawValue),
                    "identification": .object(Dictionary(uniqueKeysWithValues: zip(finding.chip.identification, finding.identification)
                        .map { ($0.name, JSONValue.string(hexByte($1))) })),
                ])
            }
            output.print(JSONValue.object(["bus": .string(bus.name), "chips": .array(chips)]).jsonText)
        } else {
            output.print("bus \(bus.name): \(findings.count) supported chip\(findings.count == 1 ? "" : "s")")
            for finding in findings {
                let ids = zip(finding.chip.identification, finding.identification).map { "\($0.name) \(hexByte($1))" }
                output.print("  \(finding.address)  \(finding.chip.model)  \(ids.joined(separator: ", "))"
                    + (finding.isClone ? " (a clone's ID)" : "") + "  i2c mode \(finding.mode.rawValue)")
            }
        }
        guard !findings.isEmpty else {
            let addresses = ChipCatalog.addresses.map(\.description).joined(separator: ", ")
            let models = ChipCatalog.all.map(\.model).joined(separator: ", ")
            throw CommandFailure("no supported accelerometer (\(models)) answers on \(bus.name) at \(addresses). Check the"
                + " wiring and power; `i2cdetect -y N` lists every address that answers.")
        }
        return 0
    }

    static func modeNote(_ mode: I2CMode) -> String {
        switch mode {
        case .rdwrBatched: "rdwr-batched (several register reads per transfer: a FIFO drain in one ioctl)"
        case .rdwr: "rdwr (the adapter takes one read message per transfer, as the Pi 0–4's i2c-bcm2835: one ioctl a sample)"
        case .smbus: "smbus (one SMBus block read per register read)"
        case .simulated: "simulated"
        }
    }
}

/// What each chip's datasheet says I²C can sustain, for `probe`, the readers' `--help` and
/// warnings: from the chips' descriptions.
enum RateAdvice {
    static var text: String {
        let lines = ChipCatalog.all.map { chip in
            let carried = [100, 400].compactMap { kHz in
                chip.rates.last { ($0.minimumBusKHz ?? .max) <= kHz }.map { "\(formatHertz($0.hertz)) Hz at \(kHz) kHz" }
            }
            return "  \(chip.model): \(chip.rateList) Hz; I²C carries at most \(carried.joined(separator: ", "))."
        }
        return "The rates each chip offers, and the fastest each bus speed carries (the Pi's default bus is 100 kHz;\n"
            + "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt for 400 kHz). Faster rates lose samples.\n"
            + lines.joined(separator: "\n")
    }

    /// A warning for `rate` on `chip` on real hardware, or nil when the default 100 kHz bus keeps up.
    static func warning(forRate rate: Double, chip: ChipDescription) -> String? {
        guard let needed = chip.nearestRate(to: rate)?.minimumBusKHz else {
            let fastest = chip.rates.last { $0.minimumBusKHz != nil }.map { formatHertz($0.hertz) } ?? "?"
            return "warning: I²C cannot carry the \(chip.model) at \(ParsedArguments.format(rate)) Hz (that rate is for SPI);"
                + " samples will be lost. Use --rate \(fastest) or lower."
        }
        guard needed > 100 else { return nil }
        let at100 = chip.rates.last { ($0.minimumBusKHz ?? .max) <= 100 }.map { formatHertz($0.hertz) } ?? "?"
        return "warning: the \(chip.model) at \(ParsedArguments.format(rate)) Hz needs a \(needed) kHz I²C bus; the Pi's"
            + " default 100 kHz bus carries \(at100) Hz. Set dtparam=i2c_arm_baudrate=\(needed * 1000) in"
            + " /boot/firmware/config.txt, or use --rate \(at100)."
    }
}

/// `0xE5`.
func hexByte(_ byte: UInt8) -> String {
    "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
}
