import Accelerometers
import Geometry
import Glibc
import I2C
import SimulatedADXL345
import Testing

/// The simulated ADXL345 at the register level: register file, ODR clock and FIFO, exercised
/// through the `I2CBus` API only.
@Suite("Simulated ADXL345: registers, clock and FIFO")
struct SimulatorModelTests {
    // MARK: Register file

    @Test func powersOnWithTheDatasheetResetValues() throws {
        let rig = SimRig()
        #expect(try rig.read(ADXL345Register.devid) == 0xE5)
        let first = ADXL345Register.threshTap
        let bytes = try rig.read(first, count: Int(ADXL345Register.fifoStatus - first) + 1)
        for (offset, byte) in bytes.enumerated() {
            let register = first + UInt8(offset)
            #expect(byte == ADXL345Register.resetValues[register], "register \(register)")
        }
        #expect(rig.chip.statistics.reservedAccesses == 0)
    }

    @Test func deviceIDAndStatusRegistersIgnoreWrites() throws {
        let rig = SimRig()
        for register in [ADXL345Register.devid, ADXL345Register.intSource, ADXL345Register.dataX0,
                         ADXL345Register.dataX0 + 5, ADXL345Register.fifoStatus] {
            let before = try rig.read(register)
            try rig.write(register, 0x5A)
            #expect(try rig.read(register) == before, "register \(register)")
        }
        #expect(try rig.read(ADXL345Register.devid) == ADXL345Register.expectedDeviceID)
    }

    @Test func burstReadsAutoIncrement() throws {
        let rig = SimRig()
        try rig.write(ADXL345Register.ofsx, 0x11)
        try rig.write(ADXL345Register.ofsy, 0x22)
        try rig.write(ADXL345Register.ofsz, 0x33)
        try rig.write(ADXL345Register.dur, 0x44)
        #expect(try rig.read(ADXL345Register.ofsx, count: 4) == [0x11, 0x22, 0x33, 0x44])
    }

    @Test func reservedRegistersReadZeroIgnoreWritesAndAreCounted() throws {
        let rig = SimRig()
        #expect(try rig.read(0x01, count: 4) == [0, 0, 0, 0])
        try rig.write(0x10, 0xFF)
        #expect(try rig.read(0x10) == 0)
        // A burst running past FIFO_STATUS touches 0x3A and 0x3B.
        _ = try rig.read(ADXL345Register.fifoCtl, count: 4)
        try rig.write(0x40, 0x01)
        #expect(rig.chip.statistics.reservedAccesses == 4 + 1 + 1 + 2 + 1)
    }

