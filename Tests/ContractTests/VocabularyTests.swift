import Contract
import Testing

/// The wire names are a contract the README documents and subscribers match on: renaming a case
/// must not rename what goes over MQTT.
@Suite("The shared vocabularies")
struct VocabularyTests {
    @Test func commandsKeepTheirWireNames() {
        #expect(Command.allCases.map(\.rawValue)
            == ["zero", "clear_zero", "republish", "calibrate_reversal", "calibrate_six_point", "clear_calibration", "selftest",
                "learn_drift"])
        #expect(Command.list([.zero, .clearZero, .republish]) == "zero, clear_zero and republish")
        #expect(Command.list([.zero]) == "zero")
        #expect(Command.list([]).isEmpty)
    }

    @Test func eventTypesKeepTheirWireNames() {
        #expect(EventType.allCases.map(\.rawValue) == [
            "level_entered", "level_left", "alarm_raised", "alarm_cleared", "sensor_fault", "sensor_recovered",
            "config_applied", "config_rejected", "zeroed", "zero_rejected", "calibration_progress",
            "calibration_applied", "calibration_rejected", "calibration_cleared", "selftest",
            "running_started", "running_stopped", "zone_changed", "temperature_rejected", "drift_progress", "drift_learned",
            "drift_rejected",
        ])
    }

    @Test func reversalStepsKeepTheirWireNames() {
        #expect(ReversalStep.allCases.map(\.rawValue) == ["first", "second"])
        #expect(ReversalStep.list == "first and second")
        #expect(ReversalStep(rawValue: "First") == nil, "payloads are exact, as the buttons send them")
    }

    @Test func sixPointActionsKeepTheirWireNames() {
        #expect(SixPointAction.allCases.map(\.rawValue) == ["start", "next", "cancel"])
        #expect(SixPointAction.list == "start, next and cancel")
        #expect(SixPointAction(rawValue: "Start") == nil, "payloads are exact, as the buttons send them")
    }

    @Test func healthKeysKeepTheirWireNames() {
        #expect(HealthKey.allCases.map(\.rawValue) == [
            "uptime_s", "samples", "sample_rate_hz", "dropped", "i2c_errors", "i2c_mode", "chip", "reconnects", "inbound_stalls", "queued_events",
            "dropped_events", "analysis_windows", "version", "broker", "temperature_source", "temperature_age_s",
            "temperature_stale", "temperature_rejected", "drift_learning",
        ])
    }

    @Test func driftLearningActionsKeepTheirWireNames() {
        #expect(DriftLearningAction.allCases.map(\.rawValue) == ["start", "stop", "cancel"])
        #expect(DriftLearningAction.list == "start, stop and cancel")
        #expect(DriftLearningAction(rawValue: "Stop") == nil, "payloads are exact, as the buttons send them")
    }

    @Test func vibrationKeysKeepTheirWireNames() {
        #expect(VibrationKey.allCases.map(\.rawValue) == [
            "velocity_rms_mm_s", "acceleration_rms_g", "peak_g", "crest_factor", "dominant_hz", "peaks", "hz", "axes",
            "band_hz", "zone", "vibration_class", "running", "window_s", "rate_hz", "ts",
        ])
        #expect(Topics(baseTopic: "plumb", deviceID: "d").vibration == "plumb/d/vibration")
    }

    @Test func rulerServicesKeepTheirWireNames() {
        #expect(RulerServiceName.list == "ruler, convert, rise, shim")
        #expect(RulerServiceName(rawValue: "level") == nil, "an unknown name is no service, never a default one")
    }

}
