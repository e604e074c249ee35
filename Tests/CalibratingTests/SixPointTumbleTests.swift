import Accelerometers
@testable import Calibrating
import Geometry
import Level
import Persistence
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An uncalibrated chip: raw = A · g + b + noise, the noise the ADXL345's at its rate, seeded.
struct SyntheticChip {
    var sensitivity = Matrix3(rows: Vector3(x: 1.021, y: 0.006, z: -0.004),
                              Vector3(x: -0.005, y: 0.987, z: 0.008),
                              Vector3(x: 0.003, y: -0.007, z: 1.032))
    var offset = Vector3(x: 0.031, y: -0.022, z: 0.038)
    var rateHz = 100.0
    var rng = SplitMix64(seed: 18)

    /// The noise-free reading of true gravity `g` (device frame, g).
    func reading(_ g: Vector3) -> Vector3 { sensitivity * g + offset }

    mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
        let u2 = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    mutating func sample(_ g: Vector3, extraNoise: Double = 0) -> Vector3 {
        let sigma = ADXL345Noise.expectedRMS(odrHz: rateHz) + Vector3(x: extraNoise, y: extraNoise, z: extraNoise)
        return reading(g) + Vector3(x: gaussian() * sigma.x, y: gaussian() * sigma.y, z: gaussian() * sigma.z)
    }
}

/// Pushes a chip's samples into a tumble as the agent does: a block every 0.1 s.
struct TumbleDriver {
    var tumble: SixPointTumble
    var chip: SyntheticChip
    var time = 1000.0
    /// Samples pushed so far, for dealing them out at the chip's rate in 0.1 s blocks.
    private var pushed = 0
    private var started = 1000.0
    /// Every sample pushed since the last ``markFace()``, per face marked.
    var lastSamples: [Vector3] = []
    /// The record the last ``measure(_:seconds:)`` finished with.
    var lastRecord: CalibrationRecord?

    static let chipName = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5")

    /// - Parameter rateGiven: whether the tumble is told the chip's rate, or estimates it.
    init(chip: SyntheticChip = SyntheticChip(), secondsPerFace: Double = 2, settleTimeout: Double = 60,
         rateGiven: Bool = true) {
        self.chip = chip
        tumble = SixPointTumble(secondsPerFace: secondsPerFace, chip: Self.chipName, settleTimeout: settleTimeout,
                                rateHz: rateGiven ? chip.rateHz : nil,
                                operatingPoint: { ADXL345.description.operatingPoint(rateHz: $0) })
    }

    mutating func start() -> [SixPointTumble.Outcome] { tumble.start(at: time) }

    /// A tumble started and told next: settling on its first face.
    static func settling(settleTimeout: Double = 60) -> TumbleDriver {
        var driver = TumbleDriver(settleTimeout: settleTimeout)
        _ = driver.start()
        _ = driver.next()
        return driver
    }
    mutating func next() -> [SixPointTumble.Outcome] { tumble.next(at: time) }

    /// One block of 0.1 s at true gravity `g`.
    mutating func block(_ g: Vector3, extraNoise: Double = 0) -> [SixPointTumble.Outcome] {
        time += 0.1
        let due = Int(((time - started) * chip.rateHz).rounded(.down))
        var samples: [Vector3] = []
        while pushed < due {
            samples.append(chip.sample(g, extraNoise: extraNoise))
            pushed += 1
        }
        lastSamples += samples
        return tumble.add(samples, at: time)
    }

    /// `seconds` of blocks at `g`; stops early after a block whose outcomes satisfy `until`.
    mutating func feed(_ g: Vector3, seconds: Double, extraNoise: Double = 0,
                       until: ([SixPointTumble.Outcome]) -> Bool = { _ in false }) -> [SixPointTumble.Outcome] {
        var all: [SixPointTumble.Outcome] = []
        for _ in 0..<Int((seconds * 10).rounded()) {
            let outcomes = block(g, extraNoise: extraNoise)
            all += outcomes
            if until(outcomes) { break }
        }
        return all
    }

    /// Says next and feeds `g` until that face is done (or refused, finished, failed).
    mutating func measure(_ face: Face, seconds: Double = 6) -> [SixPointTumble.Outcome] {
        lastSamples = []
        let outcomes = next() + feed(face.gravity, seconds: seconds) { outcomes in
            outcomes.contains { $0.isTerminalForFace }
        }
        lastRecord = outcomes.record
        return outcomes
    }
}

