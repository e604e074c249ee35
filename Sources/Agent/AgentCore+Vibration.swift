import Contract
import Geometry
import Level
import Settings
import Vibration
import VibrationVocabulary

extension AgentCore {
    /// Starts, reconfigures or stops the vibration stage for `settings`: called at start and
    /// after every settings change. Turning it off (or a rate it cannot analyse) clears the
    /// retained `P/vibration`, so no subscriber keeps reading a machine's last figures as current.
    func configureVibration(_ settings: VibrationSettings) {
        guard case .stopped(let warning) = vibration.configure(settings) else { return }
        if let warning { log.warning(warning) }
        send(.vibration(nil))
    }

    /// Feeds one batch of raw samples (a loss in it drops the window in progress), newest at `time` on the agent's clock,
    /// and publishes what its windows decided. The same array the level pipeline measured: no
    /// sample is copied for the analysis (its analyzer keeps its own window of them).
    func ingestVibration(_ batch: SampleBatch, at time: Double) {
        // Batches still at the old rate, between a rate change and the chip's restart, would
        // be analysed as if at the new one.
        guard let monitor = vibration.monitor, batch.rateHz == monitor.settings.rateHz else { return }
        for outcome in monitor.add(batch, endingAt: time) {
            if let change = outcome.runningChange { emitRunning(change, figures: outcome.figures) }
            if let change = outcome.zoneChange {
                emit(AgentEvent(type: .zoneChanged, details: [
                    .zone: .string(change.zone.rawValue),
                    .previousZone: change.previous.map { .string($0.rawValue) } ?? .null,
                    .velocityRMSMillimetresPerSecond: .number(change.velocityRMS.rounded(toDecimals: 2)),
                    .vibrationClass: .string(monitor.settings.machineClass.rawValue),
                ]))
            }
            if let reason = outcome.publish {
                log.debug("vibration (\(reason.rawValue))")
                let payload = VibrationPayload(outcome.figures, zone: outcome.zone,
                                               machineClass: monitor.settings.machineClass, running: outcome.running)
                send(.vibration(payload))
            }
        }
    }

    private func emitRunning(_ change: RunningDetector.Transition, figures: VibrationFigures) {
        guard let monitor = vibration.monitor else { return }
        let threshold = monitor.settings.running.threshold
        let levelKey = threshold.unit == .gravities ? EventKey.accelerationRMSG : .velocityRMSMillimetresPerSecond
        var details: [EventKey: JSONValue] = [
            levelKey: .number(change.level.rounded(toDecimals: threshold.unit == .gravities ? 4 : 2)),
            .threshold: .string(threshold.description),
            // How long ago, by the estimate inside the windows, the machine really started or
            // stopped: the dwell, and a fraction of a window.
            .sinceS: .number(max(0, change.time - change.changedAt).rounded(toDecimals: 2)),
        ]
        if let duration = change.duration {
            details[.durationS] = .number(duration.rounded(toDecimals: 1))
            // False when the run was under way when the analysis began (an agent restart mid-run):
            // duration_s is then only the part it saw.
            details[.startSeen] = .bool(change.startSeen)
        }
        emit(AgentEvent(type: change.isRunning ? .runningStarted : .runningStopped, details: details))
    }

    /// A gap in the samples (fault, job on the chip): no window may straddle it.
    func interruptVibration() {
        vibration.monitor?.reset()
    }
}
