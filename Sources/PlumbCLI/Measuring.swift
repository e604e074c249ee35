import PlumbDomain
import Sampling

/// The commands' readings, each through the same ``LevelPipeline`` as the agent's.
extension SensorOptions {
    /// The chip's correction the commands measure with: ``Calibration/identity`` (raw) until a
    /// stored calibration exists. The one place the command line decides it, so the stored
    /// calibration and a `--raw` flag come in here and reach every command at once.
    func calibration() -> Calibration { .identity }

    /// A pipeline that judges each reading on its own, as the commands print them: a one-block
    /// window (a reading is one block of the samples asked for), level at once at `tolerance`,
    /// and the chip's noise at `rateHz` for `stable`. No zero reference: the commands read the
    /// sensor as mounted.
    func pipeline(mount: Mount, tolerance: Angle, rateHz: Double) -> LevelPipeline {
        LevelPipeline(settings: PipelineSettings(calibration: calibration(), windowBlocks: 1, mount: mount,
                                                 thresholds: .instant(tolerance: tolerance),
                                                 stability: .adxl345(odrHz: rateHz)))
    }

    /// One second's reading (``oneSecondReading()``) through ``pipeline(mount:tolerance:rateHz:)``.
    ///
    /// - Throws: ``CommandFailure`` when the chip can't be opened or read, or gave no finite values.
    func oneSecondMeasurement(mount: Mount, tolerance: Angle = ReadCommand.defaultTolerance) throws(CommandFailure)
        -> Measurement {
        var pipeline = pipeline(mount: mount, tolerance: tolerance, rateHz: Self.oneSecondRateHz)
        return try pipeline.measure(oneSecondReading())
    }
}

extension LevelPipeline {
    /// The measurement of `reading`.
    ///
    /// - Throws: ``CommandFailure`` when the reading is not finite (a chip returning garbage).
    mutating func measure(_ reading: Reading) throws(CommandFailure) -> Measurement {
        guard let measurement = add(reading) else {
            throw CommandFailure("the sensor gave a reading that is not a number; check its wiring and power, then try again.")
        }
        return measurement
    }
}
