import Accelerometers
import Calibrating
import I2C
import Persistence
import PlumbDomain
import Sampling
import SimulatedADXL345

/// One simulated ADXL345 on the bench, with the real driver on it, in simulated time.
///
/// Everything runs on a ``ManualSimulationClock``: the driver, the sampler and the calibration
/// session sleep on it, and a sleep advances the simulation, so a tumble's half minute of holds
/// costs milliseconds of CPU and the results are the same on every run.
public final class BenchChip {
    /// The part: its errors, noise and seed.
    public let configuration: SimulatedADXL345.Configuration
    /// The simulated time everything here runs on.
    public let clock = ManualSimulationClock()
    /// The chip on its bus.
    public let simulator: SimulatedADXL345
    /// The driver, exactly as `plumb` runs it.
    public let driver: ADXL345

    /// The rate and range the agent samples at by default (`sample_rate_hz` 100, `range` 16).
    public static let rateHz = 100.0
    public static let rangeG = 16

    public init(configuration: SimulatedADXL345.Configuration) {
        self.configuration = configuration
        simulator = SimulatedADXL345(configuration: configuration, clock: clock)
        driver = ADXL345(bus: simulator, address: configuration.address, clock: clock)
    }

    /// The record's chip line, as `plumb calibrate` writes it: bus, address and the DEVID probed.
    private func chipRecord() throws(CalibrationFailure) -> CalibrationRecord.Chip {
        do {
            let identity = try driver.probe()
            return .init(bus: simulator.name, address: driver.address.description,
                         devid: "0x" + String(identity.deviceID, radix: 16, uppercase: true))
        } catch {
            throw CalibrationFailure(.sensor(error))
        }
    }

    /// Runs `script` on the chip and the procedure `body` builds against it, in a session that
    /// gives up after `timeout` simulated seconds.
    private func calibrate(
        _ script: AttitudeScript, timeout: Double,
        _ body: (CalibrationSession) throws(CalibrationFailure) -> CalibrationRecord
    ) throws(CalibrationFailure) -> CalibrationRecord {
        simulator.run(script)
        let session = CalibrationSession(chip: driver, guide: RecordingGuide(), timeout: timeout, clock: clock)
        try session.start()
        defer { session.stop() }
        return try body(session)
    }

    /// The tumble through ``SixPointProcedure``, the code `plumb calibrate six-point` runs: the
    /// chip laid on each face in turn for `holdSeconds` (the move included), `averageSeconds`
    /// averaged on each.
    public func calibrateSixPoint(faces: [Face] = BenchChip.tumbleOrder, holdSeconds: Double = 6,
                                  averageSeconds: Double = 2) throws(CalibrationFailure) -> CalibrationRecord {
        let script = AttitudeScript(steps: faces.map { .init(pose: SimulatedPose(face: $0), duration: holdSeconds) })!
        return try calibrate(script, timeout: Double(faces.count + 2) * holdSeconds) { session throws(CalibrationFailure) in
            try SixPointProcedure(session: session, seconds: averageSeconds).run(chip: chipRecord())
        }
    }

    /// The faces in the order the bench turns them (any order works; this is the CLI test's).
    public static let tumbleOrder: [Face] = [.plusZ, .minusX, .plusY, .minusZ, .plusX, .minusY]

    /// The reversal through ``ReversalProcedure``, the code `plumb calibrate reversal` runs, on
    /// a surface tilted `surfaceRoll`/`surfacePitch`: read, turn 180° on the spot, read.
    public func calibrateReversal(surfaceRoll: Angle, surfacePitch: Angle, base: CalibrationRecord? = nil,
                                  holdSeconds: Double = 6, averageSeconds: Double = 2) throws(CalibrationFailure)
        -> CalibrationRecord {
        let spot = SimulatedPose(surfaceRoll: surfaceRoll, surfacePitch: surfacePitch)
        var turned = spot
        turned.turn = Angle(degrees: 180)
        let script = AttitudeScript(steps: [.init(pose: spot, duration: holdSeconds), .init(pose: turned, duration: holdSeconds)])!
        return try calibrate(script, timeout: 4 * holdSeconds) { session throws(CalibrationFailure) in
            try ReversalProcedure(session: session, seconds: averageSeconds, mount: .flat).run(chip: chipRecord(), base: base)
        }
    }

    /// Starts the sampler on the chip held in `pose`, at the agent's rate and range. Starting
    /// after the pose is set means no sample from before it is ever read.
    public func startSampling(in pose: SimulatedPose) throws(SensorError) -> Sampler {
        simulator.setPose(pose)
        let sampler = Sampler(chip: driver, clock: clock)
        try sampler.start(SamplingRequest(rateHz: Self.rateHz, rangeG: Self.rangeG))
        return sampler
    }

    /// What the pipeline with `settings` reads with the chip held still in `pose`, once its
    /// window holds only blocks taken in that pose: one reading, as the agent would publish it.
    ///
    /// - Parameter zero: a zero reference (calibrated device-frame gravity), as `zero` stores.
    public func measure(_ pose: SimulatedPose, settings: PipelineSettings, samplesPerBlock: Int,
                        zero: Vector3? = nil) throws(SensorError) -> Measurement {
        let sampler = try startSampling(in: pose)
        defer { try? driver.stop() }
        var pipeline = LevelPipeline(settings: settings, zeroGravity: zero)
        var latest: Measurement?
        for _ in 0..<settings.windowBlocks {
            latest = pipeline.add(try sampler.nextBatch(samples: samplesPerBlock))
        }
        guard let latest else { throw .noData(model: ADXL345.model, seconds: 0, bus: simulator.name) }
        return latest
    }
}