    @Test func writeLogRecordsEveryAcknowledgedWriteInOrderAndClears() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0B, dataFormat: 0x0B, fifoCtl: 0x9F)
        #expect(rig.chip.writeLog == [
            RegisterWrite(register: 0x2D, value: 0x00),
            RegisterWrite(register: 0x31, value: 0x0B),
            RegisterWrite(register: 0x2C, value: 0x0B),
            RegisterWrite(register: 0x38, value: 0x9F),
            RegisterWrite(register: 0x2D, value: 0x08),
        ])
        #expect(rig.chip.writeLog.last?.description == "0x2D ← 0x08")
        rig.chip.clearWriteLog()
        #expect(rig.chip.writeLog.isEmpty)
    }

    @Test func anotherAddressIsNotAcknowledged() throws {
        let rig = SimRig()
        let other = try #require(I2CAddress(0x1D))
        let error = #expect(throws: I2CError.self) {
            _ = try rig.chip.readRegister(at: other, ADXL345Register.devid)
        }
        #expect(error?.code == .noAcknowledge)
        #expect(error?.errno == EREMOTEIO)
        #expect(rig.chip.name == "simulated ADXL345")
        #expect(rig.chip.transferMode == .simulated)
    }

    @Test func aReadOfNoBytesIsAnInvalidRequest() throws {
        let rig = SimRig()
        let error = #expect(throws: I2CError.self) { _ = try rig.read(ADXL345Register.devid, count: 0) }
        #expect(error?.code == .invalidRequest)
        #expect(rig.chip.statistics.failedTransactions == 1)
    }

    // MARK: ODR clock

    @Test func standbyProducesNoSamples() throws {
        let rig = SimRig()
        try rig.write(ADXL345Register.fifoCtl, SimRig.stream)
        rig.clock.advance(by: 10)
        #expect(try rig.entries() == 0)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.dataReady == 0)
        #expect(rig.chip.statistics.samplesProduced == 0)
    }

    @Test func theFirstSampleArrivesOnePeriodPlusWakeUpAfterMeasure() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0A)
        let due = SimRig.firstSampleDelay(hertz: 100)  // 11.1 ms
        rig.clock.advance(to: due - 0.000_05)
        #expect(try rig.entries() == 0)
        rig.clock.advance(to: due + 0.000_05)
        #expect(try rig.entries() == 1)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.dataReady != 0)
    }

    @Test(arguments: [(UInt8(0x07), 12.5), (0x0A, 100), (0x0B, 200), (0x0D, 800), (0x0F, 3200)])
    func samplesArriveAtTheConfiguredRate(code: UInt8, hertz: Double) throws {
        let rig = SimRig()
        try rig.start(rateCode: code)
        rig.clock.advance(to: SimRig.firstSampleDelay(hertz: hertz))
        #expect(rig.chip.statistics.samplesProduced == 1)
        rig.clock.advance(by: 0.5)
        #expect(rig.chip.statistics.samplesProduced == 1 + Int(hertz * 0.5))
    }

    @Test func clearingMeasureStopsTheClockAndKeepsTheFIFO() throws {
        let rig = SimRig()
        try rig.start()
        rig.clock.advance(by: 0.1)
        try rig.write(ADXL345Register.powerCtl, 0)
        let held = try rig.entries()
        rig.clock.advance(by: 1)
        #expect(try rig.entries() == held)
        #expect(held == 9)
        // Measure again: the wake-up delay applies anew.
        try rig.write(ADXL345Register.powerCtl, PowerCtl.measure)
        rig.clock.advance(by: 0.011)
        #expect(try rig.entries() == held)
        rig.clock.advance(by: 0.0002)
        #expect(try rig.entries() == held + 1)
    }

    @Test func aRateChangeWhileMeasuringRestartsTheGridWithoutWakeUp() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0A)
        rig.clock.advance(to: 0.1)  // 9 samples at 100 Hz
        try rig.write(ADXL345Register.bwRate, 0x0B)  // 200 Hz: the next one period later
        rig.clock.advance(to: 0.1049)
        #expect(rig.chip.statistics.samplesProduced == 9)
        rig.clock.advance(to: 0.1051)
        #expect(rig.chip.statistics.samplesProduced == 10)
        rig.clock.advance(to: 0.6051)
        #expect(rig.chip.statistics.samplesProduced == 110)
    }

    @Test func anEnormousGapIsAccountedForWithoutComputingEverySample() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0F)  // 3200 Hz
        rig.clock.advance(by: 1_000_000)  // 11.6 days: 3.2 × 10⁹ samples
        let clock = ContinuousClock()
        let started = clock.now
        let statistics = rig.chip.statistics
        #expect(clock.now - started < .seconds(1))
        let delay = SimRig.firstSampleDelay(hertz: 3200)
        #expect(statistics.samplesProduced == Int(((1_000_000 - delay) * 3200).rounded(.down)) + 1)
        #expect(try rig.entries() == 33)
        #expect(statistics.overwritten == statistics.samplesProduced - 33)
        #expect(statistics.skipped == statistics.samplesProduced - 33)
    }

    // MARK: FIFO

    @Test func fifoModeStopsCollectingWhenFullAndKeepsTheOldest() throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 0, y: 0, z: 1)))
        try rig.start(fifoCtl: SimRig.fifo)
        rig.clock.advance(by: 0.2)  // 19 samples of the first scene
        rig.chip.setScene(.fixed(Vector3(x: 0, y: 0, z: -1)))
        rig.clock.advance(by: 0.8)  // 80 more
        #expect(try rig.entries() == 33)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.overrun != 0)
        let samples = try rig.drain()
        #expect(samples.prefix(19).allSatisfy { $0.z == 256 })
        #expect(samples.dropFirst(19).allSatisfy { $0.z == -256 })
        let statistics = rig.chip.statistics
        #expect(statistics.lost == 99 - 33)
        #expect(statistics.overwritten == 0)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.overrun == 0)
    }

    @Test func streamModeKeepsTheNewestAndCountsEachOverwrittenSample() throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 0, y: 0, z: 1)))
        try rig.start(fifoCtl: SimRig.stream)
        rig.clock.advance(by: 0.2)  // 19 samples of the first scene
        rig.chip.setScene(.fixed(Vector3(x: 0, y: 0, z: -1)))
        rig.clock.advance(by: 0.3)  // 30 more: 49 in all
        #expect(try rig.entries() == 33)
        #expect(rig.chip.statistics.overwritten == 49 - 33)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.overrun != 0)
        let samples = try rig.drain()
        #expect(samples.prefix(3).allSatisfy { $0.z == 256 })
        #expect(samples.dropFirst(3).allSatisfy { $0.z == -256 })
    }

    @Test func thirtyThreeEntriesCanBeReadThenTheLastStays() throws {
        let rig = SimRig.noiseless()
        try rig.start(fifoCtl: SimRig.stream)
        rig.clock.advance(by: 1)
        #expect(try rig.entries() == 33)
        for remaining in stride(from: 32, through: 0, by: -1) {
            _ = try rig.readSample()
            #expect(try rig.entries() == remaining)
        }
        #expect(try rig.readSample() == SimSample(x: 0, y: 0, z: 256))
        #expect(rig.chip.statistics.entriesRead == 33)
    }

    @Test func aShortReadPopsTheWholeEntry() throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 0.5, y: 0, z: 1)))
        try rig.start(fifoCtl: SimRig.stream)
        rig.clock.advance(to: SimRig.firstSampleDelay(hertz: 100))
        rig.chip.setScene(.fixed(Vector3(x: -0.5, y: 0, z: 1)))
        rig.clock.advance(by: 0.01)
        #expect(try rig.entries() == 2)
        #expect(try rig.read(ADXL345Register.dataX0, count: 2) == [0x80, 0x00])  // X of the first: 128
        #expect(try rig.entries() == 1)
        #expect(try rig.readSample() == SimSample(x: -128, y: 0, z: 256))
        // A read that merely ends in the data registers pops too.
        rig.clock.advance(by: 0.01)
        _ = try rig.read(ADXL345Register.dataFormat, count: 2)
        #expect(try rig.entries() == 0)
    }

    @Test func aBurstAcrossStatusAndDataSeesOneSnapshotAndPopsOnce() throws {
        let rig = SimRig.noiseless()
        try rig.start(fifoCtl: SimRig.stream | 5)
        rig.clock.advance(by: 0.1)  // 9 entries
        let bytes = try rig.read(ADXL345Register.intSource, count: 10)
        #expect(bytes[0] == Interrupt.dataReady | Interrupt.watermark)
        #expect(SimSample(bytes: Array(bytes[2..<8])) == SimSample(x: 0, y: 0, z: 256))
        #expect(bytes[9] == 9)
        #expect(try rig.entries() == 8)
    }

    @Test func watermarkFollowsTheEntriesAgainstFIFOCtlSamples() throws {
        let rig = SimRig.noiseless()
        try rig.start(fifoCtl: SimRig.stream | 10)
        rig.clock.advance(to: SimRig.firstSampleDelay(hertz: 100) + 0.085)  // 9 samples
        #expect(try rig.entries() == 9)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.watermark == 0)
        rig.clock.advance(by: 0.01)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.watermark != 0)
        _ = try rig.readSample()
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.watermark == 0)
    }

    @Test func writingBypassClearsTheFIFO() throws {
        let rig = SimRig.noiseless()
        try rig.start(fifoCtl: SimRig.stream)
        rig.clock.advance(by: 0.2)
        #expect(try rig.entries() == 19)
        try rig.write(ADXL345Register.fifoCtl, SimRig.bypass)
        #expect(try rig.entries() == 0)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.dataReady == 0)
        #expect(rig.chip.statistics.lost == 19)
    }

    @Test func bypassHoldsOnlyTheNewestSampleAndFlagsOverrun() throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 0, y: 0, z: 1)))
        try rig.start(fifoCtl: SimRig.bypass)
        rig.clock.advance(by: 0.05)
        rig.chip.setScene(.fixed(Vector3(x: 0, y: 1, z: 0)))
        rig.clock.advance(by: 0.01)
        #expect(try rig.entries() == 1)
        #expect(try rig.read(ADXL345Register.intSource) & Interrupt.overrun != 0)
        #expect(try rig.readSample() == SimSample(x: 0, y: 256, z: 0))
        #expect(try rig.entries() == 0)
        #expect(try rig.read(ADXL345Register.intSource) == Interrupt.watermark)
        #expect(rig.chip.statistics.overwritten == 4)
    }

    @Test func everySampleIsAccountedForExactlyOnce() throws {
        let rig = SimRig()
        try rig.start(fifoCtl: SimRig.fifo)
        rig.clock.advance(by: 0.7)
        _ = try rig.drain()
        try rig.write(ADXL345Register.fifoCtl, SimRig.stream)
        rig.clock.advance(by: 0.6)
        for _ in 0..<10 { _ = try rig.readSample() }
        try rig.write(ADXL345Register.fifoCtl, SimRig.bypass)
        rig.clock.advance(by: 0.3)
        let held = try rig.entries()
        let s = rig.chip.statistics
        #expect(s.samplesProduced == s.entriesRead + s.overwritten + s.lost + held)
        #expect(s.samplesProduced > 100)
    }
}
