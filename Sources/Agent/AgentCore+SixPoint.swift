import Accelerometers
import Calibrating
import Configuration
import Contract
import Geometry
import Level
import Persistence
import Settings
import Thermal

extension AgentCore {
    /// Seconds averaged per face: `plumb calibrate six-point`'s default `--seconds`.
    public static let sixPointSecondsPerFace = 2.0

    // MARK: calibrate_six_point

    /// `P/command/calibrate_six_point`: the payload names the action.
    func calibrateSixPoint(payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        guard let action = SixPointAction(rawValue: String(text.trimmingWhitespace)) else {
            return rejectSixPoint(action: text, for: .mqtt, reason: "\"\(text.escapedForLog)\" is not an action of the six-point"
                + " calibration; the payloads are \(SixPointAction.list): start to begin, next once the device lies"
                + " still on the next face, cancel to stop and apply nothing.")
        }
        calibrate(sixPoint: action, from: .mqtt)
    }

    /// One action of the six-point tumble, for `origin` (the MQTT command, or `plumb calibrate`
    /// on the control socket): `start` begins one, `next` says the device lies on the next face,
    /// `cancel` ends the calibration in progress (a tumble, or a reversal's held first reading)
    /// and applies nothing.
    ///
    /// While the tumble runs every raw sample batch is handed to it. It reports
    /// `calibration_progress` events (method `six_point`: at each change of state and every 10 %
    /// of a face's averaging), then `calibration_applied` (saved and in force, like a reversal's)
    /// or `calibration_rejected`. Only `origin` may say `next`; anyone may `cancel`. The events
    /// go to `P/event` and to every event listener (``addEventListener(_:)``).
    ///
    /// - Parameter secondsPerFace: seconds averaged per face, for `start` (at least 2 is sensible).
    public func calibrate(sixPoint action: SixPointAction, from origin: CalibrationOrigin,
                          secondsPerFace: Double = AgentCore.sixPointSecondsPerFace) {
        switch action {
        case .start: startSixPoint(from: origin, secondsPerFace: secondsPerFace)
        case .next: nextFace(from: origin)
        case .cancel: cancelCalibration(by: origin)
        }
    }

    /// The connection of `origin` went away: the calibration it started, if one runs, ends with
    /// `calibration_rejected` and nothing is applied.
    public func calibrationOriginGone(_ origin: CalibrationOrigin) {
        guard let kind = calibrating.end(startedBy: origin) else { return }
        log.warning("\(kind.name) cancelled: \(origin) went away")
        emit(AgentEvent(type: .calibrationRejected, details: [
            .method: .string(kind.rawValue), .cancelled: .bool(true), .startedBy: .string(origin.description),
            .reason: .string("cancelled: \(origin), which started the \(kind.name), went away (its connection closed);"
                              + " nothing was applied."),
        ], origins: [origin]))
    }

    private func startSixPoint(from origin: CalibrationOrigin, secondsPerFace: Double) {
        if let refusal = calibrating.refusal(.sixPoint, from: origin) {
            return rejectSixPoint(action: SixPointAction.start.rawValue, for: origin, reason: refusal,
                                  running: calibrating.run)
        }
        if let hold = sensor.calibrationHold {
            return rejectSixPoint(action: SixPointAction.start.rawValue, for: origin,
                                  reason: "\(hold); send start again once it reads.")
        }
        let chip = sensor.chip ?? ChipCatalog.simulated
        let tumble = SixPointTumble(secondsPerFace: secondsPerFace, chip: calibrating.chip, rateHz: sensor.operatingPoint.rateHz,
                                    operatingPoint: { chip.operatingPoint(rateHz: $0) })
        calibrating.run = .sixPoint(tumble, origin: origin)
        calibrating.tumbleCelsius = RunningMean()
        log.info("six-point calibration started by \(origin)")
        let now = clock()
        driveSixPoint { $0.start(at: now) }
    }

    private func nextFace(from origin: CalibrationOrigin) {
        guard case .sixPoint(_, let holder) = calibrating.run else {
            let running = calibrating.refusal(.sixPoint, from: origin).map { " (\($0))" } ?? ""
            return rejectSixPoint(action: SixPointAction.next.rawValue, for: origin, reason: "no six-point calibration is running"
                                  + "\(running); send start first.", running: calibrating.run)
        }
        guard holder == origin else {
            return rejectSixPoint(action: SixPointAction.next.rawValue, for: origin, reason: "the six-point calibration in progress"
                                  + " was started by \(holder), which says next; end it with cancel to start your own.",
                                  running: calibrating.run)
        }
        let now = clock()
        driveSixPoint { $0.next(at: now) }
    }

    /// `cancel`: ends the tumble or the held reversal, whoever started it, and says who ended it.
    private func cancelCalibration(by origin: CalibrationOrigin) {
        let run = calibrating.run
        guard let kind = run.kind, let holder = run.origin else {
            return rejectSixPoint(action: SixPointAction.cancel.rawValue, for: origin,
                                  reason: "no calibration is in progress: there is nothing to cancel.")
        }
        calibrating.run = .none
        let started = holder == origin ? "" : ", started by \(holder),"
        log.info("\(kind.name) cancelled by \(origin)")
        emit(AgentEvent(type: .calibrationRejected, details: [
            .method: .string(kind.rawValue), .action: .string(SixPointAction.cancel.rawValue), .cancelled: .bool(true),
            .startedBy: .string(holder.description), .cancelledBy: .string(origin.description),
            .reason: .string("cancelled by \(origin): the \(kind.name)\(started) is over and nothing was applied;"
                              + " the calibration in force stays."),
        ], origins: [holder, origin]))
    }

