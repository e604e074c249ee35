import Configuration
import Geometry
import Level
import Persistence

/// The first reading of a reversal, kept until the second.
struct ReversalFirstReading: Sendable, Hashable {
    /// The stable reading, device frame, in g, corrected by ``calibration``.
    var gravity: Vector3
    /// The calibration and mount in force when it was taken: the second reading must be taken
    /// under the same ones, or the two cannot be combined.
    var calibration: Calibration
    var mount: Mount
    /// Whether a reading since was not stable: the device was picked up and turned.
    var movedSince = false
}

/// Why the second step of a reversal made no calibration; ``reason`` says what to do.
enum ReversalRefusal: Error, Hashable, Sendable {
    /// `second` came without a `first`.
    case noFirstReading
    /// The calibration or the mount changed between the two: the first reading is dropped.
    case changedSinceFirst
    /// No reading since the first was unstable: the device cannot have been turned.
    case notTurned
    /// The two readings cannot be paired (``ReversalFailure``): the first reading is dropped.
    case unpaired(ReversalFailure)

    /// The sentence of the `calibration_rejected` event.
    var reason: String {
        switch self {
        case .noFirstReading:
            "there is no first reading: put the device on the spot and send first, turn it 180° about the vertical on"
                + " the same spot, then send second."
        case .changedSinceFirst:
            "the calibration or the mount changed since the first reading; start again with first."
        case .notTurned:
            "the device has not been turned since the first reading; turn it 180° about the vertical on the same spot,"
                + " let it settle, then send second."
        case .unpaired(let failure):
            failure.description + " Nothing was applied; start again with first."
        }
    }
}

/// A `calibrate_reversal` over MQTT between its two steps: the first reading, whether the device
/// has moved since, and whether a second reading pairs with it into a calibration.
///
/// A value type with no I/O: ``AgentCore`` feeds it readings and steps, and saves, applies and
/// announces what it makes.
struct ReversalSession: Sendable {
    /// The chip a calibration made here is recorded against when no stored record names one.
    let chip: CalibrationRecord.Chip
    /// The first reading of the reversal in progress; nil when none was taken.
    private(set) var first: ReversalFirstReading?

    init(chip: CalibrationRecord.Chip) {
        self.chip = chip
    }

    /// Notes a reading: one that is not stable shows a turn between the two steps.
    mutating func noteReading(stable: Bool) {
        if !stable { first?.movedSince = true }
    }

    /// `first`: keeps the stable reading `gravity`, taken under `calibration` and `mount`,
    /// replacing any earlier first reading.
    mutating func begin(gravity: Vector3, calibration: Calibration, mount: Mount) {
        first = ReversalFirstReading(gravity: gravity, calibration: calibration, mount: mount)
    }

    /// Drops the first reading: the reversal starts again with `first`.
    mutating func cancel() {
        first = nil
    }

    /// `second`: the calibration the first reading and the stable reading `second` make, refined
    /// from `base` (the record in force) and recorded against its chip or else ``chip``. The
    /// session is over when it succeeds.
    ///
    /// - Parameters:
    ///   - calibration, mount: Those in force now; they must be the first reading's.
    /// - Throws: ``ReversalRefusal``; the first reading stays only for ``ReversalRefusal/notTurned``
    ///   (turning the device now still completes the reversal).
    mutating func finish(second: Vector3, calibration: Calibration, mount: Mount, base: CalibrationRecord?)
        throws(ReversalRefusal) -> (record: CalibrationRecord, result: ReversalCalibration) {
        guard let first else { throw .noFirstReading }
        guard first.calibration == calibration, first.mount == mount else {
            self.first = nil
            throw .changedSinceFirst
        }
        guard first.movedSince else { throw .notTurned }
        // Over either way: readings that cannot be paired must both be taken again.
        self.first = nil
        do {
            return try CalibrationRecord.reversal(first: first.gravity, second: second, mount: first.mount, base: base,
                                                  chip: base?.chip ?? chip)
        } catch {
            throw .unpaired(error)
        }
    }
}
