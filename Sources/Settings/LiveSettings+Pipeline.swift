import PlumbDomain

extension LiveSettings {
    /// Block means in the moving average: `average_window_s` of samples in blocks of the size
    /// the sampling takes at this rate (``SampleBatch/samplesPerBlock(rateHz:)``; longer than
    /// 0.1 s at low rates). At least 1.
    public var windowBlocks: Int {
        let perBlock = Double(SampleBatch.samplesPerBlock(rateHz: sampleRateHz))
        return max(1, Int((averageWindowS * sampleRateHz / perBlock).rounded()))
    }

    /// The ``LevelPipeline``'s settings for these live settings: the window, mount, thresholds,
    /// and the chip's expected noise at the configured rate for `stable`. What the agent runs,
    /// and what the accuracy benchmark measures.
    public func pipelineSettings(calibration: Calibration) -> PipelineSettings {
        PipelineSettings(
            calibration: calibration, filter: filter, windowBlocks: windowBlocks, mount: mount,
            thresholds: LevelThresholds(tolerance: levelTolerance, hysteresis: levelHysteresis,
                                        alarmThreshold: alarmThreshold, dwell: levelDwellS),
            stability: .adxl345(odrHz: sampleRateHz)
        )
    }
}
