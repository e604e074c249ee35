import Accelerometers
import Control
import Geometry
import Level
import Sampling
import Thermal
import Calibrating

/// The chip a command reads, opened, with the calibration its readings go through.
struct OpenSensor {
    let chip: any Accelerometer
    let calibration: CalibrationInUse
}

/// The commands' readings, each through the same ``LevelPipeline`` as the agent's.
extension SensorOptions {
    /// Opens the chip and decides its calibration (``CalibrationOptions/resolve(for:output:)``):
    /// the one place the command line does, so the stored calibration and `--raw` reach every
    /// command that reads at once.
    ///
    /// - Throws: ``CommandFailure`` when the chip can't be opened or the calibration is another
    ///   chip's.
    func open(calibrating options: CalibrationOptions, output: Console) throws(CommandFailure) -> OpenSensor {
        let chip = try open()
        return OpenSensor(chip: chip, calibration: try options.resolve(for: chip, output: output))
    }

    /// A pipeline for the commands: level at once at `tolerance` (no dwell), `chip`'s noise at
    /// `rateHz` for `stable` (its description's), and a window of `windowBlocks` blocks (one by
    /// default: each reading judged on its own, as `read` prints them), with the stored drift
    /// model and the uncertainty terms of the calibration and the chip, as the agent's. No zero
    /// reference: the commands read the sensor as mounted.
    func pipeline(calibration: CalibrationInUse, mount: Mount, tolerance: Angle, chip: any Accelerometer, rateHz: Double,
                  windowBlocks: Int = 1) -> LevelPipeline {
        let thermal = ThermalCompensation(record: calibration.record, chip: chip.chip, rangeG: nil,
                                          operatingPoint: chip.chip.operatingPoint(rateHz: rateHz))
        return LevelPipeline(settings: PipelineSettings(calibration: calibration.calibration, windowBlocks: windowBlocks,
                                                        mount: mount, thresholds: .instant(tolerance: tolerance),
                                                        stability: chip.chip.stability(rateHz: rateHz), thermal: thermal))
    }

    /// One second's batch (``oneSecondBatch(from:)``) through
    /// ``pipeline(calibration:mount:tolerance:rateHz:windowBlocks:)``, and the calibration used.
    ///
    /// - Throws: ``CommandFailure`` when the chip can't be opened or read, gave no finite values,
    ///   or the stored calibration is another chip's.
    func oneSecondMeasurement(mount: Mount, tolerance: Angle = ReadCommand.defaultTolerance,
                              calibrating options: CalibrationOptions,
                              output: Console) throws(CommandFailure) -> (Measurement, CalibrationInUse) {
        let sensor = try open(calibrating: options, output: output)
        var pipeline = pipeline(calibration: sensor.calibration, mount: mount, tolerance: tolerance, chip: sensor.chip,
                                rateHz: sensor.chip.chip.operatingPoint(rateHz: Self.oneSecondRateHz).rateHz)
        return (try pipeline.measure(oneSecondBatch(from: sensor.chip)), sensor.calibration)
    }
}

/// A reading for `bubble`, `rise` and `shim`: the agent's current one while it owns the chip,
/// else one second's measurement read here.
struct CommandReading {
    let measurement: Measurement
    let calibration: CalibrationInUse
    let source: ReadingSource
    /// The mount and tolerance the reading was taken with: the agent's, or the command's.
    let mount: Mount
    let tolerance: Angle
}

extension SensorOptions {
    /// ``CommandReading`` for `command`. Through the agent its mount, zero, calibration and
    /// tolerance apply, so `--mount`, `--tolerance`, `--raw` and `--state-dir` are refused
    /// (``route(for:chipOnly:output:)``).
    func commandReading(for command: String, parsed: ParsedArguments, mount: Mount, tolerance: Angle = ReadCommand.defaultTolerance,
                        calibrating options: CalibrationOptions, output: Console) throws -> CommandReading {
        let chipOnly = [OptionSpec.mount.name, "--tolerance", "--raw", "--state-dir"].filter { parsed.given($0) }
        switch try route(for: command, chipOnly: chipOnly, output: output) {
        case .agent(let agent):
            let reading = try agent.reading()
            return CommandReading(measurement: reading.measurement, calibration: CalibrationInUse(agentReading: reading),
                                  source: .agent, mount: (try? Mount(parsing: reading.mount)) ?? mount,
                                  tolerance: reading.tolerance)
        case .direct:
            let (measurement, calibration) = try oneSecondMeasurement(mount: mount, tolerance: tolerance,
                                                                      calibrating: options, output: output)
            return CommandReading(measurement: measurement, calibration: calibration, source: .chip, mount: mount,
                                  tolerance: tolerance)
        }
    }
}

extension LevelPipeline {
    /// The measurement of `batch`, at the die temperature the batch carries (the chip's own
    /// sensor: the command line reads no other source).
    ///
    /// - Throws: ``CommandFailure`` when no sample is finite (a chip returning garbage).
    mutating func measure(_ batch: SampleBatch) throws(CommandFailure) -> Measurement {
        let temperature = batch.dieCelsius.map { TemperatureReading.fresh(celsius: $0, age: 0) } ?? .unknown
        guard let measurement = add(batch, temperature: temperature) else {
            throw CommandFailure("the sensor gave a reading that is not a number; check its wiring and power, then try again.")
        }
        return measurement
    }
}
