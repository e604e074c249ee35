import Geometry
import GeometryTesting
import Level
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The pipeline stage by stage, each against figures worked out here rather than by the module.
@Suite("Level pipeline")
struct LevelPipelineTests {
    @Test("Blocks are a tenth of a second of samples, but never empty")
    func blocksAreATenthOfASecondButNeverEmpty() {
        #expect(SampleBatch.samplesPerBlock(rateHz: 100) == 10)
        #expect(SampleBatch.samplesPerBlock(rateHz: 800) == 80)
        #expect(SampleBatch.samplesPerBlock(rateHz: 6.25) == 1)
    }

    /// ADXL345 noise at 100 Hz, per sample: the figure `stable` is judged against.
    static let noise = TestChipNoise.rms(odrHz: 100)

    static func settings(calibration: Calibration = .identity, window: Int = 1, mount: Mount = .flat,
                         tolerance: Double = 0.5, dwell: Double = 0) -> PipelineSettings {
        PipelineSettings(calibration: calibration, windowBlocks: window, mount: mount,
                         thresholds: LevelThresholds(tolerance: deg(tolerance), hysteresis: deg(0.1),
                                                     alarmThreshold: deg(5), dwell: dwell),
                         stability: Stability(expectedNoise: noise))
    }

    /// A batch of `samples` samples at 100 Hz whose mean is `gravity` and whose spread is `spread`
    /// exactly: the block the pipeline makes of it is known.
    static func block(_ gravity: Vector3, spread: Vector3 = noise, samples: Int = 10, at time: Double = 0) -> SampleBatch {
        .steady(gravity, spread: spread, count: samples, time: time, rateHz: 100)
    }

    static func tilted(roll: Double, pitch: Double = 0) -> Vector3 {
        Attitude.gravity(roll: deg(roll), pitch: deg(pitch))
    }

    /// Gains off by a few percent, a little cross-axis coupling and a zero-g offset.
    static let calibration = try! Calibration(
        matrix: Geometry.Matrix3(rows: Vector3(x: 1.02, y: 0.01, z: 0), Vector3(x: -0.01, y: 0.98, z: 0.005),
                                    Vector3(x: 0, y: 0, z: 1.03)),
        offset: Vector3(x: 0.03, y: -0.02, z: 0.04)
    )

    /// What the chip reads when gravity truly is `gravity`, under ``calibration``: `M⁻¹ g + b`.
    static func raw(_ gravity: Vector3) -> Vector3 {
        calibration.matrix.inverse! * gravity + calibration.offset
    }

    // MARK: Calibration, mount and zero

    @Test func calibrationComesBeforeTheMount() throws {
        let truth = Self.tilted(roll: 2, pitch: -1)
        var pipeline = LevelPipeline(settings: Self.settings(calibration: Self.calibration, mount: .upright))
        let measurementResult = pipeline.add(Self.block(Self.raw(truth)))
        let measurement = try #require(measurementResult)
        expectClose(measurement.deviceGravity, truth, tolerance: 1e-12, "calibrated device gravity")
        expectClose(measurement.levelGravity, Vector3(x: truth.x, y: -truth.z, z: truth.y), tolerance: 1e-12,
                    "upright is x,-z,y of the calibrated gravity")
        // Read raw, the same block is visibly off: the calibration is what makes it right.
        var raw = LevelPipeline(settings: Self.settings(mount: .upright))
        let uncorrectedResult = raw.add(Self.block(Self.raw(truth)))
        let uncorrected = try #require(uncorrectedResult)
        #expect((uncorrected.deviceGravity - truth).magnitude > 0.02)
    }

    @Test func theZeroIsTheCalibratedGravityAndIsAppliedAfterTheCalibration() throws {
        let pose = Self.tilted(roll: 1.5, pitch: 0.7)
        var pipeline = LevelPipeline(settings: Self.settings(calibration: Self.calibration))
        pipeline.add(Self.block(Self.raw(pose)))
        let zeroHere = pipeline.zeroHere()
        let stored = try #require(zeroHere)
        expectClose(stored, pose, tolerance: 1e-12, "the zero stores calibrated, not raw, gravity")
        #expect(pipeline.zeroGravity == stored)
        let zeroed = try #require(pipeline.latest)
        expectClose(zeroed.attitude.tilt, degrees: 0, tolerance: 1e-9, "the zeroed pose reads level at once")
        // A pose 2° further in roll reads 2° from the zeroed one.
        let movedResult = pipeline.add(Self.block(Self.raw(Self.tilted(roll: 3.5, pitch: 0.7))))
        let moved = try #require(movedResult)
        expectClose(moved.attitude.tilt, degrees: 2, tolerance: 0.02)
    }