extension SixPointTumble.Outcome {
    var progress: SixPointTumble.Progress? { if case let .progress(p) = self { p } else { nil } }
    var record: CalibrationRecord? { if case let .finished(r) = self { r } else { nil } }
    var refusal: String? { if case let .refused(reason) = self { reason } else { nil } }
    var failure: String? { if case let .failed(reason) = self { reason } else { nil } }
    /// A face ended: done, refused, or the tumble ended.
    var isTerminalForFace: Bool {
        progress?.state == .done || refusal != nil || record != nil || failure != nil
    }
}

extension [SixPointTumble.Outcome] {
    var progresses: [SixPointTumble.Progress] { compactMap(\.progress) }
    var refusals: [String] { compactMap(\.refusal) }
    var record: CalibrationRecord? { compactMap(\.record).first }
    var failure: String? { compactMap(\.failure).first }
}

/// A direction `degrees` from +z towards +x.
func tiltedFromPlusZ(_ degrees: Double) -> Vector3 {
    let r = degrees * .pi / 180
    return Vector3(x: sin(r), y: 0, z: cos(r))
}

func maxAbs(_ v: Vector3) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

@Suite("SixPointTumble")
struct SixPointTumbleTests {
    static let scrambled: [Face] = [.minusZ, .plusX, .plusY, .minusX, .plusZ, .minusY]

    /// A whole tumble in a scrambled order; the outcomes of every call and each face's samples.
    static func tumble(_ driver: inout TumbleDriver) -> (outcomes: [SixPointTumble.Outcome], samples: [[Vector3]]) {
        var outcomes = driver.start()
        var samples: [[Vector3]] = []
        for face in scrambled {
            outcomes += driver.measure(face)
            samples.append(driver.lastSamples)
        }
        return (outcomes, samples)
    }

    @Test("a whole tumble in scrambled order recovers the chip's offsets and gains, as SixPointFit does on the same samples",
          arguments: [(100.0, true), (100, false), (12.5, false), (800, false), (3200, true)])
    func wholeTumble(rateHz: Double, rateGiven: Bool) throws {
        var chip = SyntheticChip()
        chip.rateHz = rateHz
        var driver = TumbleDriver(chip: chip, rateGiven: rateGiven)
        // The agent's samples flow from before the start, so an unknown rate is known by `next`.
        _ = driver.feed(Face.minusZ.gravity, seconds: 1)
        let (outcomes, samples) = Self.tumble(&driver)
        let record = try #require(outcomes.record, "outcomes: \(outcomes.refusals) \(outcomes.progresses.map(\.message))")
        #expect(outcomes.refusals.isEmpty)
        #expect(outcomes.failure == nil)
        #expect(driver.tumble.isOver)
        #expect(record.method == .sixPoint)
        #expect(record.chip == TumbleDriver.chipName)
        #expect(record.faces?.map(\.face) == Self.scrambled)
        let wanted = Int((2 * rateHz).rounded())
        #expect(record.faces?.allSatisfy { $0.samples == wanted } == true)
        let residual = try #require(record.residualMilliG)
        #expect(residual.rms < 1 && residual.max < 1.5)

        // The chip's own errors, found: offset within 1 mg, the matrix undoing the gains.
        let calibration = record.calibration
        #expect(maxAbs(calibration.offset - chip.offset) < 0.001)
        let undone = calibration.matrix * chip.sensitivity
        for i in 0..<3 {
            for j in 0..<3 { #expect(abs(undone[i, j] - (i == j ? 1 : 0)) < 0.002) }
        }
        // The same as SixPointFit on each face's samples (all of them, settling included, so
        // only within noise) and exactly the procedure's record of the tumble's own means.
        let poses = zip(Self.scrambled, samples).map { SixPointFit.Pose(face: $0, average: GravityAverage($1))! }
        let direct = try SixPointFit(poses: poses)
        #expect(maxAbs(calibration.offset - direct.calibration.offset) < 0.0005)
        let ownPoses = try #require(record.faces).map {
            SixPointFit.Pose(face: $0.face, mean: Vector3(x: $0.meanG[0], y: $0.meanG[1], z: $0.meanG[2]), sampleCount: $0.samples)
        }
        var procedure = try SixPointProcedure.record(fitting: ownPoses, chip: TumbleDriver.chipName)
        procedure.date = record.date
        #expect(procedure == record)
    }

