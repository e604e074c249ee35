import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedADXL355
import Testing

@Suite("ADXL355 driver against its register-level simulator")
struct ADXL355DriverTests {
    // MARK: Probe

    @Test("probe reads DEVID_AD, DEVID_MST and PARTID and reports PARTID")
    func probeReadsTheThreeIDs() throws {
        let rig = Rig355()
        let identity = try rig.driver.probe()
        #expect(identity.model == "ADXL355" && identity.deviceID == 0xED)
    }

    @Test("a part with another PARTID is refused, naming the register and what it read")
    func wrongPartIDIsRefused() {
        let rig = Rig355(.init(partID: 0xE9))
        #expect {
            _ = try rig.driver.probe()
        } throws: { error in
            guard let error = error as? SensorError else { return false }
            return error.code == .wrongDevice && error.description.contains("PARTID 0xE9")
                && error.description.contains("0xED") && error.description.contains("ASEL")
        }
    }

    @Test("an ADXL345 at 0x1D is refused on DEVID_AD, with what it read")
    func anADXL345IsRefused() {
        let clock = ManualSimulationClock()
        let other = SimulatedADXL345(configuration: .init(address: I2CAddress(0x1D)!), clock: clock)
        let driver = ADXL355(bus: other, clock: clock)
        #expect {
            _ = try driver.probe()
        } throws: { error in
            (error as? SensorError)?.code == .wrongDevice && "\(error)".contains("DEVID_AD 0xE5")
        }
    }

    // MARK: Start

    @Test("start sets the nearest rate and the range, in standby, and reports what it set",
          arguments: [(100.0, 2, 125.0, UInt8(5), ADXL355Range.g2), (1000, 4, 1000, 2, .g4),
                      (4, 8, 3.90625, 10, .g8), (3000, 2, 4000, 0, .g2), (62.5, 8, 62.5, 6, .g8)])
    func startSetsRateAndRange(requested: Double, range: Int, expectedRate: Double, code: UInt8, expectedRange: ADXL355Range) throws {
        let rig = Rig355()
        let settings = try rig.driver.start(SamplingRequest(rateHz: requested, rangeG: range))
        #expect(settings.rateHz == expectedRate && settings.rangeG == range && settings.bufferCapacity == 32)
        #expect(rig.chip.peek(ADXL355Register.filter) == code)
        #expect(rig.chip.peek(ADXL355Register.range) == ADXL355Range.i2cHighSpeed | expectedRange.rawValue)
        #expect(rig.chip.isMeasuring)
        #expect(rig.chip.statistics.configurationWritesWhileMeasuring == 0)
        // Reset, standby, RANGE and FILTER, then measurement: the datasheet's order.
        let writes = rig.chip.writeLog.map(\.register)
        #expect(writes == [ADXL355Register.reset, ADXL355Register.powerCtl, ADXL355Register.range,
                           ADXL355Register.filter, ADXL355Register.powerCtl])
        #expect(rig.chip.writeLog.last?.value == 0)
    }

    @Test("a range the chip lacks is refused, listing the ones it has")
    func rangeSixteenIsRefused() {
        let rig = Rig355()
        #expect {
            _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 16))
        } throws: { error in
            (error as? SensorError)?.code == .invalidSetting && "\(error)".contains("2, 4 or 8")
        }
        #expect(!rig.chip.isMeasuring)
    }

    // MARK: Drains

    @Test("drains give gravity in g with the right scale and sign at several attitudes and ranges",
          arguments: [2, 4, 8])
    func gravityAtAttitudes(range: Int) throws {
        let attitudes: [Vector3] = [
            Attitude.gravity(roll: Angle(degrees: 0), pitch: Angle(degrees: 0)),
            Attitude.gravity(roll: Angle(degrees: 30), pitch: Angle(degrees: -10)),
            Vector3(x: 0, y: 0, z: -1),  // face down
            Vector3(x: -1, y: 0, z: 0),  // on its side
            Attitude.gravity(roll: Angle(degrees: -5), pitch: Angle(degrees: 60)),
        ]
        for gravity in attitudes {
            let rig = Rig355(.init(scene: .fixed(gravity)))
            _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: range))
            let (samples, reports) = try rig.collect(for: 1)
            #expect(samples.count == rig.chip.statistics.samplesProduced && samples.count >= 124)
            #expect(reports.allSatisfy { !$0.overrun && $0.clipped == 0 })
            let mean = samples.reduce(Vector3.zero, +) / Double(samples.count)
            // 158 µg rms per sample at 125 Hz; the mean of 125 is good to about 14 µg; the
            // quantisation at ±8 g is 15.6 µg.
            for (read, truth) in [(mean.x, gravity.x), (mean.y, gravity.y), (mean.z, gravity.z)] {
                #expect(abs(read - truth) < 1e-4, "range \(range): \(mean) for \(gravity)")
            }
        }
    }

    @Test("a batched drain is one transaction, and every set produced arrives whole and in order")
    func batchedDrainsAreOneTransaction() throws {
        let gravity = Vector3(x: 0.2, y: -0.5, z: 0.8)
        let rig = Rig355(.init(scene: .fixed(gravity), noiseDensity: .zero))
        _ = try rig.driver.start(SamplingRequest(rateHz: 500, rangeG: 2))
        _ = try rig.collect(for: 0.3, every: 0.02)
        let before = rig.chip.statistics.transactions
        let drains = 20
        let (samples, _) = try rig.collect(for: Double(drains) * 0.02, every: 0.02)
        #expect(rig.chip.statistics.transactions - before == drains)
        #expect(samples.count == drains * 10)
        #expect(samples.allSatisfy { ($0 - gravity).magnitude < 1e-5 })
        #expect(rig.driver.drainStatistics.misalignedEntries == 0)
    }

    @Test("over SMBus the FIFO is read in whole sets of at most 27 bytes, and nothing is lost")
    func smbusReadsWholeSetsInBlocks() throws {
        var smbus: SMBus355?
        let rig = Rig355(.init(noiseDensity: .zero)) { chip in
            let bus = SMBus355(chip)
            smbus = bus
            return bus
        }
        _ = try rig.driver.start(SamplingRequest(rateHz: 250, rangeG: 2))
        let (samples, _) = try rig.collect(for: 1, every: 0.1)
        #expect(samples.count == rig.chip.statistics.samplesProduced)
        #expect(smbus?.largestRead == 27)
        #expect(samples.allSatisfy { ($0 - Vector3(x: 0, y: 0, z: 1)).magnitude < 1e-5 })
    }

    @Test("a FIFO split mid-set is re-aligned on the x-axis marker: no axis is read as another")
    func realignsOnTheXMarker() throws {
        let gravity = Vector3(x: 0.2, y: -0.5, z: 0.8)
        let rig = Rig355(.init(scene: .fixed(gravity), noiseDensity: .zero))
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        rig.clock.advance(by: 0.1)
        // Someone else reads one axis entry: the FIFO now begins with a y.
        _ = try rig.chip.readRegisters(at: rig.chip.address, from: ADXL355Register.fifoData, count: 3)
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        #expect(report.count == 11)
        #expect(rig.driver.drainStatistics.misalignedEntries == 2)
        #expect(samples.allSatisfy { ($0 - gravity).magnitude < 1e-5 }, "\(samples.prefix(2))")
    }

    @Test("a FIFO left too long overruns: the drain says so, takes the 32 sets it kept, and the next is clean")
    func overrunIsReported() throws {
        let rig = Rig355()
        _ = try rig.driver.start(SamplingRequest(rateHz: 1000, rangeG: 2))
        rig.clock.advance(by: 0.1)
        var samples: [Vector3] = []
        let first = try rig.driver.drain(into: &samples)
        #expect(first.overrun && first.count == 32)
        rig.clock.advance(by: 0.01)
        let second = try rig.driver.drain(into: &samples)
        #expect(!second.overrun && second.count == 10)
    }

    @Test("a sample beyond the range is reported as clipped, at the rail")
    func beyondTheRangeIsClipped() throws {
        let rig = Rig355(.init(scene: .fixed(Vector3(x: 3, y: 0, z: 1)), noiseDensity: .zero))
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        rig.clock.advance(by: 0.1)
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        #expect(report.count > 0 && report.clipped == report.count)
        #expect(abs(samples[0].x - Double((1 << 19) - 1) / 256_000) < 1e-9)
    }

    // MARK: Stop

    @Test("stop leaves the chip in standby: no more samples, and drains give nothing")
    func stopIsStandby() throws {
        let rig = Rig355()
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        rig.clock.advance(by: 0.1)
        try rig.driver.stop()
        #expect(!rig.chip.isMeasuring)
        #expect(rig.chip.peek(ADXL355Register.powerCtl) & ADXL355PowerCtl.standby != 0)
        let produced = rig.chip.statistics.samplesProduced
        rig.clock.advance(by: 1)
        var samples: [Vector3] = []
        #expect(try rig.driver.drain(into: &samples).count == 0)
        #expect(rig.chip.statistics.samplesProduced == produced && rig.driver.configuration == nil)
    }

    // MARK: Temperature

    @Test("temperature reads the datasheet's nominal figures: 1885 LSB is 25 °C, −9.05 LSB/°C",
          arguments: [25.0, -10, 60, 85])
    func temperature(celsius: Double) throws {
        let rig = Rig355(.init(temperature: celsius))
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        // Half an LSB of 9.05 per °C.
        #expect(abs(try rig.driver.readTemperature() - celsius) <= 0.5 / 9.05 + 1e-9)
        rig.chip.setTemperature(celsius + 10)
        #expect(abs(try rig.driver.readTemperature() - (celsius + 10)) <= 0.5 / 9.05 + 1e-9)
    }

    @Test("the 12-bit raw temperature joins TEMP2's low nibble and TEMP1")
    func temperatureRegisters() {
        #expect(ADXL355.temperatureRaw(temp2: 0x07, temp1: 0x5D) == 1885)
        #expect(ADXL355.temperatureRaw(temp2: 0xF7, temp1: 0x5D) == 1885)  // TEMP2's high nibble is not data
        #expect(ADXL355.temperatureSensor.celsius(raw: 1885) == 25)
        #expect(abs(ADXL355.temperatureSensor.celsius(raw: 1885 - 90.5) - 35) < 1e-9)
    }

    // MARK: Self-test

    @Test("a healthy part passes the self-test, in LSB of 64 000/g, and the force is off afterwards")
    func selfTestPasses() throws {
        let rig = Rig355()
        _ = try rig.driver.start(SamplingRequest(rateHz: 250, rangeG: 2))
        let report = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(report.passed && report.model == "ADXL355" && report.samplesPerMean == 20)
        let expected = SimulatedADXL355.Configuration.typicalSelfTestResponse * 64_000
        for (axis, delta) in zip(report.axes, [expected.x, expected.y, expected.z]) {
            #expect(abs(axis.delta - delta) < 40, "\(axis.name): \(axis.delta)")
        }
        #expect(report.axes[2].minimum == 0.5 * 64_000 && report.axes[2].maximum == 3.0 * 64_000)
        // The running configuration is back, the force off.
        #expect(rig.driver.configuration?.rateHz == 250 && rig.driver.configuration?.range == .g2)
        #expect(rig.chip.peek(ADXL355Register.selfTest) == 0 && rig.chip.isMeasuring)
    }

    @Test("a stuck axis fails the self-test, and only that axis; a stopped chip is left in standby")
    func selfTestFails() throws {
        let rig = Rig355(.init(selfTestResponse: Vector3(x: 0.3, y: 0.3, z: 0)))
        let report = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(!report.passed)
        #expect(report.axes.map(\.passed) == [true, true, false])
        #expect(!rig.chip.isMeasuring && rig.chip.peek(ADXL355Register.selfTest) == 0)
    }

    @Test("a supply outside 2.25–3.6 V is refused")
    func selfTestSupply() {
        let rig = Rig355()
        #expect(throws: SensorError.self) { _ = try rig.driver.selfTest(supplyVoltage: 5) }
    }

    @Test("the 20-bit decoding is left-justified two's complement, with the FIFO's two flags")
    func decoding() {
        #expect(ADXL355.decodeAxis(0x7F, 0xFF, 0xF0).value == (1 << 19) - 1)
        #expect(ADXL355.decodeAxis(0x80, 0x00, 0x00).value == -(1 << 19))
        #expect(ADXL355.decodeAxis(0xFF, 0xFF, 0xF0).value == -1)
        #expect(ADXL355.decodeAxis(0x3E, 0x80, 0x00).value == 256_000)
        let marked = ADXL355.decodeAxis(0x00, 0x00, 0x11)
        #expect(marked.value == 1 && marked.xMarker && !marked.empty)
        #expect(ADXL355.decodeAxis(0x00, 0x00, 0x02).empty)
    }
}
