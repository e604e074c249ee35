import Accelerometers
import Configuration
import Control
import Geometry
import I2C
import Level
import Persistence

/// `--state-dir DIR`, `--config FILE` and `--raw`: which correction the readings of a command go
/// through. Every command that reads readings takes them (`read`, `bubble`, `rise`, `shim`,
/// `watch`); `calibrate` always reads raw and `probe`/`selftest` read no readings.
///
/// **The chip-identity rule.** A stored calibration names the chip it was made on (bus, address,
/// DEVID). Another chip's correction would shift every reading by that chip's errors (tens of mg,
/// a degree or two) while the report said "calibrated", so a mismatch is refused (exit 1) with
/// what to do, unless `--raw`. A simulated chip is `simulated ADXL345` at 0x53 with DEVID 0xE5
/// whatever its `--sim-*` errors, so a calibration made with `--sensor sim` applies to
/// `--sensor sim`; like two real ADXL345s at one address on one bus, two simulated chips with
/// different `--sim-chip-seed` cannot be told apart.
struct CalibrationOptions {
    /// Where `calibration.json` is looked for; nil with `--raw`.
    let stateDirectory: String?

    static let specs: [OptionSpec] = [
        .value("--state-dir", "DIR", "Where calibration.json is (default: the config file's state_dir)."),
        .value("--config", "FILE", "Config file to take state_dir from (default \(AgentConfiguration.defaultPath))."),
        .flag("--raw", "Read uncalibrated: leave calibration.json unapplied."),
    ]

    /// For `--help`: what the readings go through.
    static let helpText = """
        Readings go through the calibration in the state directory's calibration.json (see plumb calibrate)
        when it was made on this chip (bus, address, DEVID); another chip's is refused. --raw reads uncalibrated.
        """

    /// Resolves the state directory now, so a bad config file fails before the sensor is opened.
    ///
    /// - Throws: ``UsageError`` for `--raw` with `--state-dir` or `--config` (they would go
    ///   unused), ``CommandFailure`` (exit 78) for an invalid config file.
    init(_ parsed: ParsedArguments) throws {
        guard parsed.has("--raw") else {
            stateDirectory = try parsed.stateDirectory()
            return
        }
        if let flag = ["--state-dir", "--config"].first(where: { parsed.string($0) != nil }) {
            throw UsageError("--raw and \(flag) exclude each other: --raw applies no calibration, so none is looked for.")
        }
        stateDirectory = nil
    }

    /// The calibration to read `chip` through: none with `--raw` or without a stored one; the
    /// stored one when it was made on this chip. The store's warning (a damaged file set aside,
    /// an unreadable one) goes to stderr and the command reads raw.
    ///
    /// - Throws: ``CommandFailure`` when the chip does not answer, or the stored calibration was
    ///   made on another chip.
    func resolve(for chip: any Accelerometer, output: Console) throws(CommandFailure) -> CalibrationInUse {
        guard let stateDirectory else { return .raw }
        let store = StateStore(directory: stateDirectory)
        let loaded = store.loadCalibration()
        if let warning = loaded.warning { output.error("warning: " + warning) }
        guard let record = loaded.record else { return .raw }
        let reading = try chip.calibrationChip()
        guard record.chip.matches(reading) else {
            throw CommandFailure("\(store.calibrationPath) was made on \(record.chip.sentence), but this is"
                + " \(reading.sentence): its correction would be wrong here. Calibrate this chip (plumb calibrate"
                + " six-point), give --state-dir for its calibration, or add --raw to read it uncalibrated.")
        }
        return CalibrationInUse(record: record)
    }

}

/// The correction a command's readings go through, and how its reports name it.
struct CalibrationInUse: Sendable {
    /// The stored record applied; nil for raw, or for the agent's (``summary`` names it).
    let record: CalibrationRecord?
    /// The method and date of the calibration applied.
    let summary: Summary?

    init(record: CalibrationRecord?) {
        self.record = record
        summary = record.map { Summary(method: $0.method.rawValue, date: $0.date) }
    }

    /// The calibration the agent's reading went through.
    init(agentReading reading: AgentReading) {
        record = nil
        summary = reading.calibrationMethod.map { Summary(method: $0, date: reading.calibrationDate ?? "") }
    }

    /// Uncalibrated.
    static let raw = CalibrationInUse(record: nil)

    /// ``Calibration/identity`` for raw.
    var calibration: Calibration { record?.calibration ?? .identity }

    /// `calibrated six_point 2026-12-01` or `raw`: the date alone, as people compare them.
    var label: String {
        guard let summary else { return "raw" }
        return "calibrated \(summary.method) \(summary.date.prefix(10))"
    }

    /// Method and full date of the calibration applied: the `calibration` field of `--json`,
    /// `{"method":"six_point","date":"2026-12-01T10:00:00Z"}`, or null for raw.
    struct Summary: Encodable, Sendable, Hashable {
        var method: String
        var date: String
    }
}

extension Accelerometer {
    /// This chip as a calibration record names it: bus, address, first identification register
    /// and model, read from the chip.
    ///
    /// - Throws: ``CommandFailure`` when the chip does not answer or is not the chip its driver reads.
    func calibrationChip() throws(CommandFailure) -> CalibrationRecord.Chip {
        let identity: ChipIdentity
        do { identity = try probe() } catch { throw CommandFailure(error.description) }
        return CalibrationRecord.Chip(bus: bus.name, address: address.description,
                                      devid: "0x" + String(identity.deviceID, radix: 16, uppercase: true),
                                      model: chip.model)
    }
}

extension ParsedArguments {
    /// `--state-dir`, else the `state_dir` of the config file (`--config`, or the default path,
    /// which may be absent: then the defaults apply).
    ///
    /// - Throws: ``UsageError`` for an empty `--state-dir`, ``CommandFailure`` (exit 78) for an
    ///   invalid config file.
    func stateDirectory() throws -> String {
        if let directory = string("--state-dir") {
            guard !directory.isEmpty else { throw UsageError("--state-dir needs a directory.") }
            return directory
        }
        let loading = ConfigurationLoading(explicitPath: string("--config"), overrides: ConfigurationOverrides())
        return try loading.loadForCommand().stateDirectory
    }
}
