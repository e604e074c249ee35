import Geometry
import Level
import Persistence

/// The six-face tumble driven from outside: the push-based twin of ``SixPointProcedure``, for the
/// agent, where samples are handed over block by block and the person (over MQTT or the control
/// socket) says `next` once the device lies on the next face.
///
/// Per face: `next` → **settling** until the device is still (the same ``StillnessJudge`` as
/// ``CalibrationSession``: a full second that holds the agent's `stable`) → the face is detected
/// from that second and refused at once if it is done already or not within
/// ``SixPointProcedure/maxAngle`` of an axis → **averaging** `secondsPerFace` of samples that stay
/// still (movement restarts settling) → **done**, and **waiting** for the next `next`. After the
/// sixth face the poses are fitted and recorded exactly as ``SixPointProcedure`` records them.
///
/// A pure value: no I/O, no threads, no clock; every time is passed in, in seconds of one
/// monotonic clock. The one exception is the record's `date`, stamped from the wall clock when
/// the sixth face is fitted, as ``SixPointProcedure`` stamps it. Not shared between threads while
/// mutated (it is a value: whoever holds it owns it).
public struct SixPointTumble: Sendable {
    /// The state of the face in hand, as `calibration_progress` reports it.
    public enum FaceState: String, Sendable, Hashable, CaseIterable {
        /// Waiting for the person to lay the device on a face and say `next`.
        case waiting
        /// Told `next`; waiting for the device to be still.
        case settling
        /// Still on a face; its mean is being taken.
        case averaging
        /// The face is measured.
        case done
    }

    /// Where the tumble stands.
    public struct Progress: Sendable, Hashable {
        /// The face being measured (averaging, done); while waiting, the face suggested next (the
        /// first remaining); nil while settling, before the face is known.
        public var face: Face?
        public var state: FaceState
        /// Faces not yet done, in the order of ``Face/allCases`` (+x, −x, +y, −y, +z, −z).
        public var remaining: [Face]
        /// Faces done, in the order they were measured.
        public var done: [Face]
        /// How far averaging has come, 0…1; nil in every other state.
        public var fraction: Double?
        /// One sentence for a person: what to do now, or what happened.
        public var message: String

        public init(face: Face?, state: FaceState, remaining: [Face], done: [Face], fraction: Double?, message: String) {
            self.face = face
            self.state = state
            self.remaining = remaining
            self.done = done
            self.fraction = fraction
            self.message = message
        }
    }

    /// What a call led to, in order.
    public enum Outcome: Sendable {
        /// The tumble moved on (or a harmless call was answered).
        case progress(Progress)
        /// All six faces fitted: the record to apply and save.
        case finished(CalibrationRecord)
        /// A face was refused (done already, not on a face, never still), or a call came when no
        /// tumble runs; the reason says what to do. A running tumble goes on, waiting again, and a
        /// `.progress` in state `waiting` follows.
        case refused(reason: String)
        /// The fit failed: the tumble is over, nothing is applied.
        case failed(reason: String)
    }

    private enum Phase: Hashable, Sendable {
        case notStarted, waiting, settling, averaging, over
    }

    /// Seconds of samples averaged per face.
    public let secondsPerFace: Double
    /// The chip the record names.
    public let chip: CalibrationRecord.Chip
    /// Seconds of settling after which a face is refused (the device never became still).
    public let settleTimeout: Double
    /// The rate the caller said the samples come at, in Hz; nil: estimated from their arrival.
    public let rateHz: Double?
    /// The chip's operating point at a rate: its offered rate nearest it and its noise there.
    private let operatingPoint: @Sendable (Double) -> OperatingPoint

    private var phase = Phase.notStarted
    private var poses: [SixPointFit.Pose] = []
    /// Since when the device has been settling, in seconds.
    private var settlingSince = 0.0
    /// The face being averaged.
    private var face: Face?
    private var average = GravityAverage()
    /// Samples wanted for the face being averaged.
    private var wanted = 1
    /// How many tenths of averaging progress have been reported.
    private var reportedTenths = 0
    /// Judges stillness; made at the rate known when settling begins.
    private var judge: StillnessJudge?
    private var rateEstimate = TumbleRateEstimate()