    @Test func zeroingWithoutAReadingChangesNothing() {
        var pipeline = LevelPipeline(settings: Self.settings())
        #expect(pipeline.zeroHere() == nil)
        #expect(pipeline.zeroGravity == nil)
        pipeline.setZero(.zero)
        #expect(pipeline.zeroGravity == nil, "a gravity with no direction sets no zero")
    }

    @Test func aNewMountReDerivesTheZeroFromTheDeviceGravity() throws {
        // The device sits upright on a bar that is 1° off: zeroed there, then the mount is fixed.
        let device = Vector3(x: 0, y: 1, z: 0)
        var pipeline = LevelPipeline(settings: Self.settings(mount: .upright), zeroGravity: device)
        pipeline.add(Self.block(device))
        expectClose(try #require(pipeline.latest).attitude.tilt, degrees: 0)
        pipeline.reconfigure(Self.settings(mount: .custom(try AxisRemap(parsing: "y,z,x"))))
        let after = try #require(pipeline.latest, "re-evaluated without waiting for a block")
        expectClose(after.attitude.tilt, degrees: 0, tolerance: 1e-9, "the zeroed pose still reads level")
        #expect(pipeline.zeroGravity == device)
        pipeline.setZero(nil)
        expectClose(try #require(pipeline.latest).attitude.tilt, degrees: 90, tolerance: 1e-9,
                    "without the zero, y,z,x puts gravity on the level x axis")
    }

    // MARK: Window and standard error

    @Test func theWindowAveragesTheLastBlocksAndGivesTheirStandardError() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 3))
        // Blocks a milli-g apart: within the chip's noise, so none of them counts as a step.
        let zs = [0.999, 1.0, 1.001, 1.002]
        var last: Measurement?
        for z in zs { last = pipeline.add(Self.block(Vector3(x: 0, y: 0, z: z))) }
        let measurement = try #require(last)
        expectClose(measurement.deviceGravity.z, 1.001, tolerance: 1e-12, "the oldest block has left the window")
        // Sample standard deviation of 1.000, 1.001, 1.002 is 0.001; divided by √3.
        expectClose(measurement.standardError.z, 0.001 / 3.0.squareRoot(), tolerance: 1e-12)
        #expect(measurement.standardError.x == 0)
    }

    @Test func oneBlockStandsInWithItsOwnStandardErrorInTheLevelFrame() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 5, mount: .upright))
        let spread = Vector3(x: 0.004, y: 0.008, z: 0.012)
        let measurementResult = pipeline.add(Self.block(Vector3(x: 0, y: 1, z: 0), spread: spread, samples: 16))
        let measurement = try #require(measurementResult)
        // Upright is x, −z, y: the level y axis carries the device z spread, unsigned.
        expectClose(measurement.standardError, Vector3(x: 0.001, y: 0.003, z: 0.002), tolerance: 1e-15)
    }

    @Test func theSpreadIsCarriedThroughTheCalibrationAsABound() throws {
        var pipeline = LevelPipeline(settings: Self.settings(calibration: Self.calibration))
        let spread = Vector3(x: 0.004, y: 0.004, z: 0.004)
        let measurementResult = pipeline.add(Self.block(Vector3(x: 0, y: 0, z: 1), spread: spread, samples: 4))
        let measurement = try #require(measurementResult)
        // |M| · spread / √4, by hand from the matrix above.
        let expected = Vector3(x: (1.02 + 0.01) * 0.004, y: (0.01 + 0.98 + 0.005) * 0.004, z: 1.03 * 0.004) / 2
        expectClose(measurement.standardError, expected, tolerance: 1e-15)
    }

    @Test func theWindowNoiseIsTheSpreadOfAllItsSamples() throws {
        var random = SplitMix64(seed: 7)
        var pipeline = LevelPipeline(settings: Self.settings(window: 4))
        var all = GravityAverage()
        var last: Measurement?
        for block in 0..<4 {
            let samples = (0..<10).map { _ in Vector3(x: 0.001 * Double(block), y: 0, z: 1) + random.gaussian(sigma: Self.noise) }
            for sample in samples { all.add(sample) }
            last = pipeline.add(SampleBatch(samples: samples, time: 0, rateHz: 100))
        }
        expectClose(try #require(last).noise, try #require(all.standardDeviation), tolerance: 1e-12)
    }

    @Test func aNonFiniteBlockIsIgnored() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 2))
        let rejected = pipeline.add(Self.block(Vector3(x: .nan, y: 0, z: 1)))
        #expect(rejected == nil)
        pipeline.add(Self.block(Vector3(x: 0, y: 0, z: 1)))
        let afterResult = pipeline.add(Self.block(Vector3(x: .infinity, y: 0, z: 1)))
        let after = try #require(afterResult)
        #expect(after.deviceGravity == Vector3(x: 0, y: 0, z: 1))
    }

    // MARK: Stable

    /// Batches of still noise around `gravity`, as the sampler would deliver them.
    static func stillBlocks(_ count: Int, around gravity: Vector3, noise: Vector3 = noise, seed: UInt64) -> [SampleBatch] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            SampleBatch(samples: (0..<10).map { _ in gravity + random.gaussian(sigma: noise) }, time: Double(index) / 10,
                        rateHz: 100)
        }
    }

    @Test func stillNoiseIsStableOnceTheWindowIsFull() {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        let measurements = Self.stillBlocks(30, around: Self.tilted(roll: 0.2), seed: 1).compactMap { pipeline.add($0) }
        #expect(measurements.prefix(9).allSatisfy { !$0.isStable }, "a part-filled window has not shown it is still")
        #expect(measurements.dropFirst(9).allSatisfy { $0.isStable })
    }

    @Test func motionIsNotStable() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        for block in Self.stillBlocks(10, around: Self.tilted(roll: 0), seed: 2) { pipeline.add(block) }
        #expect(pipeline.latest?.isStable == true)
        // A tilt moving 0.1° a block (1°/s) for a window: each block's own noise is still, the
        // means move.
        for step in 1...10 {
            pipeline.add(Self.stillBlocks(1, around: Self.tilted(roll: 0.1 * Double(step)), seed: UInt64(10 + step))[0])
        }
        #expect(pipeline.latest?.isStable == false)
    }

    @Test func vibrationIsNotStable() {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        for block in Self.stillBlocks(10, around: Self.tilted(roll: 0), noise: Self.noise * 5, seed: 3) {
            pipeline.add(block)
        }
        #expect(pipeline.latest?.isStable == false)
    }

    // MARK: Steps

    @Test func aStepStartsTheWindowAfreshSoTheNewAttitudeShowsAtOnce() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        for block in Self.stillBlocks(20, around: Self.tilted(roll: 0), seed: 4) { pipeline.add(block) }
        let steppedResult = pipeline.add(Self.block(Self.tilted(roll: 1), at: 2))
        let stepped = try #require(steppedResult)
        // Averaged with the nine blocks before it, the reading would say about 0.1°.
        #expect(abs(stepped.attitude.roll.degrees - 1) < 1e-9)
        #expect(!stepped.isStable, "a window that just started has not shown it is still")
        let nextResult = pipeline.add(Self.block(Self.tilted(roll: 1), at: 2.1))
        let next = try #require(nextResult)
        #expect(abs(next.attitude.roll.degrees - 1) < 1e-9)
    }

    @Test func stillNoiseNeverCountsAsAStep() {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        // A restart would make the window part-filled, and so not stable, for nine blocks.
        let measurements = Self.stillBlocks(5000, around: Self.tilted(roll: 0.3, pitch: -0.2), seed: 5)
            .compactMap { pipeline.add($0) }
        #expect(measurements.dropFirst(9).allSatisfy { $0.isStable })
    }

    @Test func vibrationThatScattersEveryBlockDoesNotRestartTheWindow() {
        var pipeline = LevelPipeline(settings: Self.settings(window: 10))
        var random = SplitMix64(seed: 6)
        // Vibration 10× a still chip's noise: every sample scatters, and so every block mean.
        let vibration = Self.noise * 10
        let scatter = vibration / Double(10).squareRoot()
        var readings: [Double] = []
        for index in 0..<200 {
            let gravity = Self.tilted(roll: 0) + random.gaussian(sigma: scatter)
            if let measurement = pipeline.add(Self.block(gravity, spread: vibration, at: Double(index) / 10)),
               index >= 10 {
                readings.append(measurement.attitude.roll.degrees)
            }
        }
        // The full window's average keeps the roll's scatter near scatter/√10, about 0.17°;
        // restarting at every block would leave about 0.5°.
        let mean = readings.reduce(0, +) / Double(readings.count)
        let sigma = (readings.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(readings.count)).squareRoot()
        #expect(sigma < 0.3, "roll scattered by \(sigma)°")
    }

    // MARK: Level, alarm and events

    @Test func levelEventsWaitForTheDwell() throws {
        var pipeline = LevelPipeline(settings: Self.settings(dwell: 1))
        let firstResult = pipeline.add(Self.block(Self.tilted(roll: 0), at: 0))
        let first = try #require(firstResult)
        #expect(first.isLevel == true && first.isAlarm == false)
        #expect(first.events.isEmpty, "the first reading decides the state without an event")
        let leaving = pipeline.add(Self.block(Self.tilted(roll: 6), at: 0.1))
        #expect(leaving?.events == [], "not yet held for the dwell")
        #expect(leaving?.isLevel == true)
        let heldResult = pipeline.add(Self.block(Self.tilted(roll: 6), at: 1.1))
        let held = try #require(heldResult)
        #expect(held.events == [.levelLeft, .alarmRaised])
        #expect(held.isLevel == false && held.isAlarm == true)
    }

    @Test func newThresholdsApplyFromTheNextBlock() throws {
        var pipeline = LevelPipeline(settings: Self.settings(tolerance: 0.5))
        pipeline.add(Self.block(Self.tilted(roll: 1), at: 0))
        #expect(pipeline.isLevel == false)
        pipeline.reconfigure(Self.settings(tolerance: 2))
        #expect(pipeline.latest?.events == [], "a re-evaluation causes no events")
        let entering = pipeline.add(Self.block(Self.tilted(roll: 1), at: 0.1))
        #expect(entering?.events == [.levelEntered])
    }

    // MARK: Reset and reconfiguration

    @Test func aResetForgetsTheBlocksButNotTheLevel() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 4))
        for _ in 0..<4 { pipeline.add(Self.block(Self.tilted(roll: 3))) }
        pipeline.reset()
        #expect(pipeline.latest == nil)
        #expect(pipeline.isLevel == false, "a fault says nothing about whether the machine moved")
        let afterResult = pipeline.add(Self.block(Self.tilted(roll: 0)))
        let after = try #require(afterResult)
        expectClose(after.attitude.tilt, degrees: 0, tolerance: 1e-9, "nothing from before the fault is averaged in")
        #expect(!after.isStable, "the window must fill again")
    }

    @Test func aShorterWindowKeepsTheNewestBlocks() throws {
        var pipeline = LevelPipeline(settings: Self.settings(window: 4))
        for z in [0.997, 0.998, 0.999, 1.0] { pipeline.add(Self.block(Vector3(x: 0, y: 0, z: z))) }
        pipeline.reconfigure(Self.settings(window: 2))
        expectClose(try #require(pipeline.latest).deviceGravity.z, 0.9995, tolerance: 1e-12)
    }

    @Test func aNewCalibrationShowsInTheNextMeasurementAndDropsTheOldBlocks() throws {
        let truth = Self.tilted(roll: 1)
        var pipeline = LevelPipeline(settings: Self.settings(window: 4))
        for _ in 0..<4 { pipeline.add(Self.block(Self.raw(truth))) }
        pipeline.reconfigure(Self.settings(calibration: Self.calibration, window: 4))
        #expect(pipeline.latest == nil, "blocks corrected another way are not averaged in")
        let measurementResult = pipeline.add(Self.block(Self.raw(truth)))
        let measurement = try #require(measurementResult)
        expectClose(measurement.deviceGravity, truth, tolerance: 1e-12)
    }
}
