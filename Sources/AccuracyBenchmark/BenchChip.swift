import Accelerometers
import Calibrating
import Geometry
import I2C
import Level
import Persistence
import Sampling
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050

/// The chips the accuracy benchmark runs: each a simulator and the real driver `plumb` runs on it.
public enum BenchChipModel: String, CaseIterable, Sendable {
    case adxl345, adxl355, mpu6050

    /// What the driver's description calls it: `ADXL345`, `ADXL355`, `MPU-6050`.
    public var description: ChipDescription {
        switch self {
        case .adxl345: ADXL345.description
        case .adxl355: ADXL355.description
        case .mpu6050: MPU6050.description
        }
    }
}

/// One simulated chip on the bench, with the real driver on it, in simulated time.
///
/// Everything runs on a ``ManualSimulationClock``: the driver, the sampler and the calibration
/// session sleep on it, and a sleep advances the simulation, so a tumble's half minute of holds
/// costs milliseconds of CPU and the results are the same on every run.
///
/// The chip's rate, range and address are its driver's description's (``ChipDescription``): its
/// default address and range, and the offered rate nearest the agent's default `sample_rate_hz`.
public final class BenchChip {
    /// Which chip it is.
    public let model: BenchChipModel
    /// The driver's description of the chip.
    public let description: ChipDescription
    /// The simulated time everything here runs on.
    public let clock: ManualSimulationClock
    /// The chip on its bus, with the scene and pose controls every simulator offers.
    public let simulator: any I2CBus & SceneControls
    /// The driver, exactly as `plumb` runs it.
    public let driver: any Accelerometer
    /// The rate the bench samples at: the offered rate nearest the agent's default (100 Hz on
    /// the ADXL345 and the MPU-6050, 125 Hz on the ADXL355).
    public let rateHz: Double
    /// The range the bench samples at: the chip's default (16 g on the ADXL345, 2 on the others).
    public let rangeG: Int

    /// The agent's default rate, which each chip maps to its nearest offered one.
    public static let agentRateHz = 100.0

    /// Any simulator and driver; the description gives rate and range.
    public init(model: BenchChipModel, simulator: any I2CBus & SceneControls, driver: any Accelerometer,
                clock: ManualSimulationClock) {
        self.model = model
        self.description = model.description
        self.simulator = simulator
        self.driver = driver
        self.clock = clock
        rateHz = description.nearestRate(to: Self.agentRateHz)?.hertz ?? Self.agentRateHz
        rangeG = description.defaultRangeG
    }

    /// A simulated ADXL345 at its configured address (the description's default unless set).
    public convenience init(configuration: SimulatedADXL345.Configuration) {
        let clock = ManualSimulationClock()
        let simulator = SimulatedADXL345(configuration: configuration, clock: clock)
        self.init(model: .adxl345, simulator: simulator,
                  driver: ADXL345(bus: simulator, address: configuration.address, clock: clock), clock: clock)
    }

    /// A simulated ADXL355 at its configured address (the description's default unless set).
    public convenience init(adxl355 configuration: SimulatedADXL355.Configuration) {
        let clock = ManualSimulationClock()
        let simulator = SimulatedADXL355(configuration: configuration, clock: clock)
        self.init(model: .adxl355, simulator: simulator,
                  driver: ADXL355(bus: simulator, address: configuration.address, clock: clock), clock: clock)
    }

    /// A simulated MPU-6050 at its configured address (the description's default unless set).
    public convenience init(mpu6050 configuration: SimulatedMPU6050.Configuration) {
        let clock = ManualSimulationClock()
        let simulator = SimulatedMPU6050(configuration: configuration, clock: clock)
        self.init(model: .mpu6050, simulator: simulator,
                  driver: MPU6050(bus: simulator, address: configuration.address, clock: clock), clock: clock)
    }

