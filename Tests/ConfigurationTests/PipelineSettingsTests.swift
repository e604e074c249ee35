import PlumbDomain
import Settings
import Testing

@Suite("The level pipeline's settings from the live settings")
struct PipelineSettingsTests {
    @Test("The window is average_window_s in blocks of the sampling's size, at least one")
    func windowBlocks() throws {
        #expect(LiveSettings().windowBlocks == 10)
        let longer = try LiveSettings().applying(json: Array(#"{"average_window_s": 2.5, "sample_rate_hz": 800}"#.utf8))
        #expect(longer.windowBlocks == 25)
        // 6.25 Hz: one-sample blocks, so a 1 s window is six of them (6.25 rounded).
        let slow = try LiveSettings().applying(json: Array(#"{"sample_rate_hz": 6.25}"#.utf8))
        #expect(slow.windowBlocks == 6)
    }

    @Test("The pipeline takes the window, filter, mount and level thresholds from the settings")
    func pipelineSettings() throws {
        let settings = try LiveSettings().applying(json: Array(#"{"level_tolerance": 0.4, "filter": "median"}"#.utf8))
        let pipeline = settings.pipelineSettings(calibration: .identity)
        #expect(pipeline.windowBlocks == settings.windowBlocks)
        #expect(pipeline.filter == settings.filter)
        #expect(pipeline.mount == settings.mount)
        #expect(pipeline.thresholds.tolerance == settings.levelTolerance)
        #expect(pipeline.thresholds.hysteresis == settings.levelHysteresis)
        #expect(pipeline.thresholds.alarmThreshold == settings.alarmThreshold)
    }
}