    @Test("averaging reports fractions from 0, rising, about every 10 %, and each face ends done")
    func progressFractionsMonotonic() throws {
        var driver = TumbleDriver()
        var outcomes = driver.start()
        for face in Self.scrambled {
            let faceOutcomes = driver.measure(face)
            outcomes += faceOutcomes
            let averaging = faceOutcomes.progresses.filter { $0.state == .averaging }
            let fractions = averaging.compactMap(\.fraction)
            #expect(fractions.count == averaging.count)
            #expect(fractions.first == 0)
            #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $1 >= $0 + 0.099 }, "\(fractions)")
            #expect((9...11).contains(fractions.count), "\(fractions)")
            #expect(fractions.allSatisfy { (0...1).contains($0) })
            #expect(averaging.allSatisfy { $0.face == face })
            let done = try #require(faceOutcomes.progresses.first { $0.state == .done })
            #expect(done.face == face && done.fraction == nil)
            #expect(done.done.last == face)
        }
        #expect(outcomes.record != nil)
    }

    @Test("start waits, suggests the first face and lists all six; next settles")
    func startWaits() throws {
        var driver = TumbleDriver()
        let started = try #require(driver.start().progresses.first)
        #expect(started.state == .waiting)
        #expect(started.face == .plusX)
        #expect(started.remaining == Face.allCases)
        #expect(started.done.isEmpty)
        #expect(started.fraction == nil)
        #expect(started.message.contains("say next"))
        let settling = try #require(driver.next().progresses.first)
        #expect(settling.state == .settling)
        #expect(settling.face == nil)
    }

    @Test("a face done already is refused with what to do, and the tumble waits and goes on")
    func duplicateFaceRefused() throws {
        var driver = TumbleDriver()
        _ = driver.start()
        #expect(driver.measure(.plusZ).progresses.contains { $0.state == .done && $0.face == .plusZ })
        let again = driver.measure(.plusZ)
        let reason = try #require(again.refusals.first)
        #expect(reason.contains("+z up") && reason.contains("done already") && reason.contains("say next"))
        let waiting = try #require(again.progresses.last)
        #expect(waiting.state == .waiting)
        #expect(waiting.done == [.plusZ])
        #expect(!waiting.remaining.contains(.plusZ))
        #expect(!again.progresses.contains { $0.state == .averaging })
        #expect(!driver.tumble.isOver)
        // Samples now are ignored; the next face after `next` is measured.
        #expect(driver.feed(Face.plusZ.gravity, seconds: 2).isEmpty)
        #expect(driver.measure(.minusY).progresses.contains { $0.state == .done && $0.face == .minusY })
    }

    @Test("a pose 30° from an axis is refused as not lying on a face, nothing measured")
    func tiltedRefused() throws {
        var driver = TumbleDriver()
        _ = driver.start()
        let outcomes = driver.next() + driver.feed(tiltedFromPlusZ(30), seconds: 4) { $0.contains { $0.refusal != nil } }
        let reason = try #require(outcomes.refusals.first)
        #expect(reason.contains("from lying on a face") && reason.contains("say next"))
        #expect(outcomes.progresses.last?.state == .waiting)
        #expect(outcomes.progresses.last?.done == [])
        #expect(!outcomes.progresses.contains { $0.state == .averaging })
        // 8° is within SixPointProcedure.maxAngle: measured as +z.
        let near = driver.next() + driver.feed(tiltedFromPlusZ(8), seconds: 5) { $0.contains(where: \.isTerminalForFace) }
        #expect(near.refusals.isEmpty)
        #expect(near.progresses.last?.done == [.plusZ])
    }