    /// A random typical part of `model` (each simulator's `randomTypicalPart(seed:)`), at the
    /// description's default address.
    public convenience init(model: BenchChipModel, seed: UInt64) {
        let address = model.description.addresses[0]
        switch model {
        case .adxl345:
            var configuration = SimulatedADXL345.Configuration.randomTypicalPart(seed: seed)
            configuration.address = address
            self.init(configuration: configuration)
        case .adxl355:
            var configuration = SimulatedADXL355.Configuration.randomTypicalPart(seed: seed)
            configuration.address = address
            self.init(adxl355: configuration)
        case .mpu6050:
            var configuration = SimulatedMPU6050.Configuration.randomTypicalPart(seed: seed)
            configuration.address = address
            self.init(mpu6050: configuration)
        }
    }

    /// The request the bench samples with: the chip's rate and range.
    public var request: SamplingRequest { SamplingRequest(rateHz: rateHz, rangeG: rangeG) }

    /// The pipeline's stillness judgement for this chip at the rate it runs: its description's
    /// noise there, as the agent's (``ChipDescription/stability(rateHz:)``).
    public func stability() -> Stability {
        driver.chip.stability(rateHz: rateHz)
    }

    /// `settings` with this chip's stillness judgement (``stability()``): call once the chip runs.
    public func judged(_ settings: PipelineSettings) -> PipelineSettings {
        var settings = settings
        settings.stability = stability()
        return settings
    }

    /// The record's chip line, as `plumb calibrate` writes it: bus, address and the DEVID probed.
    private func chipRecord() throws(CalibrationFailure) -> CalibrationRecord.Chip {
        do {
            let identity = try driver.probe()
            return .init(bus: simulator.name, address: driver.address.description,
                         devid: "0x" + String(identity.deviceID, radix: 16, uppercase: true), model: driver.chip.model)
        } catch {
            throw CalibrationFailure(.sensor(error))
        }
    }

    /// Runs `script` on the chip and the procedure `body` builds against it, in a session that
    /// gives up after `timeout` simulated seconds; the record and the session's mean die
    /// temperature (nil for a chip without a sensor).
    private func calibrate(
        _ script: AttitudeScript, timeout: Double,
        _ body: (CalibrationSession) throws(CalibrationFailure) -> CalibrationRecord
    ) throws(CalibrationFailure) -> (record: CalibrationRecord, meanCelsius: Double?) {
        simulator.run(script)
        let session = CalibrationSession(chip: driver, guide: RecordingGuide(), timeout: timeout, clock: clock)
        try session.start()
        defer { session.stop() }
        let record = try body(session)
        return (record, session.meanCelsius)
    }

    /// The tumble through ``SixPointProcedure``, the code `plumb calibrate six-point` runs: the
    /// chip laid on each face in turn for `holdSeconds` (the move included), `averageSeconds`
    /// averaged on each.
    public func calibrateSixPoint(faces: [Face] = BenchChip.tumbleOrder, holdSeconds: Double = 6,
                                  averageSeconds: Double = 2) throws(CalibrationFailure) -> CalibrationRecord {
        try calibrateSixPointReadingTemperature(faces: faces, holdSeconds: holdSeconds, averageSeconds: averageSeconds).record
    }

    /// The same tumble, with the mean of the die temperatures the session read during it: what
    /// the agent records as the tumble's `temperature_c` on a chip with a sensor (nil without).
    public func calibrateSixPointReadingTemperature(faces: [Face] = BenchChip.tumbleOrder, holdSeconds: Double = 6,
                                                    averageSeconds: Double = 2) throws(CalibrationFailure)
        -> (record: CalibrationRecord, meanCelsius: Double?) {
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
        }.record
    }

    /// Starts the sampler on the chip held in `pose`, at the agent's rate and range. Starting
    /// after the pose is set means no sample from before it is ever read.
    public func startSampling(in pose: SimulatedPose) throws(SensorError) -> Sampler {
        simulator.setPose(pose)
        let sampler = Sampler(chip: driver, clock: clock)
        try sampler.start(request)
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
        var pipeline = LevelPipeline(settings: judged(settings), zeroGravity: zero)
        var latest: Measurement?
        for _ in 0..<settings.windowBlocks {
            latest = pipeline.add(try sampler.nextBatch(samples: samplesPerBlock))
        }
        guard let latest else { throw .noData(model: description.model, seconds: 0, bus: simulator.name) }
        return latest
    }
}
