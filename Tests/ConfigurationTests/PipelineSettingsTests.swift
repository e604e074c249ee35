import Geometry
import Level
import Settings
import Testing

@Suite("The level pipeline's settings from the live settings")
struct PipelineSettingsTests {
    @Test("The window is average_window_s in blocks of the sampling's size, at least one")
    func windowBlocks() throws {
        #expect(LiveSettings().windowBlocks(rateHz: 100) == 10)
        let longer = try LiveSettings().applying(json: Array(#"{"average_window_s": 2.5}"#.utf8))
        #expect(longer.windowBlocks(rateHz: 800) == 25)
        // 6.25 Hz: one-sample blocks, so a 1 s window is six of them (6.25 rounded).
        #expect(LiveSettings().windowBlocks(rateHz: 6.25) == 6)
    }

    @Test("The pipeline takes the window, filter, mount and level thresholds from the settings")
    func pipelineSettings() throws {
        let settings = try LiveSettings().applying(json: Array(#"{"level_tolerance": 0.4, "filter": "median"}"#.utf8))
        let chip = OperatingPoint(rateHz: 125, expectedNoise: Vector3(x: 1e-4, y: 1e-4, z: 2e-4))
        let pipeline = settings.pipelineSettings(calibration: .identity, chip: chip)
        #expect(pipeline.windowBlocks == settings.windowBlocks(rateHz: 125), "the chip's own rate, not the one asked")
        #expect(pipeline.stability == chip.stability, "the chip's noise for stable")
        #expect(pipeline.filter == settings.filter)
        #expect(pipeline.mount == settings.mount)
        #expect(pipeline.thresholds.tolerance == settings.levelTolerance)
        #expect(pipeline.thresholds.hysteresis == settings.levelHysteresis)
        #expect(pipeline.thresholds.alarmThreshold == settings.alarmThreshold)
    }
}
