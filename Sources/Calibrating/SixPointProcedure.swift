import Geometry
import Level
import Persistence

/// The tumble: each of the six faces once, in any order, then the least-squares fit.
///
/// The one implementation of it: `plumb calibrate six-point` runs it with a terminal guide, the
/// accuracy benchmark with a recording guide against simulated chips.
public struct SixPointProcedure {
    public let session: CalibrationSession
    /// Seconds averaged per face.
    public let seconds: Double
    /// A face further than this from an axis is refused (the device is not lying on a face).
    public static let maxAngle = Angle(degrees: 10)

    public init(session: CalibrationSession, seconds: Double) {
        self.session = session
        self.seconds = seconds
    }

    /// Collects the six faces and fits them; the record says which chip it was.
    ///
    /// - Throws: ``CalibrationFailure``: the deadline passed, the sensor failed, a scripted
    ///   position was refused (a person at a terminal is told and tries again), or the fit failed.
    public func run(chip: CalibrationRecord.Chip) throws(CalibrationFailure) -> CalibrationRecord {
        let guide = session.guide
        var poses: [SixPointFit.Pose] = []
        // Without a terminal, a new face is only looked for once the device has moved since the
        // last one was taken; otherwise the face just measured would at once count again.
        var mustMoveFirst = false
        while poses.count < 6 {
            let remaining = Face.remaining(after: poses.map(\.face)).map(\.description).joined(separator: ", ")
            if session.isInteractive {
                try session.prompt("Lay the device still on a face (to do: \(remaining)).")
            } else if mustMoveFirst {
                guide.tell("waiting for the next face (to do: \(remaining))")
                try session.waitUntilMoved("the device to be turned to the next face (to do: \(remaining))")
            }
            let still = try session.waitUntilStill("the device to be still on a face (to do: \(remaining))")
            let face: Face
            do throws(SixPointFitError) {
                face = try Face.detect(still, maxAngle: Self.maxAngle)
                guard !poses.contains(where: { $0.face == face }) else { throw SixPointFitError(reason: .duplicateFace(face)) }
            } catch {
                try refuse(error.description)
                mustMoveFirst = true
                continue
            }
            guide.tell("\(face): still; averaging \(ProgressText.seconds(seconds)) s")
            guard let average = try session.average(seconds: seconds, label: face.description),
                  let pose = SixPointFit.Pose(face: face, average: average) else {
                guide.tell("\(face): moved while averaging; hold it still on the face")
                mustMoveFirst = false
                continue
            }
            poses.append(pose)
            mustMoveFirst = true
            let left = Face.remaining(after: poses.map(\.face))
            guide.tell("\(face): done, mean (\(ProgressText.g(pose.mean))) g of \(pose.sampleCount) samples; "
                + (left.isEmpty ? "all six faces done" : "remaining: \(left.map(\.description).joined(separator: ", "))"))
        }
        return try Self.record(fitting: poses, chip: chip)
    }

    /// The record of a tumble: the fit of `poses`, its residuals and the faces as measured,
    /// dated now. Shared with ``SixPointTumble``, so both drivers store the same record.
    ///
    /// - Throws: ``CalibrationFailure`` `.refused` when the fit refuses the poses; the message
    ///   says why and that nothing was saved.
    static func record(fitting poses: [SixPointFit.Pose], chip: CalibrationRecord.Chip)
        throws(CalibrationFailure) -> CalibrationRecord {
        let fit: SixPointFit
        do { fit = try SixPointFit(poses: poses) } catch {
            throw CalibrationFailure(.refused(error.description + " Nothing was saved."))
        }
        return CalibrationRecord(
            method: .sixPoint, chip: chip,
            residualMilliG: .init(rms: fit.residualRMSMilliG, max: fit.residualMaxMilliG),
            calibration: fit.calibration,
            faces: poses.map { CalibrationRecord.FaceMean(face: $0.face, mean: $0.mean, samples: $0.sampleCount) })
    }

    /// At a terminal a refused position is said and the person tries again; a script cannot
    /// correct itself, so without one the calibration ends.
    private func refuse(_ message: String) throws(CalibrationFailure) {
        guard session.isInteractive else { throw CalibrationFailure(.refused(message + " Nothing was saved.")) }
        session.guide.tell("refused: " + message)
    }
}
