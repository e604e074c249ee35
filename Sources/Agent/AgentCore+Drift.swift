import Accelerometers
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Level
import Persistence
import Thermal
import Geometry

extension AgentCore {
    // MARK: learn_drift

    /// `P/command/learn_drift`: the payload names the action.
    func learnDrift(payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        guard let action = DriftLearningAction(rawValue: String(text.trimmingWhitespace)) else {
            return rejectDrift(action: text, reason: "\"\(text.escapedForLog)\" is not an action of learn_drift; the payloads"
                               + " are \(DriftLearningAction.list).")
        }
        switch action {
        case .start: startDriftLearning()
        case .stop: stopDriftLearning()
        case .cancel: cancelDriftLearning()
        }
    }

    /// Starts learning (again, when one is under way): the machine must stay where it is until
    /// `stop`, while the temperature moves.
    func startDriftLearning() {
        guard temperature.source != .none else {
            let sensing = ChipCatalog.all.filter { $0.temperature != nil }.map(\.model).joined(separator: " or ")
            return rejectDrift(action: "start", reason: "there is no temperature to learn the drift against:"
                + " sensor.temperature is none. Set it to chip (on an \(sensing)), mqtt:<topic> or thermal_zone:0.")
        }
        if let hold = sensor.calibrationHold {
            return rejectDrift(action: "start", reason: "cannot learn the drift: \(hold). Try again once it reads.")
        }
        if let kind = calibrating.run.kind {
            // A calibration moves the device: learned across it, the drift would be the person's hands.
            return rejectDrift(action: "start", reason: "a \(kind.name) is in progress, and it moves the device; start"
                               + " learn_drift once it has finished.")
        }
        let now = clock()
        let restarted = driftLearning != nil
        driftLearning = DriftLearning(startedAt: now, configuration: driftLearningConfiguration)
        log.info("learn_drift \(restarted ? "restarted" : "started"): the machine must not move until stop")
        emitDriftProgress(state: "started", at: now)
    }

    /// Fits what was learned and applies it; when it is not ready, says what it waits for and
    /// carries on learning.
    func stopDriftLearning() {
        guard let learning = driftLearning else {
            return rejectDrift(action: "stop", reason: "no learn_drift is under way; send start first, and stop once the"
                               + " temperature has moved by \(plain(driftLearningConfiguration.minimumSpanCelsius, 3)) °C.")
        }
        let now = clock()
        let model: DriftModel
        do throws(DriftFitError) {
            model = try learning.finish(at: now)
        } catch {
            if case .notReady = error.reason {
                // Not an end: the session goes on, and a later stop may succeed.
                return rejectDrift(action: "stop", reason: error.description + " Learning goes on; send stop again later,"
                                   + " or cancel.")
            }
            driftLearning = nil
            return rejectDrift(action: "stop", reason: error.description)
        }
        driftLearning = nil
        let record = calibrationRecord.map { $0.withLearnedDrift(model) }
            ?? CalibrationRecord.learnedDrift(model, chip: calibrating.chip)
        var details = driftDetails(record.drift ?? model)
        do {
            try store.save(calibration: record)
        } catch {
            log.error(error.description)
            details[.persisted] = .bool(false)
        }
        useCalibration(record)
        log.info("learn_drift applied: \(record.drift.map(Self.driftSentence) ?? "")")
        emit(AgentEvent(type: .driftLearned, details: details))
    }

    /// Ends learning, applying nothing.
    func cancelDriftLearning() {
        guard driftLearning != nil else {
            return rejectDrift(action: "cancel", reason: "no learn_drift is under way; nothing to cancel.")
        }
        driftLearning = nil
        rejectDrift(action: "cancel", reason: "learn_drift cancelled; nothing changed.", cancelled: true)
    }

    /// The sensor failed: what was learned spans the fault, so it cannot be trusted.
    func failDriftLearning(sensorFault message: String) {
        guard driftLearning != nil else { return }
        driftLearning = nil
        rejectDrift(action: "learning", reason: "the sensor failed (\(message)), so the learning ended; nothing changed."
                    + " Start it again once the sensor reads.")
    }

    /// One reading for the learning under way: the raw reading it was made from (the drift
    /// correction in force undone, so the slope learned is the chip's own) and the temperature.
    func feedDriftLearning(_ measurement: Measurement) {
        guard var learning = driftLearning else { return }
        let reading = temperature.reading(at: measurement.time)
        let thermal = pipeline.settings.thermal
        guard let raw = thermal.raw(correctedTo: measurement.deviceGravity, by: calibration, temperature: reading) else { return }
        let report = learning.add(raw: raw, celsius: reading.celsius, stable: measurement.isStable, at: measurement.time)
        driftLearning = learning
        switch report {
        case nil: break
        case .progress?:
            emitDriftProgress(state: "learning", at: measurement.time)
        case .failed(let error)?:
            driftLearning = nil
            rejectDrift(action: "learning", reason: error.description)
        }
    }

    private func emitDriftProgress(state: String, at time: Double) {
        guard let learning = driftLearning else { return }
        let progress = learning.progress(at: time)
        emit(AgentEvent(type: .driftProgress, details: [
            .state: .string(state),
            .elapsedS: .integer(Int(progress.elapsedSeconds.rounded())),
            .points: .integer(progress.buckets),
            .skipped: .integer(progress.skipped),
            .lowC: progress.lowCelsius.map { .number($0.rounded(toDecimals: 2)) } ?? .null,
            .highC: progress.highCelsius.map { .number($0.rounded(toDecimals: 2)) } ?? .null,
            .spanC: .number(progress.spanCelsius.rounded(toDecimals: 2)),
            .ready: .bool(progress.ready),
            .waitingFor: progress.waitingFor.map(JSONValue.string) ?? .null,
        ]))
    }

    /// - Parameter cancelled: the session ended by `cancel`, as asked (`cancelled: true`).
    private func rejectDrift(action: String, reason: String, cancelled: Bool = false) {
        log.warning("learn_drift \(action.escapedForLog(limit: 40)): \(reason.escapedForLog(limit: 600))")
        var details: [EventKey: JSONValue] = [.action: .string(action), .reason: .string(reason)]
        if cancelled { details[.cancelled] = .bool(true) }
        emit(AgentEvent(type: .driftRejected, details: details))
    }

    /// `drift_learned`'s details: the model as the file stores it, and what it means near level.
    func driftDetails(_ model: DriftModel) -> [EventKey: JSONValue] {
        // Through the model's own Codable, so the keys are the file's.
        let stored = (try? JSONDecoder().decode(JSONValue.self, from: Data(encodeJSON(model)))) ?? .null
        let k = model.offsetPerDegree
        return [
            .drift: stored,
            .degreesPerC: .array([k.x, k.y].map { .number((asin(min(1, abs($0))) * 180 / .pi).rounded(toDecimals: 5)) }),
        ]
    }

    /// `x +0.41, y −0.12 mg/°C from 18.2 to 27.9 °C`, for the log.
    static func driftSentence(_ model: DriftModel) -> String {
        let k = model.offsetPerDegree * 1000.0
        return "x \(plain(k.x, 3)), y \(plain(k.y, 3)), z \(plain(k.z, 3)) mg/°C, learned from \(plain(model.span.lowerBound, 3))"
            + " to \(plain(model.span.upperBound, 3)) °C"
    }
}
