import Accelerometers
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension AgentCore {
    /// The supply voltage the self-test's limits are scaled to: a Raspberry Pi's 3V3 rail, as
    /// `plumb selftest` assumes by default.
    static let selfTestSupplyVoltage = 3.3
    /// The longest the agent waits for a self-test's result. The test itself takes under a
    /// second (two settled means of 20 samples at 100 Hz); the rest covers the block in progress
    /// and a loaded machine.
    static let selfTestTimeout = 10.0

    /// `selftest`: the datasheet self-test on the sampling thread between two blocks (sampling
    /// pauses, the chip's configuration is restored, sampling resumes), reported as a `selftest`
    /// event. One at a time: a second while one runs is refused with a `selftest` event.
    func selfTest() {
        if case .sixPoint(_, let origin) = calibrating.run {
            // The self-test deflects the readings the tumble is averaging: one job on the chip at a time.
            let reason = "a six-point calibration is running, started by \(origin); the self-test would move the"
                + " readings it averages: finish it, or end it with cancel on calibrate_six_point, then send selftest again."
            log.warning("selftest refused: " + reason)
            emit(AgentEvent(type: .selftest, details: [.passed: .null, .error: .string(reason)]))
            return
        }
        guard sensor.beginSelfTest() else {
            log.warning("selftest refused: one is already running.")
            emit(AgentEvent(type: .selftest, details: [
                .passed: .null, .error: .string("a self-test is already running; wait for its selftest event."),
            ]))
            return
        }
        log.info("self-test: pausing sampling")
        let supply = Self.selfTestSupplyVoltage
        Task {
            let result = await sampling.runOnChip(timeout: Self.selfTestTimeout) { (chip) throws(SensorError) in
                try chip.selfTest(supplyVoltage: supply)
            }
            finishSelfTest(result)
        }
    }

    func finishSelfTest(_ result: Result<SelfTestReport, ChipJobError>) {
        sensor.endSelfTest()
        switch result {
        case .success(let report):
            log.info("self-test \(report.passed ? "passed" : "FAILED: an axis moved outside the datasheet's limits")")
            emit(AgentEvent(type: .selftest, encoded: Self.selfTestDetails(report)))
        case .failure(let error):
            log.warning("self-test could not run: \(error)")
            emit(AgentEvent(type: .selftest, details: [.passed: .null, .error: .string(error.description)]))
        }
    }

    /// The event's details: `plumb selftest --json`'s object, from the same encoder.
    static func selfTestDetails(_ report: SelfTestReport) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(encodeJSON(SelfTestFigures(report))))) ?? [:]
    }
}
