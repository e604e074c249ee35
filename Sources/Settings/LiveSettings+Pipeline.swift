import Geometry
import Level

extension LiveSettings {
    /// Block means in the moving average: `average_window_s` of samples at `rateHz` (the rate
    /// the chip runs at) in blocks of the size the sampling takes at that rate
    /// (``SampleBatch/samplesPerBlock(rateHz:)``; longer than 0.1 s at low rates). At least 1.
    public func windowBlocks(rateHz: Double) -> Int {
        let perBlock = Double(SampleBatch.samplesPerBlock(rateHz: rateHz))
        return max(1, Int((averageWindowS * rateHz / perBlock).rounded()))
    }

    /// The ``LevelPipeline``'s settings for these live settings on a chip running at `chip`:
    /// the window, mount, thresholds, and the chip's expected noise there for `stable`, with
    /// `thermal`'s drift model and uncertainty terms. What the agent runs, and what the accuracy
    /// benchmark measures.
    public func pipelineSettings(calibration: Calibration, chip: OperatingPoint,
                                 thermal: ThermalCompensation = .noiseOnly) -> PipelineSettings {
        PipelineSettings(
            calibration: calibration, filter: filter, windowBlocks: windowBlocks(rateHz: chip.rateHz), mount: mount,
            thresholds: LevelThresholds(tolerance: levelTolerance, hysteresis: levelHysteresis,
                                        alarmThreshold: alarmThreshold, dwell: levelDwellS),
            stability: chip.stability, thermal: thermal
        )
    }
}
