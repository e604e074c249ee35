import Configuration
import Contract
import MQTT
import PlumbDomain
import Settings

extension AgentCore {
    // MARK: The calibration in force

    /// Makes `record` (nil: none) the calibration in force: the pipeline corrects by it from the
    /// next block on, the zero reference keeps its pose (re-derived, and saved again when that
    /// changed it), a reversal in progress is dropped, and `P/calibration` is republished.
    func useCalibration(_ record: CalibrationRecord?) {
        let old = calibration
        calibrating.record = record
        if calibration != old {
            let zeroBefore = pipeline.zeroGravity
            pipeline.reconfigure(Self.pipelineSettings(settings, calibration: calibration))
            if pipeline.zeroGravity != zeroBefore { persistZero() }
            // The first reading was corrected the old way: it cannot pair with one corrected the new way.
            calibrating.reversal.cancel()
            state.force()
        }
        publishCalibration()
    }

    /// SIGHUP: the calibration file again, as ``AgentRunner`` read it.
    public func reload(calibration record: CalibrationRecord?, warning: String?) {
        if let warning { log.warning(warning.escapedForLog(limit: 2000)) }
        guard record != calibrationRecord else {
            log.info("calibration reloaded; nothing changed.")
            return
        }
        useCalibration(record)
        log.info("calibration reloaded: \(record.map { "\($0.method.rawValue) of \($0.date)" } ?? "none, the sensor reads raw").")
    }

    /// Publishes `P/calibration`, retained.
    func publishCalibration() {
        send(.calibration(calibrationRecord))
    }

    // MARK: calibrate_reversal

    /// One step of the reversal, `first` or `second`, from a stable reading. Every refusal is a
    /// `calibration_rejected` event that says what to do, and changes nothing but what it names.
    func calibrateReversal(payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        guard let step = ReversalStep(rawValue: String(text.trimmingWhitespace)) else {
            return rejectReversal(step: text, reason: "\"\(text.escapedForLog)\" is not a step of the reversal; the payloads are"
                                  + " \(ReversalStep.list): first on the spot, second after turning the device 180° there.")
        }
        guard sensor.mayReport, let measurement = pipeline.latest else {
            return rejectReversal(step: step.rawValue, reason: "there is no current reading (the sensor is starting,"
                                  + " faulty or running a self-test); send \(step.rawValue) again once it reads.")
        }
        guard measurement.isStable else {
            return rejectReversal(step: step.rawValue, reason: "the reading is not stable (the device is moving or"
                                  + " shaking); let it settle on the spot and send \(step.rawValue) again.", stable: false)
        }
        switch step {
        case .first: reversalFirst(measurement)
        case .second: reversalSecond(measurement)
        }
    }

    private func reversalFirst(_ measurement: Measurement) {
        calibrating.reversal.begin(gravity: measurement.deviceGravity, calibration: calibration, mount: settings.mount)
        emit(AgentEvent(type: .calibrationProgress, details: [
            "step": .string(ReversalStep.first.rawValue),
            "reading_g": measurement.deviceGravity.jsonG(decimals: 5),
            "stable": .bool(true),
            "next": .string("turn the device 180° about the vertical on the same spot, let it settle, and send second"),
        ]))
    }

    private func reversalSecond(_ measurement: Measurement) {
        let made: (record: CalibrationRecord, result: ReversalCalibration)
        do {
            made = try calibrating.reversal.finish(second: measurement.deviceGravity, calibration: calibration, mount: settings.mount,
                                       base: calibrationRecord)
        } catch {
            return rejectReversal(step: ReversalStep.second.rawValue, reason: error.reason)
        }
        var details = Self.appliedDetails(made.record, made.result)
        do {
            try store.save(calibration: made.record)
        } catch {
            log.error("could not persist the calibration: \(error)")
            details["persisted"] = .bool(false)
        }
        useCalibration(made.record)
        emit(AgentEvent(type: .calibrationApplied, details: details))
    }

    private func rejectReversal(step: String, reason: String, stable: Bool? = nil) {
        // The reasons are the agent's own sentences; a payload in one is escaped already.
        log.warning("calibrate_reversal \(step.escapedForLog) refused: \(reason)")
        var details: [String: JSONValue] = ["step": .string(String(step.prefix(100))), "reason": .string(reason)]
        if let stable { details["stable"] = .bool(stable) }
        emit(AgentEvent(type: .calibrationRejected, details: details))
    }

    /// `calibration_applied`'s details: the method and date, the zero error found and the
    /// surface's tilt, in degrees (4 decimals) and the offset in mg.
    static func appliedDetails(_ record: CalibrationRecord, _ result: ReversalCalibration) -> [String: JSONValue] {
        func degrees(_ angle: Angle?) -> JSONValue { angle.map { .number($0.degrees.rounded(toDecimals: 4)) } ?? .null }
        let offset = result.zeroOffset * 1000
        return [
            "method": .string(record.method.rawValue),
            "date": .string(record.date),
            "mount": .string(result.mount.name),
            "stable": .bool(true),
            "zero_roll_deg": degrees(result.zeroRoll),
            "zero_pitch_deg": degrees(result.zeroPitch),
            "surface_roll_deg": degrees(result.surfaceRoll),
            "surface_pitch_deg": degrees(result.surfacePitch),
            "zero_offset_mg": .array([offset.x, offset.y, offset.z].map { .number($0.rounded(toDecimals: 3)) }),
        ]
    }

    // MARK: clear_calibration

    /// Removes `calibration.json` and reads raw from the next block.
    func clearCalibration() {
        var details: [String: JSONValue] = ["previous_method": calibrationRecord.map { .string($0.method.rawValue) } ?? .null]
        do {
            try store.removeCalibration()
        } catch {
            log.error("could not remove the stored calibration: \(error)")
            details["persisted"] = .bool(false)
        }
        useCalibration(nil)
        calibrating.reversal.cancel()
        emit(AgentEvent(type: .calibrationCleared, details: details))
    }
}
