import Contract

/// The answer to the latest command or setting, as a person who pressed a button reads it:
/// `P/result`, retained, and Home Assistant's "Last result" sensor.
///
/// Every command's outcome is already an event on `P/event` (`zeroed`, `zero_rejected`,
/// `calibration_applied`, …), which a dashboard does not show; this is the same outcome, told as
/// one sentence. Derived from the event, so the two can never disagree. Events that answer no
/// press (the level, the alarm, the sensor, vibration, temperature, the six-point tumble's
/// settling and averaging steps, learning's periodic progress) have none.
///
/// JSON keys: `command` (`zero`, `clear_zero`, `config`, `calibrate_six_point`,
/// `calibrate_reversal`, `clear_calibration`, `selftest`, `learn_drift`), `ok` (whether it did
/// what was asked), `message` (what happened, and when refused, what to do), `event` (the
/// event's type) and `ts` (the event's).
struct CommandResult: Sendable, Equatable {
    var command: String
    var ok: Bool
    var message: String
    var event: EventType
    var ts: String

    /// The result `event` reports, or nil when it answers no command.
    init?(_ event: AgentEvent) {
        let details = event.details
        func text(_ key: EventKey) -> String? {
            if case .string(let value)? = details[key] { value } else { nil }
        }
        let command: String, ok: Bool, message: String
        switch event.type {
        case .zeroed:
            let cleared = details[.reference] == .null
            command = cleared ? Command.clearZero.rawValue : Command.zero.rawValue
            ok = true
            message = cleared ? "Zero cleared: readings are relative to the chip's own level again."
                : "Zeroed: this position now reads level."
        case .zeroRejected:
            (command, ok) = (Command.zero.rawValue, false)
            message = "Zero refused: " + (text(.reason) ?? "no reason given.")
        case .configApplied:
            (command, ok) = ("config", true)
            message = "Settings applied: " + Self.changes(details[.changes]) + "."
        case .configRejected:
            (command, ok) = ("config", false)
            let key = text(.key).map { "\($0): " } ?? ""
            message = "Setting refused: " + key + (text(.reason) ?? "no reason given.")
        case .calibrationProgress:
            // The steps a person takes: a reversal's first reading taken, the tumble waiting for
            // the next face. Settling and averaging are progress, not an answer.
            if text(.step) != nil {
                (command, ok) = (Command.calibrateReversal.rawValue, true)
                message = "Reversal: first reading taken. " + (text(.next) ?? "")
            } else if text(.state) == "waiting" {
                (command, ok) = (Command.calibrateSixPoint.rawValue, true)
                message = "Six-point calibration: " + (text(.message) ?? "lay the next face.")
            } else {
                return nil
            }
        case .calibrationApplied:
            command = text(.method) == "six_point" ? Command.calibrateSixPoint.rawValue : Command.calibrateReversal.rawValue
            ok = true
            message = "Calibration applied (" + (text(.method) ?? "unknown method") + ")."
                + (text(.drift).map { " " + $0 } ?? "")
        case .calibrationRejected:
            command = text(.method) == "six_point" ? Command.calibrateSixPoint.rawValue : Command.calibrateReversal.rawValue
            // A cancel did what was asked: ok, and said as a cancel, not a refusal.
            ok = details[.cancelled] == .bool(true)
            message = (ok ? "Calibration cancelled: " : "Calibration refused: ") + (text(.reason) ?? "no reason given.")
        case .calibrationCleared:
            (command, ok) = (Command.clearCalibration.rawValue, true)
            message = "Calibration cleared: the chip reads raw."
        case .selftest:
            command = Command.selftest.rawValue
            switch details[.passed] {
            case .bool(true)?:
                ok = true
                message = "Self-test passed."
            case .bool(false)?:
                ok = false
                message = "Self-test failed: an axis moved outside the datasheet's limits; check the chip and its wiring."
            default:
                ok = false
                message = "Self-test could not run: " + (text(.error) ?? "no reason given.")
            }
        case .driftProgress:
            guard text(.state) == "started" else { return nil }
            (command, ok) = (Command.learnDrift.rawValue, true)
            message = "Learning drift: started. Leave the machine still; stop when it has covered 3 °C or more."
        case .driftLearned:
            (command, ok) = (Command.learnDrift.rawValue, true)
            message = "Drift learned and applied."
        case .driftRejected:
            command = Command.learnDrift.rawValue
            // `cancel` ending a session did what was asked; a cancel with none under way did not.
            ok = details[.cancelled] == .bool(true)
            message = "Learn drift: " + (text(.reason) ?? "refused.")
        case .levelEntered, .levelLeft, .alarmRaised, .alarmCleared, .sensorFault, .sensorRecovered, .runningStarted,
             .runningStopped, .zoneChanged, .temperatureRejected:
            return nil
        }
        self.command = command
        self.ok = ok
        // Applied, but the state directory could not be written: it lasts until the next restart.
        self.message = details[.persisted] == .bool(false)
            ? message + " It could not be saved, so it is lost at the next restart; the log says why." : message
        self.event = event.type
        self.ts = event.ts
    }

    /// `level_tolerance 0.2, angle_unit mm_per_m`: the keys changed, with their new values.
    private static func changes(_ value: JSONValue?) -> String {
        guard case .object(let changes)? = value, !changes.isEmpty else { return "nothing changed" }
        return changes.keys.sorted().map { key in
            let shown: String = switch changes[key] {
            case .string(let text)?: text
            case let other?: String(decoding: other.bytes, as: UTF8.self)
            case nil: ""
            }
            return key + " " + shown
        }.joined(separator: ", ")
    }

    /// The `P/result` message.
    var payload: [UInt8] {
        JSONValue.object([
            "command": .string(command), "ok": .bool(ok), "message": .string(message),
            "event": .string(event.rawValue), "ts": .string(ts),
        ]).bytes
    }
}