    /// A tumble not yet started.
    ///
    /// - Parameters:
    ///   - secondsPerFace: seconds averaged per face (`plumb calibrate`'s `--seconds`).
    ///   - chip: the chip the record names.
    ///   - settleTimeout: seconds of settling after `next` (or after moving while averaging)
    ///     before the face is refused.
    ///   - rateHz: the rate the samples come at, in Hz, when the caller knows it (the agent
    ///     does); nil estimates it from how many samples arrive how fast, snapped to a power of
    ///     two times 100 Hz (12.5–3200 Hz), which takes the first 0.3 s of samples after creation.
    ///   - operatingPoint: the chip's description at a rate (`ChipDescription.operatingPoint`):
    ///     the rate it offers nearest and its noise there, which stillness is judged against.
    public init(secondsPerFace: Double, chip: CalibrationRecord.Chip, settleTimeout: Double = 60, rateHz: Double? = nil,
                operatingPoint: @escaping @Sendable (Double) -> OperatingPoint) {
        self.secondsPerFace = secondsPerFace
        self.chip = chip
        self.settleTimeout = settleTimeout
        self.rateHz = rateHz.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        self.operatingPoint = operatingPoint
    }

    /// Whether the tumble has finished or failed; every call after that is refused.
    public var isOver: Bool { phase == .over }

    /// Where the tumble stands now; nil before ``start(at:)``.
    public var progress: Progress? {
        switch phase {
        case .notStarted: nil
        case .waiting: waitingProgress(TumbleText.layNextFace(remaining: remaining, first: poses.isEmpty))
        case .settling: progress(.settling, face: nil, message: TumbleText.settling)
        case .averaging: progress(.averaging, face: face, fraction: averagedFraction, message: TumbleText.averaging(face, averagedFraction))
        case .over: progress(.done, face: poses.last?.face, message: TumbleText.over)
        }
    }

    /// Starts the tumble afresh, forgetting any faces measured: waiting, suggesting the first face.
    public mutating func start(at time: Double) -> [Outcome] {
        poses = []
        face = nil
        judge = nil
        phase = .waiting
        return [.progress(waitingProgress(TumbleText.layNextFace(remaining: remaining, first: true)))]
    }

    /// The person says the device lies on a face now: settling begins. While settling or
    /// averaging it changes nothing and says so.
    public mutating func next(at time: Double) -> [Outcome] {
        switch phase {
        case .notStarted:
            return [.refused(reason: TumbleText.notStarted)]
        case .over:
            return [.refused(reason: TumbleText.over)]
        case .settling:
            return [.progress(progress(.settling, face: nil, message: TumbleText.alreadySettling))]
        case .averaging:
            return [.progress(progress(.averaging, face: face, fraction: averagedFraction,
                                       message: TumbleText.alreadyAveraging(face, averagedFraction)))]
        case .waiting:
            // Only what comes after `next` counts, as at a terminal after the person pressed return.
            if let rate = rateHz ?? rateEstimate.rateHz, judge?.chip != operatingPoint(rate) {
                judge = StillnessJudge(chip: operatingPoint(rate))
            }
            judge?.reset()
            beginSettling(at: time)
            return [.progress(progress(.settling, face: nil, message: TumbleText.settling))]
        }
    }