    @Test("moving while averaging says so, settles again, and averages only the new stillness")
    func motionDuringAveragingRestartsSettling() throws {
        var driver = TumbleDriver()
        _ = driver.start()
        var outcomes = driver.next()
        outcomes += driver.feed(Face.plusZ.gravity, seconds: 3) { $0.progresses.contains { $0.state == .averaging } }
        outcomes += driver.feed(Face.plusZ.gravity, seconds: 0.5)
        #expect(outcomes.progresses.last?.state == .averaging)
        // Nudged 4° (still +z up) halfway through.
        let nudged = tiltedFromPlusZ(4)
        let moved = driver.feed(nudged, seconds: 0.3)
        let restart = try #require(moved.progresses.first { $0.state == .settling })
        #expect(restart.message.contains("moved while averaging"))
        #expect(restart.fraction == nil)
        let rest = driver.feed(nudged, seconds: 6) { $0.contains(where: \.isTerminalForFace) }
        let fractions = rest.progresses.filter { $0.state == .averaging }.compactMap(\.fraction)
        #expect(fractions.first == 0)
        #expect(rest.progresses.last?.done == [.plusZ])
        // The mean is of the nudged pose alone: mixing in the first would pull x ≈ 35 mg away.
        for face in [Face.minusZ, .plusX, .minusX, .plusY, .minusY] { _ = driver.measure(face) }
        let record = try #require(driver.lastRecord)
        let plusZ = try #require(record.faces?.first { $0.face == .plusZ })
        let expected = driver.chip.reading(nudged)
        #expect(abs(plusZ.meanG[0] - expected.x) < 0.001, "\(plusZ.meanG) vs \(expected)")
        #expect(abs(plusZ.meanG[2] - expected.z) < 0.001)
    }

    @Test("next while averaging changes nothing and says so: the face completes on the first schedule")
    func nextWhileAveragingHarmless() throws {
        var driver = TumbleDriver.settling()
        _ = driver.feed(Face.plusX.gravity, seconds: 3) { $0.progresses.contains { $0.state == .averaging } }
        _ = driver.feed(Face.plusX.gravity, seconds: 1)
        let before = try #require(driver.tumble.progress)
        let answer = try #require(driver.next().progresses.first)
        #expect(answer.state == .averaging)
        #expect(answer.face == .plusX)
        #expect(answer.fraction == before.fraction)
        #expect(answer.message.contains("nothing restarted"))
        #expect(driver.tumble.progress == before)
        // 1 s of the 2 s is left: done within it, not 2 s later.
        let rest = driver.feed(Face.plusX.gravity, seconds: 1.1) { $0.contains(where: \.isTerminalForFace) }
        #expect(rest.progresses.last?.done == [.plusX])
        #expect(!rest.progresses.contains { $0.state == .settling })
    }

    @Test("next while settling changes nothing and says so: it does not restart the settle timeout")
    func nextWhileSettlingHarmless() throws {
        var driver = TumbleDriver.settling(settleTimeout: 5)
        let shaking = driver.feed(Face.plusY.gravity, seconds: 3, extraNoise: 0.05)
        #expect(shaking.isEmpty)
        let answer = try #require(driver.next().progresses.first)
        #expect(answer.state == .settling)
        #expect(answer.message.contains("nothing restarted"))
        // Refused 5 s after the first next, not after the second.
        let more = driver.feed(Face.plusY.gravity, seconds: 2.5, extraNoise: 0.05)
        #expect(more.refusals.count == 1)
    }

    @Test("samples before start and while waiting are ignored: only what follows next is judged and averaged")
    func samplesIgnoredUntilNext() throws {
        var driver = TumbleDriver()
        #expect(driver.feed(Face.plusX.gravity, seconds: 2).isEmpty)
        #expect(driver.tumble.progress == nil)
        _ = driver.start()
        // Long still on −z while waiting: neither stillness nor samples carry over.
        #expect(driver.feed(Face.minusZ.gravity, seconds: 5).isEmpty)
        #expect(driver.tumble.progress?.state == .waiting)
        _ = driver.next()
        var blocks = 0
        var outcomes: [SixPointTumble.Outcome] = []
        while !outcomes.progresses.contains(where: { $0.state == .averaging }), blocks < 50 {
            outcomes += driver.block(Face.minusZ.gravity)
            blocks += 1
        }
        // A full second's window after next, not at once on the stillness seen while waiting.
        #expect(blocks >= StillnessJudge.windowBlocks)
        #expect(outcomes.progresses.last?.face == .minusZ)
        // Waiting again after −z: +x samples while waiting do not reach the +y that follows.
        _ = driver.feed(Face.minusZ.gravity, seconds: 3) { $0.contains(where: \.isTerminalForFace) }
        #expect(driver.feed(Face.plusX.gravity, seconds: 3).isEmpty)
        _ = driver.measure(.plusY)
        for face in [Face.plusX, .minusX, .minusY, .plusZ] { _ = driver.measure(face) }
        let record = try #require(driver.lastRecord)
        let plusY = try #require(record.faces?.first { $0.face == .plusY })
        #expect(abs(plusY.meanG[0] - driver.chip.reading(Face.plusY.gravity).x) < 0.001)
        #expect(plusY.samples == 200)
    }

