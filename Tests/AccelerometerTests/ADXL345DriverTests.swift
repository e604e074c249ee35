@testable import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Testing

@Suite("ADXL345 driver against the simulated chip")
struct ADXL345DriverTests {
    @Test func probeReadsDeviceID() throws {
        let rig = Rig()
        let identity = try rig.driver.probe()
        #expect(identity.deviceID == 0xE5)
        #expect(identity.model == "ADXL345")
    }

    @Test func probeOfAnotherChipNamesTheIDItRead() throws {
        let rig = Rig()
        let driver = ADXL345(bus: ImpostorBus(base: rig.chip, deviceID: 0x68), clock: rig.clock)
        let error = #expect(throws: SensorError.self) { try driver.probe() }
        #expect(error?.code == .wrongDevice)
        #expect(error?.description.contains("0x68") == true)
        #expect(error?.description.contains("0xE5") == true)
    }

    @Test func startWritesTheDatasheetInitSequence() throws {
        let rig = Rig()
        let settings = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 16))
        let expected: [RegisterWrite] = [
            .init(register: 0x2D, value: 0x00),  // POWER_CTL: standby first
            .init(register: 0x31, value: 0x0B),  // DATA_FORMAT: FULL_RES | ±16 g, right-justified
            .init(register: 0x2C, value: 0x0A),  // BW_RATE: 100 Hz, normal power
            .init(register: 0x38, value: 0x00),  // FIFO_CTL: bypass empties the FIFO
            .init(register: 0x38, value: 0x8A),  // FIFO_CTL: stream, watermark 10
            .init(register: 0x2D, value: 0x08),  // POWER_CTL: Measure, last
        ]
        #expect(rig.chip.writeLog == expected)
        #expect(settings == SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33))
    }

    @Test(arguments: [(6.25, 0x06), (12.5, 0x07), (25, 0x08), (50, 0x09), (100, 0x0A), (200, 0x0B),
                      (400, 0x0C), (800, 0x0D), (1600, 0x0E), (3200, 0x0F)] as [(Double, UInt8)])
    func everySupportedRateProgramsItsCode(hertz: Double, code: UInt8) throws {
        let rig = Rig()
        let settings = try rig.driver.start(SamplingRequest(rateHz: hertz, rangeG: 2))
        #expect(settings.rateHz == hertz)
        #expect(rig.chip.writeLog.contains(RegisterWrite(register: 0x2C, value: code)))
    }

    @Test func aRateBetweenTwoRunsAtTheNearestOfferedFaster() throws {
        #expect(try Rig().driver.start(SamplingRequest(rateHz: 150, rangeG: 16)).rateHz == 200)
        #expect(try Rig().driver.start(SamplingRequest(rateHz: 120, rangeG: 16)).rateHz == 100)
        #expect(try Rig().driver.start(SamplingRequest(rateHz: 1, rangeG: 16)).rateHz == 6.25)
    }

    @Test func unsupportedRateOrRangeIsRefusedWithTheValidChoices() {
        let rig = Rig()
        let rate = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: .nan, rangeG: 16)) }
        #expect(rate?.code == .invalidSetting)
        #expect(rate?.description.contains("6.25") == true)
        #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: 0, rangeG: 16)) }
        let range = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 3)) }
        #expect(range?.description.contains("2, 4, 8 or 16") == true)
        #expect(rig.chip.writeLog.isEmpty, "a refused setting must not touch the chip")
    }

    @Test func noReservedRegisterIsEverTouched() throws {
        let rig = Rig()
        _ = try rig.driver.probe()
        _ = try rig.driver.start(SamplingRequest())
        rig.clock.advance(by: 0.5)
        var samples: [Vector3] = []
        _ = try rig.driver.drain(into: &samples)
        _ = try rig.driver.readOffsets()
        _ = try rig.driver.selfTest(supplyVoltage: 3.3)
        try rig.driver.stop()
        #expect(rig.chip.statistics.reservedAccesses == 0)
    }

    @Test func stopPutsTheChipInStandby() throws {
        let rig = Rig()
        _ = try rig.driver.start(SamplingRequest())
        try rig.driver.stop()
        #expect(rig.chip.writeLog.last == RegisterWrite(register: 0x2D, value: 0x00))
        #expect(rig.driver.configuration == nil)
    }

    // MARK: FIFO

    @Test func drainReadsEveryBufferedEntryOldestFirst() throws {
        let rig = Rig(.init(scene: .fixed(Vector3(x: 0, y: 0, z: 1)), noiseXY: 0))
        _ = try rig.driver.start(SamplingRequest(rateHz: 800, rangeG: 16))
        rig.clock.advance(by: 0.02)  // 16 periods at 800 Hz
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        #expect((15...16).contains(report.count))
        #expect(report.overrun == false)
        #expect(samples.count == report.count)
        #expect(samples.allSatisfy { $0 == Vector3(x: 0, y: 0, z: 1) })
        let again = try rig.driver.drain(into: &samples)
        #expect(again.count == 0, "every entry was read once")
    }

    @Test func streamOverflowIsReportedAndTheNewestSamplesKept() throws {
        let rig = Rig(.init(noiseXY: 0))
        _ = try rig.driver.start(SamplingRequest(rateHz: 800, rangeG: 16))
        rig.clock.advance(by: 0.1)  // 80 samples into a 33-entry buffer
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        #expect(report.count == 33)
        #expect(report.overrun)
        #expect(rig.chip.statistics.overwritten > 0)
    }

    @Test func aDriverThatKeepsUpLosesNothing() throws {
        let rig = Rig()
        let settings = try rig.driver.start(SamplingRequest(rateHz: 800, rangeG: 16))
        var samples: [Vector3] = []
        for _ in 0..<200 {
            rig.clock.advance(by: Double(settings.watermark) / settings.rateHz)
            let report = try rig.driver.drain(into: &samples)
            #expect(!report.overrun)
        }
        let statistics = rig.chip.statistics
        #expect(statistics.overwritten == 0 && statistics.lost == 0)
        #expect(samples.count == statistics.entriesRead)
        // Every sample produced was delivered, but for the few a drain leaves for the next.
        let held = Int(try rig.chip.readRegister(at: rig.chip.address, ADXL345Register.fifoStatus))
        #expect(samples.count + held == statistics.samplesProduced)
        #expect(held <= ADXL345.carryLimit(watermark: settings.watermark))
        #expect(samples.count >= 200 * settings.watermark - 2 - held)
    }

    // MARK: Decoding through the chip

    @Test(arguments: ADXL345Range.allCases, [true, false])
    func decodesFullScaleInEveryRangeAndResolution(range: ADXL345Range, fullResolution: Bool) throws {
        for justified in [false, true] {
            let full = Double(range.gravities)
            let lsb = 1 / range.countsPerG(fullResolution: fullResolution)
            // Just inside each end of the range: decodes to itself within one LSB, unclipped.
            for value in [full - 2 * lsb, -full + 2 * lsb] {
                let reading = try readOne(range: range, fullResolution: fullResolution, leftJustified: justified,
                                          force: Vector3(x: value, y: -value, z: value / 2))
                #expect(isClose(reading.gravity.x, value, within: lsb), "\(range) full-res \(fullResolution) justify \(justified)")
                #expect(isClose(reading.gravity.y, -value, within: lsb))
                #expect(isClose(reading.gravity.z, value / 2, within: lsb))
                #expect(reading.clipped == 0)
            }
            // Beyond the range: held at the rail, never rolled over to the other sign.
            let beyond = try readOne(range: range, fullResolution: fullResolution, leftJustified: justified,
                                     force: Vector3(x: full * 1.5, y: -full * 1.5, z: 0))
            #expect(beyond.gravity.x > full - 2 * lsb)
            #expect(beyond.gravity.y <= -full + lsb)
            #expect(beyond.clipped == 1)
        }
    }

    private func readOne(range: ADXL345Range, fullResolution: Bool, leftJustified: Bool,
                         force: Vector3) throws -> (gravity: Vector3, clipped: Int) {
        let rig = Rig(.init(scene: .fixed(force), noiseXY: 0))
        var configuration = ADXL345Configuration()
        configuration.range = range
        configuration.fullResolution = fullResolution
        configuration.leftJustified = leftJustified
        try rig.driver.configure(configuration)
        rig.clock.advance(by: 0.05)
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        let first = try #require(samples.first)
        return (first, report.clipped > 0 ? 1 : 0)
    }

    // MARK: Offsets

    @Test func offsetRegistersRoundTripAndShiftTheOutput() throws {
        let rig = Rig(.init(noiseXY: 0))
        try rig.driver.writeOffsets(ADXL345Offsets(x: 4, y: -3, z: 0))
        #expect(try rig.driver.readOffsets() == ADXL345Offsets(x: 4, y: -3, z: 0))
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: 16))
        rig.clock.advance(by: 0.1)
        var samples: [Vector3] = []
        _ = try rig.driver.drain(into: &samples)
        let sample = try #require(samples.last)
        #expect(isClose(sample.x, 4 * 0.0156, within: 1 / 256.0))
        #expect(isClose(sample.y, -3 * 0.0156, within: 1 / 256.0))
    }

    // MARK: Faults

    @Test func noAcknowledgeBecomesAWiringMessage() {
        let rig = Rig(.init(fault: .noAcknowledge))
        let error = #expect(throws: SensorError.self) { try rig.driver.probe() }
        #expect(error?.code == .bus)
        #expect(error?.busError?.code == .noAcknowledge)
        #expect(error?.description.contains("0x53") == true)
        #expect(error?.description.contains("wiring") == true)
    }

    @Test func busErrorIsTypedAndNamesTheRemedy() {
        let rig = Rig(.init(fault: .busError))
        let error = #expect(throws: SensorError.self) { try rig.driver.start(SamplingRequest()) }
        #expect(error?.busError?.code == .busError)
        #expect(error?.description.contains("pull-ups") == true)
    }

    @Test func aChipThatWasPowerCycledIsReconfiguredByStart() throws {
        let rig = Rig()
        _ = try rig.driver.start(SamplingRequest())
        rig.chip.setFault(.unplugged(at: rig.clock.now() + 0.1, for: 0.5))
        rig.clock.advance(by: 0.2)
        var samples: [Vector3] = []
        #expect(throws: SensorError.self) { try rig.driver.drain(into: &samples) }
        rig.clock.advance(by: 1)
        // Back, but reset to standby: nothing arrives until the driver configures it again.
        samples.removeAll()
        _ = try rig.driver.drain(into: &samples)
        rig.clock.advance(by: 0.2)
        let stale = try rig.driver.drain(into: &samples)
        #expect(stale.count == 0)
        _ = try rig.driver.start(SamplingRequest())
        rig.clock.advance(by: 0.2)
        #expect(try rig.driver.drain(into: &samples).count > 0)
    }
}
