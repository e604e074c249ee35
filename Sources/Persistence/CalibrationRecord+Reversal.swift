import Geometry
import Level

/// Why a reversal could not make a calibration. Nothing was applied or saved; the
/// ``description`` says what to do.
public enum ReversalFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The two readings cannot come from one spot turned about the vertical.
    case readings(ReversalError)
    /// The zero error found, folded into the calibration, would make an implausible one.
    case implausible(CalibrationError)

    public var description: String {
        switch self {
        case .readings(let error): error.description
        case .implausible(let error): error.description
        }
    }
}

extension CalibrationRecord {
    /// The record a reversal makes on top of `base`, the calibration in force when both readings
    /// were taken (nil for none), with what the reversal found.
    ///
    /// **How it combines with a stored calibration.** The readings are corrected by `base`
    /// already, so the zero error found is what remains on top of it; it is folded into that
    /// calibration's offset (``Calibration/shifted(by:limits:)``), keeping its matrix. A tumble
    /// followed by a reversal is stored as `six_point+reversal`, with the tumble's residual and
    /// faces kept. Without a stored tumble the matrix is the identity and the method `reversal`; a
    /// second reversal refines the first the same way. A drift model, the calibration's temperature
    /// and its tumbles at several temperatures are kept. `plumb calibrate reversal` and the agent's
    /// `calibrate_reversal` command both make their record here, so the two cannot disagree.
    ///
    /// - Parameters:
    ///   - first: The mean reading in the first position, device frame, in g, corrected by `base`.
    ///   - second: The same after the turn.
    ///   - mount: The mount both readings were taken in (`flat` or `upright`).
    ///   - chip: The chip calibrated.
    /// - Throws: ``ReversalFailure``.
    public static func reversal(first: Vector3, second: Vector3, mount: Mount, base: CalibrationRecord?,
                                chip: Chip, date: String = CalibrationRecord.timestamp())
        throws(ReversalFailure) -> (record: CalibrationRecord, result: ReversalCalibration) {
        let calibration = base?.calibration ?? .identity
        let result: ReversalCalibration
        let refined: Calibration
        do {
            result = try ReversalCalibration(first: first, second: second, mount: mount)
        } catch {
            throw .readings(error)
        }
        do {
            refined = try calibration.shifted(by: result.zeroOffset)
        } catch {
            throw .implausible(error)
        }
        let tumbled = base.map { $0.method == .sixPoint || $0.method == .sixPointAndReversal } ?? false
        let record = CalibrationRecord(
            method: tumbled ? .sixPointAndReversal : .reversal, date: date, chip: chip,
            residualMilliG: tumbled ? base?.residualMilliG : nil, calibration: refined,
            faces: tumbled ? base?.faces : nil, reversal: .init(result),
            // The drift belongs to the part, not to its zero: it carries over, and so do the
            // temperature the calibration holds at and the tumbles behind it.
            temperatureC: base?.temperatureC, benchPoints: base?.benchPoints, drift: base?.drift)
        return (record, result)
    }
}