    @Test("a device never still within settleTimeout is refused with advice, and the tumble waits and goes on")
    func settleTimeout() throws {
        var driver = TumbleDriver.settling(settleTimeout: 3)
        let outcomes = driver.feed(Face.plusX.gravity, seconds: 4, extraNoise: 0.05)
        #expect(outcomes.refusals.count == 1)
        let reason = try #require(outcomes.refusals.first)
        #expect(reason.contains("not still within 3 s") && reason.contains("say next"))
        #expect(outcomes.progresses.last?.state == .waiting)
        #expect(!driver.tumble.isOver)
        // Refused at 3 s, not before.
        var early = TumbleDriver.settling(settleTimeout: 3)
        #expect(early.feed(Face.plusX.gravity, seconds: 2.9, extraNoise: 0.05).isEmpty)
        // And then it goes on.
        #expect(driver.measure(.plusX).progresses.last?.done == [.plusX])
    }

    @Test("a fit that fails ends the tumble as failed, saying nothing was saved; calls after it are refused")
    func fitFailure() throws {
        var chip = SyntheticChip()
        // Every face reads 1.4 g: each face is found, but the fit refuses a chip that far off.
        chip.sensitivity = Matrix3(diagonal: Vector3(x: 1.4, y: 1.4, z: 1.4))
        var driver = TumbleDriver(chip: chip)
        let outcomes = Self.tumble(&driver).outcomes
        #expect(outcomes.record == nil)
        let reason = try #require(outcomes.failure)
        #expect(reason.contains("not about 1 g") && reason.contains("Nothing was saved"))
        #expect(outcomes.progresses.filter { $0.state == .done }.count == 6)
        #expect(driver.tumble.isOver)
        #expect(driver.next().refusals.first?.contains("over") == true)
        #expect(driver.feed(Face.plusX.gravity, seconds: 1).isEmpty)
    }

    @Test("isOver only after finished or failed; a refusal and a waiting tumble are not over; start begins afresh")
    func isOver() throws {
        var driver = TumbleDriver()
        #expect(!driver.tumble.isOver)
        #expect(driver.next().refusals.first?.contains("start one first") == true)
        #expect(!driver.tumble.isOver)
        _ = driver.start()
        _ = driver.measure(.plusZ)
        _ = driver.measure(.plusZ)
        #expect(!driver.tumble.isOver)
        for face in [Face.minusZ, .plusX, .minusX, .plusY, .minusY] {
            #expect(!driver.tumble.isOver)
            _ = driver.measure(face)
        }
        #expect(driver.lastRecord != nil)
        #expect(driver.tumble.isOver)
        let again = try #require(driver.start().progresses.first)
        #expect(!driver.tumble.isOver)
        #expect(again.remaining == Face.allCases && again.done.isEmpty)
    }

    @Test("an unknown rate is estimated from the blocks' arrival and snapped to an ADXL345 rate")
    func rateEstimate() {
        for rate in [12.5, 25, 50, 100, 200, 400, 800, 1600, 3200] {
            #expect(TumbleRateEstimate.snapped(rate * 1.2) == rate)
            #expect(TumbleRateEstimate.snapped(rate * 0.85) == rate)
        }
        #expect(TumbleRateEstimate.snapped(1) == 12.5)
        #expect(TumbleRateEstimate.snapped(100_000) == 3200)
        var estimate = TumbleRateEstimate()
        estimate.add(samples: 10, at: 0)
        estimate.add(samples: 9, at: 0.1)
        #expect(estimate.rateHz == nil)
        estimate.add(samples: 11, at: 0.2)
        estimate.add(samples: 10, at: 0.3)
        #expect(estimate.rateHz == 100)
        // The first samples only after next: settling begins once the rate is known.
        var driver = TumbleDriver(rateGiven: false)
        _ = driver.start()
        _ = driver.next()
        #expect(driver.measure(.plusZ).progresses.last?.done == [.plusZ])
    }
}
