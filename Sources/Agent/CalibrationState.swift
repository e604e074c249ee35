import Calibrating
import Configuration
import Geometry
import Level
import Persistence

/// Who started a calibration: whoever it was may drive and cancel it, and a second start from
/// anyone is refused with a sentence that names them.
public enum CalibrationOrigin: Sendable, Hashable, CustomStringConvertible {
    /// A command on `P/command/…` (Home Assistant's buttons, any MQTT client).
    case mqtt
    /// `plumb calibrate` on the local control socket; `client` is its connection's number.
    case controlSocket(client: Int)

    /// `mqtt` or `plumb calibrate`: the wire name in events (`started_by`) and sentences.
    public var description: String {
        switch self {
        case .mqtt: "mqtt"
        case .controlSocket: "plumb calibrate"
        }
    }
}

/// The two calibrations the agent runs, by their wire names (`method` in events).
enum CalibrationKind: String, Sendable, Hashable {
    case reversal
    case sixPoint = "six_point"

    /// For sentences: `reversal calibration`, `six-point calibration`.
    var name: String {
        switch self {
        case .reversal: "reversal calibration"
        case .sixPoint: "six-point calibration"
        }
    }
}

/// The calibration in progress, one at a time whoever started it.
enum CalibrationRun: Sendable {
    /// None.
    case none
    /// A `calibrate_reversal` between its two steps: its first reading is held.
    case reversal(ReversalSession, origin: CalibrationOrigin)
    /// A six-point tumble, fed every raw sample batch until it is over.
    case sixPoint(SixPointTumble, origin: CalibrationOrigin)

    var kind: CalibrationKind? {
        switch self {
        case .none: nil
        case .reversal: .reversal
        case .sixPoint: .sixPoint
        }
    }

    var origin: CalibrationOrigin? {
        switch self {
        case .none: nil
        case .reversal(_, let origin), .sixPoint(_, let origin): origin
        }
    }
}

/// The calibration in force and the one in progress, with the decisions about them: who may
/// start or drive what. A value with no I/O; ``AgentCore`` saves, applies and announces.
struct CalibrationState: Sendable {
    /// The calibration in force (`calibration.json`, or one made here); nil for none.
    var record: CalibrationRecord?
    /// The chip a calibration made here is recorded against: the one expected, then the one
    /// the sampler's probe found.
    var chip: CalibrationRecord.Chip
    /// The calibration in progress.
    var run = CalibrationRun.none
    /// The temperatures seen while a tumble runs: its record is made at their mean.
    var tumbleCelsius = RunningMean()

    init(record: CalibrationRecord?, chip: CalibrationRecord.Chip) {
        self.record = record
        self.chip = chip
    }

    /// The chip's correction in force: the record's, or ``Calibration/identity`` without one.
    var calibration: Calibration { record?.calibration ?? .identity }

    /// Why `origin` may not start (or, for a reversal, take a step of) a calibration of `kind`
    /// now; nil when it may. A reversal's `first` again from its own origin restarts it, as it
    /// always has; everything else waits for the calibration in progress to end.
    func refusal(_ kind: CalibrationKind, from origin: CalibrationOrigin) -> String? {
        switch run {
        case .none:
            return nil
        case .reversal(_, let holder) where kind == .reversal && holder == origin:
            return nil
        case .reversal(_, let holder):
            return "a reversal calibration is in progress, started by \(holder) (its first reading is held): finish it"
                + " with second on calibrate_reversal, or drop it with cancel on calibrate_six_point, then try again."
        case .sixPoint(_, let holder):
            return "a six-point calibration is running, started by \(holder): finish it, or end it with cancel on"
                + " calibrate_six_point, then try again."
        }
    }

    /// The reversal session for a step from `origin`: the one held, or a fresh one.
    func reversalSession() -> ReversalSession {
        if case .reversal(let session, _) = run { return session }
        return ReversalSession(chip: chip)
    }

    /// Keeps `session` as the reversal in progress while it holds a first reading, else none.
    mutating func keep(_ session: ReversalSession, origin: CalibrationOrigin) {
        run = session.first != nil ? .reversal(session, origin: origin) : .none
    }

    /// Notes a reading: one that is not stable shows a turn between a reversal's two steps.
    mutating func noteReading(stable: Bool) {
        guard case .reversal(var session, let origin) = run else { return }
        session.noteReading(stable: stable)
        run = .reversal(session, origin: origin)
    }

    /// Drops a reversal in progress: its first reading cannot pair with one corrected another
    /// way. A tumble measures raw samples, so a new calibration in force leaves it running.
    mutating func dropReversal() {
        if case .reversal = run { run = .none }
    }

    /// Ends whatever runs when `origin` started it; returns what ended.
    mutating func end(startedBy origin: CalibrationOrigin) -> CalibrationKind? {
        guard let kind = run.kind, run.origin == origin else { return nil }
        run = .none
        return kind
    }
}

/// A mean kept one value at a time.
struct RunningMean: Sendable, Equatable {
    private(set) var count = 0
    private var sum = 0.0

    mutating func add(_ value: Double) {
        count += 1
        sum += value
    }

    /// nil before the first value.
    var mean: Double? { count > 0 ? sum / Double(count) : nil }
}
