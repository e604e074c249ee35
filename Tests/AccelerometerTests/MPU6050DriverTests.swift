@testable import Accelerometers
import Geometry
import I2C
import Level
import SimulatedADXL345
import SimulatedMPU6050
import Testing

@Suite("MPU-6050 family driver against the simulated part")
struct MPU6050DriverTests {
    // MARK: Identification

    @Test(arguments: MPU6050Variant.allCases)
    func probeLearnsTheVariantFromWhoAmI(variant: MPU6050Variant) throws {
        let rig = MPURig(ideal: variant)
        let identity = try rig.driver.probe()
        #expect(identity.deviceID == variant.whoAmI)
        #expect(identity.model == variant.rawValue)
        #expect(rig.driver.identification?.variant == variant)
        #expect(rig.driver.warning == nil)
    }

    @Test(arguments: [(0x98, MPU6050Variant.mpu6050), (0x73, .mpu9250), (0x74, .mpu6500),
                      (0x75, .mpu6500), (0x78, .mpu6500)] as [(UInt8, MPU6050Variant)])
    func cloneIsAcceptedWithAWarningNamingTheValueRead(whoAmI: UInt8, variant: MPU6050Variant) throws {
        let rig = MPURig(ideal: variant, whoAmI: whoAmI)
        let identity = try rig.driver.probe()
        #expect(identity.deviceID == whoAmI)
        #expect(rig.driver.identification?.variant == variant)
        let warning = try #require(rig.driver.warning)
        #expect(warning.contains(hexByte(whoAmI)))
        #expect(warning.contains(variant.rawValue))
        // A clone still samples through its map.
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        let (samples, _) = try rig.drain(after: 0.1)
        #expect(samples.count == 10)
        #expect(maxAxisError(samples[0], Vector3(x: 0, y: 0, z: 1)) < 1e-4)
    }