    /// Hands over raw device-frame samples in g (uncalibrated, oldest first) that arrived at
    /// `time`. Ignored, at the cost of counting them, unless settling or averaging.
    public mutating func add(_ samples: [Vector3], at time: Double) -> [Outcome] {
        if rateHz == nil { rateEstimate.add(samples: samples.count, at: time) }
        switch phase {
        case .notStarted, .waiting, .over:
            return []
        case .settling, .averaging:
            break
        }
        if judge == nil, let rate = rateHz ?? rateEstimate.rateHz {
            // The rate became known only now (the first samples came after `next`).
            judge = StillnessJudge(chip: operatingPoint(rate))
        }
        guard var judge else { return settleTimedOut(at: time) }
        var outcomes: [Outcome] = []
        defer { self.judge = judge }
        for sample in samples {
            if phase == .averaging, !sample.isFinite { continue }
            let measurement = judge.add(sample, at: time)
            if phase == .settling {
                guard let measurement, measurement.isStable else { continue }
                guard beginAveraging(on: measurement.deviceGravity, rateHz: judge.rateHz, into: &outcomes) else {
                    return outcomes
                }
                continue
            }
            average.add(sample)
            if let measurement, !measurement.isStable {
                beginSettling(at: time)
                outcomes.append(.progress(progress(.settling, face: nil, message: TumbleText.moved(face))))
                face = nil
                continue
            }
            if average.count >= wanted {
                finishFace(into: &outcomes)
                return outcomes
            }
        }
        if phase == .settling {
            outcomes += settleTimedOut(at: time)
        } else if phase == .averaging {
            let tenths = Int(averagedFraction * 10)
            if tenths > reportedTenths {
                reportedTenths = tenths
                outcomes.append(.progress(progress(.averaging, face: face, fraction: averagedFraction,
                                                   message: TumbleText.averaging(face, averagedFraction))))
            }
        }
        return outcomes
    }

    // MARK: Steps

    private var remaining: [Face] { Face.remaining(after: poses.map(\.face)) }

    private var averagedFraction: Double { min(1, Double(average.count) / Double(max(1, wanted))) }

    private mutating func beginSettling(at time: Double) {
        phase = .settling
        settlingSince = time
        average.reset()
    }

    /// The device is still with raw gravity `still`: the face it lies on is averaged, or refused
    /// (then false, and the tumble waits again).
    private mutating func beginAveraging(on still: Vector3, rateHz: Double, into outcomes: inout [Outcome]) -> Bool {
        let detected: Face
        do throws(SixPointFitError) {
            detected = try Face.detect(still, maxAngle: SixPointProcedure.maxAngle)
        } catch {
            refuse(TumbleText.notOnAFace(error), into: &outcomes)
            return false
        }
        guard !poses.contains(where: { $0.face == detected }) else {
            refuse(TumbleText.duplicate(detected, remaining: remaining), into: &outcomes)
            return false
        }
        phase = .averaging
        face = detected
        average.reset()
        wanted = max(1, Int((secondsPerFace * rateHz).rounded()))
        reportedTenths = 0
        outcomes.append(.progress(progress(.averaging, face: detected, fraction: 0,
                                           message: TumbleText.still(detected, seconds: secondsPerFace))))
        return true
    }

    private mutating func finishFace(into outcomes: inout [Outcome]) {
        guard let face, let pose = SixPointFit.Pose(face: face, average: average) else { return }
        poses.append(pose)
        self.face = nil
        outcomes.append(.progress(progress(.done, face: face, message: TumbleText.done(pose, remaining: remaining))))
        guard poses.count == 6 else {
            phase = .waiting
            outcomes.append(.progress(waitingProgress(TumbleText.layNextFace(remaining: remaining, first: false))))
            return
        }
        phase = .over
        do throws(CalibrationFailure) {
            outcomes.append(.finished(try SixPointProcedure.record(fitting: poses, chip: chip)))
        } catch {
            outcomes.append(.failed(reason: error.description))
        }
    }

    /// Settling for longer than ``settleTimeout`` refuses the face; nothing otherwise.
    private mutating func settleTimedOut(at time: Double) -> [Outcome] {
        guard phase == .settling, time - settlingSince > settleTimeout else { return [] }
        var outcomes: [Outcome] = []
        refuse(TumbleText.neverStill(afterSeconds: settleTimeout), into: &outcomes)
        return outcomes
    }

    private mutating func refuse(_ reason: String, into outcomes: inout [Outcome]) {
        phase = .waiting
        face = nil
        average.reset()
        outcomes.append(.refused(reason: reason))
        outcomes.append(.progress(waitingProgress(TumbleText.layNextFace(remaining: remaining, first: poses.isEmpty))))
    }

    // MARK: Progress

    private func progress(_ state: FaceState, face: Face?, fraction: Double? = nil, message: String) -> Progress {
        Progress(face: face, state: state, remaining: remaining, done: poses.map(\.face), fraction: fraction, message: message)
    }

    private func waitingProgress(_ message: String) -> Progress {
        progress(.waiting, face: remaining.first, message: message)
    }
}
