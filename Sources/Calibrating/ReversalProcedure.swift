import Geometry
import Level
import Persistence

/// The machinist's reversal: one position, 180° about the vertical on the same spot, another.
///
/// How it combines with a stored calibration is ``CalibrationRecord/reversal(first:second:mount:base:chip:date:)``'s
/// to decide, shared with the agent's `calibrate_reversal`: the readings are corrected by the
/// stored calibration first, and the zero error found is folded into its offset.
///
/// The one implementation of it, for `plumb calibrate reversal` and the accuracy benchmark.
public struct ReversalProcedure {
    public let session: CalibrationSession
    /// Seconds averaged per position.
    public let seconds: Double
    /// Flat or upright: which horizontal axes the reversal measures.
    public let mount: Mount

    public init(session: CalibrationSession, seconds: Double, mount: Mount) {
        self.session = session
        self.seconds = seconds
        self.mount = mount
    }

    /// Takes the two positions and refines `base` (nil: the identity) by the zero error found.
    ///
    /// - Throws: ``CalibrationFailure``: the deadline passed, the sensor failed, or the two
    ///   readings cannot come from one spot turned about the vertical.
    public func run(chip: CalibrationRecord.Chip, base: CalibrationRecord?) throws(CalibrationFailure) -> CalibrationRecord {
        let calibration = base?.calibration ?? .identity
        let first = try reading(1, prompt: "Put the device on the spot, in its \(mount.name) position.")
        let second = try reading(2, prompt: "Turn the device 180° about the vertical on the same spot.")
        do {
            return try CalibrationRecord.reversal(first: calibration.apply(first), second: calibration.apply(second),
                                                  mount: mount, base: base, chip: chip).record
        } catch {
            throw CalibrationFailure(.refused("\(error) Nothing was saved."))
        }
    }

    /// One position's raw mean, in g. Without a terminal, the second waits for the device to
    /// move (the turn) and be still again.
    private func reading(_ position: Int, prompt: String) throws(CalibrationFailure) -> Vector3 {
        let guide = session.guide
        if session.isInteractive {
            try session.prompt(prompt)
        } else if position == 2 {
            guide.tell("waiting for the turn: " + prompt)
            try session.waitUntilMoved("the device to be turned 180° on the spot")
        }
        while true {
            _ = try session.waitUntilStill("the device to be still in position \(position)")
            guide.tell("position \(position): still; averaging \(ProgressText.seconds(seconds)) s")
            if let average = try session.average(seconds: seconds, label: "position \(position)"), let mean = average.mean {
                guide.tell("position \(position): done, mean (\(ProgressText.g(mean))) g")
                return mean
            }
            guide.tell("position \(position): moved while averaging; hold it still")
        }
    }
}