    /// Hands a raw sample batch to the tumble in progress.
    func feedSixPoint(_ batch: SampleBatch) {
        guard case .sixPoint = calibrating.run else { return }
        let now = clock()
        if let celsius = temperature.reading(at: now).celsius { calibrating.tumbleCelsius.add(celsius) }
        driveSixPoint { $0.add(batch.samples, at: now) }
    }

    /// A new sensor fault ends a tumble: the chip may come back reset, and faces measured before
    /// and after could disagree. Said, not retried: the person starts again once it reads.
    func failSixPoint(sensorFault message: String) {
        failSixPoint(because: "the sensor failed during the six-point calibration (\(message)); nothing was applied:"
                     + " send start again once it reads (sensor_recovered).")
    }

    /// A new sample rate ends a tumble: its stillness and averaging were timed at the old one.
    func failSixPoint(rateChangedTo rateHz: Double) {
        failSixPoint(because: "sample_rate_hz changed to \(rateHz) Hz during the six-point calibration; nothing was"
                     + " applied: send start again.")
    }

    private func failSixPoint(because reason: String) {
        guard case .sixPoint(_, let origin) = calibrating.run else { return }
        calibrating.run = .none
        rejectSixPoint(action: nil, for: origin, reason: reason, startedBy: origin)
    }

    /// Runs `step` on the tumble in progress and reports what it says, in order.
    private func driveSixPoint(_ step: (inout SixPointTumble) -> [SixPointTumble.Outcome]) {
        guard case .sixPoint(var tumble, let origin) = calibrating.run else { return }
        // Out of the enum while it changes, so its buffers are not copied.
        calibrating.run = .none
        let outcomes = step(&tumble)
        calibrating.run = tumble.isOver ? .none : .sixPoint(tumble, origin: origin)
        var refusal: String?
        for outcome in outcomes {
            switch outcome {
            case .progress(let progress):
                emit(AgentEvent(type: .calibrationProgress, details: Self.progressDetails(progress, refused: refusal,
                                                                                          startedBy: origin),
                                origins: [origin]))
                refusal = nil
            case .refused(let reason):
                log.info("six-point calibration: \(reason)")
                refusal = reason
            case .finished(let record):
                finishSixPoint(record, startedBy: origin)
            case .failed(let reason):
                rejectSixPoint(action: nil, for: origin, reason: reason, startedBy: origin)
            }
        }
        if let refusal { rejectSixPoint(action: nil, for: origin, reason: refusal, startedBy: origin) }
    }

    private func finishSixPoint(_ tumbled: CalibrationRecord, startedBy origin: CalibrationOrigin) {
        // Made at the tumble's mean temperature, and merged with the tumbles at other
        // temperatures before it, which together fit the drift.
        var made = tumbled
        made.temperatureC = calibrating.tumbleCelsius.mean.map { $0.rounded(toDecimals: 2) }
        let merge = calibrationRecord.map { $0.merging(made) }
            ?? CalibrationMerge(record: made, outcome: .replaced(made.temperatureC == nil ? .noTemperature : .first))
        let record = merge.record
        var details: [EventKey: JSONValue] = [
            .method: .string(record.method.rawValue), .date: .string(record.date),
            .startedBy: .string(origin.description),
            .temperatureC: made.temperatureC.map(JSONValue.number) ?? .null,
            .drift: .string(merge.message),
        ]
        if case .object(let published) = CalibrationPayload(record).json { details[.residualMG] = published["residual_mg"] }
        if !save(record) { details[.persisted] = .bool(false) }
        useCalibration(record)
        log.info("six-point calibration applied")
        emit(AgentEvent(type: .calibrationApplied, details: details, origins: [origin]))
    }

    /// - Parameter asker: whom it answers (who sent the action, or who started the failed run).
    private func rejectSixPoint(action: String?, for asker: CalibrationOrigin, reason: String,
                                running: CalibrationRun = .none, startedBy origin: CalibrationOrigin? = nil) {
        // The reasons are the agent's own sentences; a payload in one is escaped already.
        log.warning("calibrate_six_point\(action.map { " " + $0.escapedForLog } ?? "") refused: \(reason)")
        var details: [EventKey: JSONValue] = [.method: .string(CalibrationKind.sixPoint.rawValue), .reason: .string(reason)]
        if let action { details[.action] = .string(String(action.prefix(100))) }
        if let origin { details[.startedBy] = .string(origin.description) }
        details.merge(Self.runningDetails(running)) { $1 }
        emit(AgentEvent(type: .calibrationRejected, details: details, origins: [asker]))
    }

    /// `calibration_progress`'s details for the tumble: the face (its wire name, `+x` …), its
    /// state, the faces remaining and done, `fraction` while averaging, the sentence for the
    /// person, who started it, and `refused` when a face was just refused.
    static func progressDetails(_ progress: SixPointTumble.Progress, refused: String?,
                                startedBy origin: CalibrationOrigin) -> [EventKey: JSONValue] {
        var details: [EventKey: JSONValue] = [
            .method: .string(CalibrationKind.sixPoint.rawValue),
            .face: progress.face.map { .string($0.rawValue) } ?? .null,
            .state: .string(progress.state.rawValue),
            .remaining: .array(progress.remaining.map { .string($0.rawValue) }),
            .done: .array(progress.done.map { .string($0.rawValue) }),
            .message: .string(progress.message),
            .startedBy: .string(origin.description),
        ]
        if let fraction = progress.fraction { details[.fraction] = .number(fraction.rounded(toDecimals: 2)) }
        if let refused { details[.refused] = .string(refused) }
        return details
    }
}
