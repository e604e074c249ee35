import Configuration
import PlumbDomain

/// The tumble: each of the six faces once, in any order, then the least-squares fit.
struct SixPointProcedure {
    let session: CalibrationSession
    let seconds: Double
    /// A face further than this from an axis is refused (the device is not lying on a face).
    static let maxAngle = Angle(degrees: 10)

    func run(chip: CalibrationRecord.Chip) throws(CommandFailure) -> CalibrationRecord {
        let output = session.output
        var poses: [SixPointFit.Pose] = []
        // Without a terminal, a new face is only looked for once the device has moved since the
        // last one was taken; otherwise the face just measured would at once count again.
        var mustMoveFirst = false
        while poses.count < 6 {
            let remaining = Face.remaining(after: poses.map(\.face)).map(\.description).joined(separator: ", ")
            if session.interactive {
                try session.prompt("Lay the device still on a face (to do: \(remaining)).")
            } else if mustMoveFirst {
                output.error("waiting for the next face (to do: \(remaining))")
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
            output.error("\(face): still; averaging \(ParsedArguments.format(seconds)) s")
            guard let average = try session.average(seconds: seconds, label: face.description),
                  let pose = SixPointFit.Pose(face: face, average: average) else {
                output.error("\(face): moved while averaging; hold it still on the face")
                mustMoveFirst = false
                continue
            }
            poses.append(pose)
            mustMoveFirst = true
            let left = Face.remaining(after: poses.map(\.face))
            output.error("\(face): done, mean (\(Self.g(pose.mean))) g of \(pose.sampleCount) samples; "
                + (left.isEmpty ? "all six faces done" : "remaining: \(left.map(\.description).joined(separator: ", "))"))
        }
        let fit: SixPointFit
        do { fit = try SixPointFit(poses: poses) } catch { throw CommandFailure(error.description + " Nothing was saved.") }
        return CalibrationRecord(
            method: .sixPoint, chip: chip,
            residualMilliG: .init(rms: fit.residualRMSMilliG, max: fit.residualMaxMilliG),
            calibration: fit.calibration,
            faces: poses.map { CalibrationRecord.FaceMean(face: $0.face, mean: $0.mean, samples: $0.sampleCount) })
    }

    /// At a terminal a refused position is said and the person tries again; a script cannot
    /// correct itself, so without one the calibration ends.
    private func refuse(_ message: String) throws(CommandFailure) {
        guard session.interactive else { throw CommandFailure(message + " Nothing was saved.") }
        session.output.error("refused: " + message)
    }

    static func g(_ v: Vector3) -> String {
        [v.x, v.y, v.z].map { fixed($0, 5, signed: true) }.joined(separator: ", ")
    }
}

/// The machinist's reversal: one position, 180° about the vertical on the same spot, another.
///
/// How it combines with a stored calibration is ``CalibrationRecord/reversal(first:second:mount:base:chip:date:)``'s
/// to decide, shared with the agent's `calibrate_reversal`: the readings are corrected by the
/// stored calibration first, and the zero error found is folded into its offset.
struct ReversalProcedure {
    let session: CalibrationSession
    let seconds: Double
    let mount: Mount

    func run(chip: CalibrationRecord.Chip, base: CalibrationRecord?) throws(CommandFailure) -> CalibrationRecord {
        let calibration = base?.calibration ?? .identity
        let first = try reading(1, prompt: "Put the device on the spot, in its \(mount.name) position.")
        let second = try reading(2, prompt: "Turn the device 180° about the vertical on the same spot.")
        do {
            return try CalibrationRecord.reversal(first: calibration.apply(first), second: calibration.apply(second),
                                                  mount: mount, base: base, chip: chip).record
        } catch {
            throw CommandFailure("\(error) Nothing was saved.")
        }
    }

    /// One position's raw mean, in g. Without a terminal, the second waits for the device to
    /// move (the turn) and be still again.
    private func reading(_ position: Int, prompt: String) throws(CommandFailure) -> Vector3 {
        let output = session.output
        if session.interactive {
            try session.prompt(prompt)
        } else if position == 2 {
            output.error("waiting for the turn: " + prompt)
            try session.waitUntilMoved("the device to be turned 180° on the spot")
        }
        while true {
            _ = try session.waitUntilStill("the device to be still in position \(position)")
            output.error("position \(position): still; averaging \(ParsedArguments.format(seconds)) s")
            if let average = try session.average(seconds: seconds, label: "position \(position)"), let mean = average.mean {
                output.error("position \(position): done, mean (\(SixPointProcedure.g(mean))) g")
                return mean
            }
            output.error("position \(position): moved while averaging; hold it still")
        }
    }
}
