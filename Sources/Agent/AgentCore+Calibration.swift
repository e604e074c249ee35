import Configuration
import Contract
import Geometry
import Level
import MQTT
import Persistence
import Settings

extension AgentCore {
    // MARK: The calibration in force

    /// Makes `record` (nil: none) the calibration in force: the pipeline corrects by it from the
    /// next block on, the zero reference keeps its pose (re-derived, and saved again when that
    /// changed it), a reversal in progress is dropped, and `P/calibration` is republished.
    func useCalibration(_ record: CalibrationRecord?) {
        let old = pipeline.settings
        calibrating.record = record
        if pipelineSettings(settings) != old {
            let zeroBefore = pipeline.zeroGravity
            pipeline.reconfigure(pipelineSettings(settings))
            if pipeline.zeroGravity != zeroBefore { persistZero() }
            // The first reading was corrected the old way: it cannot pair with one corrected the new way.
            calibrating.dropReversal()
            state.force()
        }
        publishCalibration()
    }

    /// SIGHUP: the calibration file again, as ``AgentRunner`` read it.
    public func reload(calibration record: CalibrationRecord?, warning: String?) {
        if let warning { log.warning(warning.escapedForLog(limit: 2000)) }
        let record = record.flatMap(refusingAnotherChip)
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

    /// `P/command/calibrate_reversal`: the payload names the step.
    func calibrateReversal(payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        guard let step = ReversalStep(rawValue: String(text.trimmingWhitespace)) else {
            return rejectReversal(step: text, origin: .mqtt, reason: "\"\(text.escapedForLog)\" is not a step of the reversal; the payloads are"
                                  + " \(ReversalStep.list): first on the spot, second after turning the device 180° there.")
        }
        calibrate(reversal: step, from: .mqtt)
    }

    /// One step of the reversal, `first` or `second`, from a stable reading, for `origin` (the
    /// MQTT command, or `plumb calibrate` on the control socket). Every refusal is a
    /// `calibration_rejected` event that says what to do, and changes nothing but what it names;
    /// the events go to `P/event` and to every event listener (``addEventListener(_:)``).
    public func calibrate(reversal step: ReversalStep, from origin: CalibrationOrigin) {
        if let refusal = calibrating.refusal(.reversal, from: origin) {
            return rejectReversal(step: step.rawValue, origin: origin, reason: refusal, running: calibrating.run)
        }
        guard sensor.mayReport, let measurement = pipeline.latest else {
            return rejectReversal(step: step.rawValue, origin: origin, reason: "there is no current reading (the sensor is starting,"
                                  + " faulty or running a self-test); send \(step.rawValue) again once it reads.")
        }
        guard measurement.isStable else {
            return rejectReversal(step: step.rawValue, origin: origin, reason: "the reading is not stable (the device is moving or"
                                  + " shaking); let it settle on the spot and send \(step.rawValue) again.", stable: false)
        }
        switch step {
        case .first: reversalFirst(measurement, from: origin)
        case .second: reversalSecond(measurement, from: origin)
        }
    }

    private func reversalFirst(_ measurement: Measurement, from origin: CalibrationOrigin) {
        var session = calibrating.reversalSession()
        session.begin(gravity: measurement.deviceGravity, calibration: calibration, mount: settings.mount)
        calibrating.keep(session, origin: origin)
        emit(AgentEvent(type: .calibrationProgress, details: [
            .step: .string(ReversalStep.first.rawValue),
            .readingG: measurement.deviceGravity.jsonG(decimals: 5),
            .stable: .bool(true),
            .next: .string("turn the device 180° about the vertical on the same spot, let it settle, and send second"),
        ], origins: [origin]))
    }

    private func reversalSecond(_ measurement: Measurement, from origin: CalibrationOrigin) {
        var session = calibrating.reversalSession()
        let made: (record: CalibrationRecord, result: ReversalCalibration)
        do {
            defer { calibrating.keep(session, origin: origin) }
            made = try session.finish(second: measurement.deviceGravity, calibration: calibration, mount: settings.mount,
                                      base: calibrationRecord)
        } catch {
            return rejectReversal(step: ReversalStep.second.rawValue, origin: origin, reason: error.reason)
        }
        var details = Self.appliedDetails(made.record, made.result)
        if !save(made.record) { details[.persisted] = .bool(false) }
        useCalibration(made.record)
        emit(AgentEvent(type: .calibrationApplied, details: details, origins: [origin]))
    }

    /// Saves `record` as `calibration.json`; false (logged) when it could not be written.
    func save(_ record: CalibrationRecord) -> Bool {
        do {
            try store.save(calibration: record)
            return true
        } catch {
            log.error("could not persist the calibration: \(error)")
            return false
        }
    }

    private func rejectReversal(step: String, origin: CalibrationOrigin, reason: String, stable: Bool? = nil,
                                running: CalibrationRun = .none) {
        // The reasons are the agent's own sentences; a payload in one is escaped already.
        log.warning("calibrate_reversal \(step.escapedForLog) refused: \(reason)")
        var details: [EventKey: JSONValue] = [.step: .string(String(step.prefix(100))), .reason: .string(reason)]
        if let stable { details[.stable] = .bool(stable) }
        // Whether `second` may simply be sent again (the first reading stands) or the reversal
        // starts over with `first`: what `plumb calibrate reversal` asks the person next.
        if step == ReversalStep.second.rawValue, running.kind == nil {
            details[.firstKept] = .bool(calibrating.reversalSession().first != nil)
        }
        details.merge(Self.runningDetails(running)) { $1 }
        emit(AgentEvent(type: .calibrationRejected, details: details, origins: [origin]))
    }

    /// `running` and `started_by` of a refusal that another calibration caused; empty for none.
    static func runningDetails(_ run: CalibrationRun) -> [EventKey: JSONValue] {
        guard let kind = run.kind, let origin = run.origin else { return [:] }
        return [.running: .string(kind.rawValue), .startedBy: .string(origin.description)]
    }

    /// `calibration_applied`'s details: the method and date, the zero error found and the
    /// surface's tilt, in degrees (4 decimals) and the offset in mg.
    static func appliedDetails(_ record: CalibrationRecord, _ result: ReversalCalibration) -> [EventKey: JSONValue] {
        func degrees(_ angle: Angle?) -> JSONValue { angle.map { .number($0.degrees.rounded(toDecimals: 4)) } ?? .null }
        let offset = result.zeroOffset * 1000
        return [
            .method: .string(record.method.rawValue),
            .date: .string(record.date),
            .mount: .string(result.mount.name),
            .stable: .bool(true),
            .zeroRollDeg: degrees(result.zeroRoll),
            .zeroPitchDeg: degrees(result.zeroPitch),
            .surfaceRollDeg: degrees(result.surfaceRoll),
            .surfacePitchDeg: degrees(result.surfacePitch),
            .zeroOffsetMG: .array([offset.x, offset.y, offset.z].map { .number($0.rounded(toDecimals: 3)) }),
        ]
    }

    // MARK: clear_calibration

    /// Removes `calibration.json` and reads raw from the next block.
    func clearCalibration() {
        var details: [EventKey: JSONValue] = [.previousMethod: calibrationRecord.map { .string($0.method.rawValue) } ?? .null]
        do {
            try store.removeCalibration()
        } catch {
            log.error("could not remove the stored calibration: \(error)")
            details[.persisted] = .bool(false)
        }
        useCalibration(nil)
        calibrating.dropReversal()
        emit(AgentEvent(type: .calibrationCleared, details: details))
    }
}