    @Test func unknownIDIsRefusedNamingWhatWasRead() {
        let rig = MPURig(ideal: .mpu6050, whoAmI: 0x72)
        let error = #expect(throws: SensorError.self) { try rig.driver.probe() }
        #expect(error?.code == .wrongDevice)
        #expect(error?.description.contains("0x72") == true)
        #expect(error?.description.contains("WHO_AM_I") == true && error?.description.contains("0x69 (AD0 to 3V3)") == true)
        #expect(error?.description.contains("ADXL345") == false)
        let start = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2)) }
        #expect(start?.code == .wrongDevice)
        #expect(rig.chip.writeLog.isEmpty, "a refused chip must not be written")
    }

    @Test func anotherAddressDoesNotAnswer() {
        let rig = MPURig(ideal: .mpu6050)
        let driver = MPU6050(bus: rig.chip, address: I2CAddress(0x69)!, clock: rig.clock)
        let error = #expect(throws: SensorError.self) { try driver.probe() }
        #expect(error?.code == .bus)
        #expect(error?.busError?.code == .noAcknowledge)
    }

    // MARK: Start

    @Test(arguments: [MPU6050Variant.mpu6050, .mpu6500])
    func startWritesTheRegisterMapsSequence(variant: MPU6050Variant) throws {
        let rig = MPURig(ideal: variant)
        let settings = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        var expected: [RegisterWrite] = [
            .init(register: 0x6B, value: 0x80),  // PWR_MGMT_1: DEVICE_RESET
            .init(register: 0x6B, value: 0x01),  // PWR_MGMT_1: awake, PLL clock
            .init(register: 0x6C, value: 0x00),  // PWR_MGMT_2: nothing in standby
            .init(register: 0x19, value: 0x09),  // SMPLRT_DIV: 1 kHz / 10
            .init(register: 0x1A, value: 0x03),  // CONFIG: DLPF_CFG 3 (44 Hz, ≤ 50 Hz)
            .init(register: 0x1C, value: 0x00),  // ACCEL_CONFIG: ±2 g, no self-test
        ]
        if variant.hasMPU6500RegisterMap {
            expected.append(.init(register: 0x1D, value: 0x03))  // ACCEL_CONFIG2: A_DLPF_CFG 3 (41 Hz)
        }
        expected += [
            .init(register: 0x38, value: 0x10),  // INT_ENABLE: FIFO_OFLOW_EN
            .init(register: 0x23, value: 0x08),  // FIFO_EN: ACCEL_FIFO_EN only
            .init(register: 0x6A, value: 0x04),  // USER_CTRL: FIFO_RESET
            .init(register: 0x6A, value: 0x40),  // USER_CTRL: FIFO_EN
        ]
        #expect(rig.chip.writeLog == expected)
        #expect(settings == SamplingSettings(rateHz: 100, rangeG: 2, watermark: 10, bufferCapacity: variant.fifoSamples))
        #expect(!rig.chip.isAsleep)
    }

    @Test(arguments: [(1000, 2, 0, 1000), (500, 4, 1, 500), (200, 8, 4, 200), (100, 16, 9, 100), (150, 2, 6, 1000 / 7.0),
                      (10, 4, 99, 10), (4, 8, 249, 4), (1, 16, 255, 1000 / 256.0), (5000, 2, 0, 1000)]
          as [(Double, Int, UInt8, Double)])
    func startSetsTheNearestRateAndTheRange(requested: Double, rangeG: Int, divider: UInt8, actual: Double) throws {
        let rig = MPURig(ideal: .mpu6500)
        let settings = try rig.driver.start(SamplingRequest(rateHz: requested, rangeG: rangeG))
        #expect(abs(settings.rateHz - actual) < 1e-9)
        #expect(settings.rangeG == rangeG)
        #expect(rig.chip.storedRegister(MPU6050Register.smplrtDiv) == divider)
        #expect(abs(rig.chip.sampleRateHz - actual) < 1e-9, "the rate the chip runs at is the rate reported")
        #expect(rig.chip.storedRegister(MPU6050Register.accelConfig) == MPU6050Range(gravities: rangeG)!.rawValue << 3)
        #expect(rig.chip.bandwidthHz <= max(5, actual / 2), "the filter keeps below Nyquist")
        // And the samples arrive at that rate.
        let (samples, _) = try rig.drain(after: 0.08)
        #expect(abs(Double(samples.count) - 0.08 * actual) <= 1)
    }

    @Test func refusedSettingsNameTheChoicesAndTouchNothing() {
        let rig = MPURig(ideal: .mpu6050)
        let range = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 3)) }
        #expect(range?.code == .invalidSetting)
        #expect(range?.description.contains("2, 4, 8 or 16") == true)
        let rate = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: 0, rangeG: 2)) }
        #expect(rate?.code == .invalidSetting)
        #expect(rig.chip.writeLog.isEmpty)
    }

    @Test(arguments: [(MPU6050Variant.mpu6050, MPU6050Register.accelConfig), (.mpu6500, MPU6050Register.smplrtDiv),
                      (.mpu6500, MPU6050Register.accelConfig2), (.mpu9250, MPU6050Register.fifoEnable)] as [(MPU6050Variant, UInt8)])
    func aLostConfigurationWriteIsCaughtByTheReadBack(variant: MPU6050Variant, register: UInt8) throws {
        let clock = ManualSimulationClock()
        let chip = SimulatedMPU6050(configuration: .init(variant: variant, noiseDensity: 0), clock: clock)
        let driver = MPU6050(bus: MPUBusWrapper(chip, lostWrites: register), clock: clock)
        let error = #expect(throws: SensorError.self) { try driver.start(SamplingRequest(rateHz: 200, rangeG: 8)) }
        #expect(error?.code == .bus && error?.description.contains("read-back") == true)
        #expect(driver.configuration == nil)
        var samples: [Vector3] = []
        #expect(try driver.drain(into: &samples).count == 0, "nothing is decoded with a configuration not proven")
    }

    // MARK: Drains

    static let poses: [SimulatedPose] = [
        .level,
        SimulatedPose(face: .minusZ),
        SimulatedPose(face: .plusX),
        SimulatedPose(face: .minusY),
        SimulatedPose(roll: Angle(degrees: 30), pitch: Angle(degrees: -20)),
        SimulatedPose(face: .plusY, roll: Angle(degrees: -12), pitch: Angle(degrees: 7)),
    ]

    @Test(arguments: MPU6050Variant.allCases, [2, 4, 8, 16])
    func drainsGravityWithTheRightScaleSignAndOrder(variant: MPU6050Variant, rangeG: Int) throws {
        for pose in Self.poses {
            let rig = MPURig(ideal: variant, scene: .pose(pose))
            _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: rangeG))
            let (samples, report) = try rig.drain(after: 0.1)
            #expect(report.count == 10 && samples.count == 10 && !report.overrun && report.clipped == 0)
            let lsb = 1 / MPU6050Range(gravities: rangeG)!.countsPerG
            for sample in samples {
                #expect(maxAxisError(sample, pose.gravity) <= lsb / 2 + 1e-12, "\(pose) at ±\(rangeG) g")
            }
        }
    }

    @Test func eachAxisIsBigEndianAtItsPlace() throws {
        // 0.5, −0.25, 0.75 g at ±2 g are 8192, −4096 and 12288 LSB exactly.
        let rig = MPURig(ideal: .mpu6050, scene: .fixed(Vector3(x: 0.5, y: -0.25, z: 0.75)))
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        rig.clock.advance(by: 0.01)
        let bytes = try rig.chip.readRegisters(at: rig.chip.address, from: MPU6050Register.accelXOutH, count: 6)
        #expect(bytes == [0x20, 0x00, 0xF0, 0x00, 0x30, 0x00])
        let (samples, _) = try rig.drain(after: 0)
        #expect(samples.first == Vector3(x: 0.5, y: -0.25, z: 0.75))
    }

    @Test func beyondTheRangeIsClippedAndCounted() throws {
        let rig = MPURig(ideal: .mpu6050, scene: .fixed(Vector3(x: 3, y: 0, z: 1)))
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        let (samples, report) = try rig.drain(after: 0.05)
        #expect(report.clipped == 5)
        #expect(samples.allSatisfy { $0.x < 2 && $0.x > 1.99 })
    }

    @Test(arguments: [MPU6050Variant.mpu6050, .mpu6500])
    func overflowIsReportedAndTheFIFOStartsAgainAligned(variant: MPU6050Variant) throws {
        let rig = MPURig(ideal: variant, scene: .pose(SimulatedPose(roll: Angle(degrees: 10))))
        let settings = try rig.driver.start(SamplingRequest(rateHz: 1000, rangeG: 4))
        // Twice what the FIFO holds: its oldest bytes were overwritten, a sample boundary lost.
        let (lost, overrun) = try rig.drain(after: Double(2 * settings.bufferCapacity) / 1000)
        #expect(overrun.overrun && overrun.count == 0 && lost.isEmpty)
        #expect(rig.driver.drainStatistics.overflows == 1)
        #expect(rig.chip.fifoByteCount == 0)
        let (samples, report) = try rig.drain(after: 0.03)
        #expect(!report.overrun && report.count == 30)
        let gravity = SimulatedPose(roll: Angle(degrees: 10)).gravity
        #expect(samples.allSatisfy { maxAxisError($0, gravity) < 2.0 / 8192 })
        #expect(rig.chip.statistics.emptyFIFOReads == 0)
    }

    @Test func anOverflowOnlyINTStatusShowsIsReported() throws {
        // An MPU-6500 whose FIFO stops when full (CONFIG FIFO_MODE) keeps 510 bytes, whole samples:
        // only FIFO_OFLOW_INT says samples were lost.
        let rig = MPURig(ideal: .mpu6500)
        _ = try rig.driver.start(SamplingRequest(rateHz: 1000, rangeG: 2))
        let config = rig.chip.storedRegister(MPU6050Register.config)
        try rig.chip.writeRegister(at: rig.chip.address, MPU6050Register.config, value: config | MPU6050Bits.fifoModeStopWhenFull)
        rig.clock.advance(by: 0.2)
        #expect(rig.chip.fifoByteCount == 510)
        let (samples, report) = try rig.drain(after: 0)
        #expect(report.overrun && samples.isEmpty)
        #expect(rig.driver.drainStatistics.overflows == 1 && rig.driver.drainStatistics.misalignments == 0)
        #expect(rig.chip.fifoByteCount == 0)
    }

    @Test func aLongGapOverflowsAndRecovers() throws {
        let rig = MPURig(ideal: .mpu9250)
        _ = try rig.driver.start(SamplingRequest(rateHz: 500, rangeG: 2))
        let (_, gap) = try rig.drain(after: 3600)
        #expect(gap.overrun)
        let (samples, report) = try rig.drain(after: 0.1)
        #expect(report.count == 50 && !report.overrun)
        #expect(samples.allSatisfy { maxAxisError($0, Vector3(x: 0, y: 0, z: 1)) < 1e-4 })
    }

    @Test func aCountThatIsNotWholeSamplesResetsTheFIFO() throws {
        let chip = SimulatedMPU6050(configuration: .init(noiseDensity: 0), clock: ManualSimulationClock())
        let clock = chip.clock as! ManualSimulationClock
        let driver = MPU6050(bus: MPUBusWrapper(chip, fifoCountOverride: 61), clock: clock)
        _ = try driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        clock.advance(by: 0.2)
        var samples: [Vector3] = []
        let report = try driver.drain(into: &samples)
        #expect(report.overrun && samples.isEmpty)
        #expect(driver.drainStatistics.misalignments == 1)
        #expect(chip.fifoByteCount == 0)
        #expect(chip.statistics.fifoBytesRead == 0, "no byte of a misaligned FIFO is decoded")
    }

    @Test func overSMBusTheFIFOIsReadInWholeSamplePieces() throws {
        let chip = SimulatedMPU6050(configuration: .init(variant: .mpu6500, noiseDensity: 0), clock: ManualSimulationClock())
        let clock = chip.clock as! ManualSimulationClock
        let bus = MPUBusWrapper(chip, smbus: true)
        let driver = MPU6050(bus: bus, clock: clock)
        _ = try driver.start(SamplingRequest(rateHz: 1000, rangeG: 2))
        clock.advance(by: 0.04)
        var samples: [Vector3] = []
        let report = try driver.drain(into: &samples)
        #expect(report.count == 40 && !report.overrun)
        #expect(bus.longestRead <= 30)
        #expect(samples.allSatisfy { maxAxisError($0, Vector3(x: 0, y: 0, z: 1)) < 1e-4 })
    }

    @Test func noiseMatchesTheDensityOverTheFilterBandwidth() throws {
        for variant in [MPU6050Variant.mpu6050, .mpu6500] {
            let rig = MPURig(SimulatedMPU6050.Configuration(variant: variant))
            _ = try rig.driver.start(SamplingRequest(rateHz: 1000, rangeG: 2))
            var samples: [Vector3] = []
            for _ in 0..<40 {
                rig.clock.advance(by: 0.05)
                _ = try rig.driver.drain(into: &samples)
            }
            #expect(samples.count == 2000)
            let mean = samples.reduce(Vector3.zero, +) / Double(samples.count)
            let variance = samples.reduce(0.0) { $0 + ($1.x - mean.x) * ($1.x - mean.x) } / Double(samples.count - 1)
            let density = MPU6050.description(for: variant).noiseDensity.x
            #expect(rig.driver.bandwidthHz == rig.chip.bandwidthHz)
            let expected = MPU6050.description(for: variant).expectedRMS(bandwidthHz: try #require(rig.driver.bandwidthHz)).x
            #expect(abs(expected - density * rig.chip.bandwidthHz.squareRoot()) < 1e-12)
            #expect(abs(variance.squareRoot() / expected - 1) < 0.1, "\(variant): \(variance.squareRoot()) vs \(expected)")
        }
    }

    // MARK: Temperature

    @Test(arguments: MPU6050Variant.allCases, [-10.0, 25, 36.53, 60])
    func temperatureReadsPerVariant(variant: MPU6050Variant, celsius: Double) throws {
        let rig = MPURig(SimulatedMPU6050.Configuration(variant: variant, noiseDensity: 0, temperature: celsius))
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        rig.clock.advance(by: 0.02)
        #expect(abs(try rig.driver.readTemperature() - celsius) < 0.01)
        rig.chip.setTemperature(celsius + 5)
        rig.clock.advance(by: 0.02)
        #expect(abs(try rig.driver.readTemperature() - (celsius + 5)) < 0.01)
    }

    @Test func theTwoTemperatureFormulasDiffer() {
        // Raw 0 is 36.53 °C on an MPU-6050 and 21 °C on an MPU-6500/9250.
        #expect(MPU6050Variant.mpu6050.temperature.celsius(raw: 0) == 36.53)
        #expect(MPU6050Variant.mpu9250.temperature.celsius(raw: 0) == 21)
        #expect(abs(MPU6050Variant.mpu6050.temperature.celsius(raw: -521) - 35) < 0.01)
        #expect(abs(MPU6050Variant.mpu6500.temperature.celsius(raw: 3338.7) - 31) < 1e-9)
    }

    // MARK: Self-test

    @Test(arguments: MPU6050Variant.allCases)
    func selfTestPassesAHealthyPartAndRestoresTheConfiguration(variant: MPU6050Variant) throws {
        let rig = MPURig(SimulatedMPU6050.Configuration(variant: variant, scene: .pose(SimulatedPose(roll: Angle(degrees: 20)))))
        _ = try rig.driver.start(SamplingRequest(rateHz: 200, rangeG: 16))
        let before = rig.driver.configuration
        let report = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(report.passed, "\(report)")
        #expect(report.model == variant.rawValue && report.axes.map(\.name) == ["x", "y", "z"])
        // The deltas are the factory responses in LSB at the test range.
        let codes = rig.chip.configuration.effectiveSelfTestCodes
        for (axis, code) in zip(report.axes, codes) {
            let factory = variant.hasMPU6500RegisterMap ? MPU6050SelfTestLimits.mpu6500FactoryTrim(code: code)
                : MPU6050SelfTestLimits.mpu6050FactoryTrim(code: code)
            #expect(abs(axis.delta / factory - 1) < 0.03, "\(axis.name): \(axis.delta) vs \(factory)")
        }
        #expect(report.samplesPerMean == (variant.hasMPU6500RegisterMap ? 200 : 20))
        #expect(rig.driver.configuration == before)
        #expect(rig.chip.storedRegister(MPU6050Register.accelConfig) & 0xE0 == 0, "the force is off again")
        let (samples, _) = try rig.drain(after: 0.05)
        #expect(samples.count == 10)
    }

    @Test(arguments: MPU6050Variant.allCases)
    func selfTestFailsAWeakAxis(variant: MPU6050Variant) throws {
        // −60 % fails both ±14 % (MPU-6050) and 0.5…1.5 (MPU-6500/9250).
        let rig = MPURig(SimulatedMPU6050.Configuration(variant: variant, selfTestError: Vector3(x: 0, y: -0.6, z: 0)))
        let report = try rig.driver.selfTest()
        #expect(!report.passed)
        #expect(report.axes.map(\.passed) == [true, false, true])
        #expect(rig.chip.isAsleep, "a chip that was asleep is left asleep")
    }

    @Test func selfTestOfAnMPU6050IsJudgedAgainstItsTrimWithinFourteenPercent() throws {
        let pass = MPURig(SimulatedMPU6050.Configuration(noiseDensity: 0, selfTestError: Vector3(x: 0.12, y: -0.12, z: 0)))
        #expect(try pass.driver.selfTest().passed)
        let fail = MPURig(SimulatedMPU6050.Configuration(noiseDensity: 0, selfTestError: Vector3(x: 0.16, y: 0, z: 0)))
        #expect(try fail.driver.selfTest().axes.map(\.passed) == [false, true, true])
    }

    @Test func trimCodesDecodeFromTheirSplitRegisters() {
        // XA_TEST = 0b10110 (22): bits 4:2 (0b101) in SELF_TEST_X 7:5, bits 1:0 (0b10) in SELF_TEST_A 5:4.
        let registers: [UInt8] = [0b1010_0000, 0b0100_0000, 0b1110_0000, 0b10_01_11]
        #expect(MPU6050SelfTestLimits.codes(from: registers, variant: .mpu6050) == [22, 9, 31])
        #expect(MPU6050SelfTestLimits.codes(from: [7, 8, 9, 0xFF], variant: .mpu6500) == [7, 8, 9])
        #expect(abs(MPU6050SelfTestLimits.mpu6050FactoryTrim(code: 1) - 1392.64) < 1e-9)
        #expect(abs(MPU6050SelfTestLimits.mpu6050FactoryTrim(code: 31) - 4096 * 0.92) < 1e-9)
        #expect(MPU6050SelfTestLimits.mpu6500FactoryTrim(code: 1) == 2620)
        #expect(MPU6050SelfTestLimits.mpu6050FactoryTrim(code: 0) == 0)
    }

    // MARK: Stop

    @Test func stopPutsTheChipToSleepAndDrainsNothing() throws {
        let rig = MPURig(ideal: .mpu6050)
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        try rig.driver.stop()
        #expect(rig.chip.isAsleep)
        #expect(rig.chip.storedRegister(MPU6050Register.pwrMgmt1) & 0x40 != 0)
        #expect(rig.chip.storedRegister(MPU6050Register.userCtrl) & 0x40 == 0, "the FIFO is off")
        let produced = rig.chip.statistics.samplesProduced
        let (samples, report) = try rig.drain(after: 1)
        #expect(samples.isEmpty && report.count == 0)
        #expect(rig.chip.statistics.samplesProduced == produced, "asleep, the chip converts nothing")
        #expect(rig.driver.configuration == nil)
    }
}
