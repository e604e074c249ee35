import Configuration
import PlumbDomain

/// The calibration in force and the calibration in progress. A value with no I/O.
struct CalibrationState: Sendable {
    /// The calibration in force (`calibration.json`, or one made here); nil for none.
    var record: CalibrationRecord?
    /// A `calibrate_reversal` between its two steps.
    var reversal: ReversalSession

    init(record: CalibrationRecord?, chip: CalibrationRecord.Chip) {
        self.record = record
        reversal = ReversalSession(chip: chip)
    }

    /// The chip's correction in force: the record's, or ``Calibration/identity`` without one.
    var calibration: Calibration { record?.calibration ?? .identity }
}
