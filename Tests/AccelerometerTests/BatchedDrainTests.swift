@testable import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Testing

@Suite("ADXL345 driver: FIFO draining in batches")
struct BatchedDrainTests {
    private static let entry = RegisterRun(register: ADXL345Register.dataX0, count: 6)
    private static let status = RegisterRun(register: ADXL345Register.fifoStatus, count: 1)

    // MARK: Transactions

    @Test func aStatusFirstDrainReadsItsEntriesInOneTransactionEndingWithFIFOStatus() throws {
        let rig = TwinRig()
        _ = try rig.start(hertz: 800)
        rig.clock.advance(by: 0.02)
        let before = rig.chip.statistics.transactions
        var samples: [Vector3] = []
        let report = try rig.driver.drain(into: &samples)
        #expect((15...16).contains(report.count))
        // FIFO_STATUS alone, then every entry and FIFO_STATUS again in one I2C_RDWR.
        #expect(rig.chip.statistics.transactions - before == 2)
        #expect(rig.bus.calls == [Array(repeating: Self.entry, count: report.count) + [Self.status]])
        #expect(rig.driver.drainStatistics.statusFirstDrains == 1)
    }

    @Test func onceTheRateIsMeasuredADrainIsOneTransactionWithNoStatusReadFirst() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        #expect(settings.watermark == 17)
        let period = Double(settings.watermark) / settings.rateHz
        var samples: [Vector3] = []
        try rig.drain(40, every: period, into: &samples)  // 0.85 s: the rate is measured after 0.25 s
        let transactions = rig.chip.statistics.transactions
        let delivered = samples.count
        let drains = rig.driver.drainStatistics
        for _ in 0..<100 {
            rig.clock.advance(by: period)
            let before = rig.chip.statistics.transactions
            let report = try rig.driver.drain(into: &samples)
            #expect(rig.chip.statistics.transactions - before == 1)
            #expect(report.count >= 15 && report.count <= 19)
            #expect(!report.overrun)
        }
        #expect(rig.driver.drainStatistics.carriedDrains - drains.carriedDrains == 100)
        let perSample = Double(rig.chip.statistics.transactions - transactions) / Double(samples.count - delivered)
        #expect(perSample <= 1 / 16.0)
        let last = try #require(rig.bus.calls.last)
        #expect(last.first == Self.status, "FIFO_STATUS first, proving the entries after it")
        #expect(last.last == Self.status)
        #expect(last.dropFirst().dropLast().allSatisfy { $0 == Self.entry })
        #expect(2 * last.count <= LinuxI2CBus.maxMessagesPerTransaction)
        // A few entries wait for the next drain; nothing is lost.
        let held = try rig.chip.readRegister(at: rig.chip.address, ADXL345Register.fifoStatus)
        #expect(held >= 1 && held <= 8)
        #expect(rig.chip.statistics.overwritten == 0)
    }

    @Test func aLateDrainReadsTheFullFIFOInTwoTransactionsAndReportsTheOverrun() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        var samples: [Vector3] = []
        try rig.drain(20, every: Double(settings.watermark) / settings.rateHz, into: &samples)
        #expect(rig.driver.drainStatistics.carriedDrains > 0)
        rig.clock.advance(by: 0.1)  // 80 samples into 33 entries
        let before = rig.chip.statistics.transactions
        let report = try rig.driver.drain(into: &samples)
        #expect(report.overrun, "the leading FIFO_STATUS shows the FIFO full")
        #expect(report.count == 33)
        #expect(rig.chip.statistics.transactions - before == 2)
        #expect(rig.driver.drainStatistics.discardedBatches == 0)
    }

    // MARK: Same entries as unbatched

    @Test func batchedDrainsDeliverTheSameEntriesInTheSameOrderAsOneReadPerTransaction() throws {
        let rig = TwinRig()
        _ = try rig.start(hertz: 800)
        var batched: [Vector3] = []
        var reference: [Vector3] = []
        // Irregular wake-ups, 2 to 30 ms apart, as a loaded host's.
        let gaps = [0.022, 0.030, 0.002, 0.017, 0.025, 0.009, 0.028, 0.013]
        for index in 0..<300 {
            rig.clock.advance(by: gaps[index % gaps.count])
            _ = try rig.driver.drain(into: &batched)
            try rig.reference(into: &reference)
        }
        #expect(rig.driver.drainStatistics.carriedDrains > 200)
        #expect(rig.driver.drainStatistics.discardedBatches == 0)
        #expect(rig.chip.statistics.overwritten == 0 && rig.twin.statistics.overwritten == 0)
        let same = batched == Array(reference.prefix(batched.count))
        #expect(same, "the batched entries are the first of the reference's")
        #expect(reference.count - batched.count <= ADXL345.carryLimit(watermark: 17))
        let referenceRepeats = repeats(reference)
        #expect(referenceRepeats == 0, "the scene's noise makes every sample differ from the last")
        // Fewer transactions for the same samples.
        #expect(rig.chip.statistics.transactions * 4 < rig.twin.statistics.transactions)
    }

    @Test func theSMBusPathStillReadsStatusThenOneEntryPerTransaction() throws {
        let clock = ManualSimulationClock()
        let chip = SimulatedADXL345(configuration: TwinRig.configuration, clock: clock)
        let driver = ADXL345(bus: OneReadPerTransactionBus(chip), clock: clock)
        let settings = try driver.start(SamplingRequest(rateHz: 800, rangeG: 16))
        var samples: [Vector3] = []
        for _ in 0..<50 {
            clock.advance(by: Double(settings.watermark) / settings.rateHz)
            let before = chip.statistics.transactions
            let report = try driver.drain(into: &samples)
            #expect(chip.statistics.transactions - before == report.count + 1)
        }
        #expect(samples.count == chip.statistics.entriesRead)
        #expect(driver.drainStatistics.carriedDrains == 0)
        let samplesRepeats = repeats(samples)
        #expect(samplesRepeats == 0)
    }

    // MARK: The proof checked

    @Test func aDriverClockAheadOfTheChipNeverAcceptsAStaleEntry() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        let period = Double(settings.watermark) / settings.rateHz
        var batched: [Vector3] = []
        var reference: [Vector3] = []
        try rig.drainBoth(30, every: period, into: &batched, reference: &reference)
        #expect(rig.driver.drainStatistics.carriedDrains > 0)
        // 8 ms on, with the driver believing 23 ms passed: it predicts about 17 entries where the
        // chip holds about 8, so its reads run the FIFO dry and the last ones repeat an entry.
        rig.driverClock.jump(by: 0.015)
        rig.clock.advance(by: 0.008)
        let held = Int(try rig.chip.readRegister(at: rig.chip.address, ADXL345Register.fifoStatus))
        let report = try rig.driver.drain(into: &batched)
        try rig.reference(into: &reference)
        #expect(report.count == held, "exactly the entries the leading FIFO_STATUS showed")
        let statistics = rig.driver.drainStatistics
        #expect(statistics.discardedBatches == 1)
        #expect(statistics.discardedEntries == (rig.bus.calls.last?.count ?? 0) - 2 - held)
        #expect(statistics.discardedEntries > 0)
        // It starts over: status-first drains until the rate is measured again, then carried ones.
        let statusFirst = statistics.statusFirstDrains
        try rig.drainBoth(30, every: period, into: &batched, reference: &reference)
        #expect(rig.driver.drainStatistics.statusFirstDrains > statusFirst)
        #expect(rig.driver.drainStatistics.carriedDrains > statistics.carriedDrains)
        #expect(rig.driver.drainStatistics.discardedBatches == 1)
        // The reads past the end popped nothing, so nothing was lost either.
        let same = batched == Array(reference.prefix(batched.count))
        #expect(same, "the batched entries are the first of the reference's")
        let batchedRepeats = repeats(batched)
        #expect(batchedRepeats == 0, "a stale read returns the previous entry again")
    }

    @Test func aChipStoppedBehindTheDriversBackYieldsOnlyTheEntriesItHeld() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        let period = Double(settings.watermark) / settings.rateHz
        var samples: [Vector3] = []
        try rig.drain(30, every: period, into: &samples)
        // Standby keeps the FIFO's few entries but makes no more.
        try rig.chip.writeRegister(at: rig.chip.address, ADXL345Register.powerCtl, value: 0)
        let held = Int(try rig.chip.readRegister(at: rig.chip.address, ADXL345Register.fifoStatus))
        rig.clock.advance(by: period)
        let report = try rig.driver.drain(into: &samples)
        #expect(report.count == held)
        #expect(rig.driver.drainStatistics.discardedBatches == 1)
        let samplesRepeats = repeats(samples)
        #expect(samplesRepeats == 0)
    }

    @Test func aChipThatResetBetweenDrainsYieldsNoZeroSamples() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        let period = Double(settings.watermark) / settings.rateHz
        var samples: [Vector3] = []
        try rig.drain(30, every: period, into: &samples)
        // Power lost and back between two drains: the chip is in standby, its FIFO empty and its
        // data registers 0; the next drain predicts about 17 entries, and its leading FIFO_STATUS
        // reads 0.
        rig.chip.setFault(.unplugged(at: rig.clock.now() + 0.001, for: 0.005))
        let count = samples.count
        try rig.drain(10, every: period, into: &samples)
        #expect(samples.count == count)
        let zeros = samples.count(where: { $0 == .zero })
        #expect(zeros == 0)
        #expect(rig.driver.drainStatistics.discardedBatches == 1)
        #expect(rig.chip.statistics.powerCycles == 1)
    }

    // MARK: Bus errors

    @Test func aBusErrorMidBatchBecomesASensorErrorAndTheNextDrainStartsOver() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        let period = Double(settings.watermark) / settings.rateHz
        var batched: [Vector3] = []
        var reference: [Vector3] = []
        try rig.drainBoth(30, every: period, into: &batched, reference: &reference)
        // The transfer breaks off after FIFO_STATUS and five entries, which the chip popped.
        rig.bus.breakNextBatch(after: 6)
        rig.clock.advance(by: period)
        let error = #expect(throws: SensorError.self) { try rig.driver.drain(into: &batched) }
        #expect(error?.code == .bus)
        #expect(error?.busError?.code == .busError)
        try rig.reference(into: &reference)
        let statusFirst = rig.driver.drainStatistics.statusFirstDrains
        try rig.drainBoth(30, every: period, into: &batched, reference: &reference)
        #expect(rig.driver.drainStatistics.statusFirstDrains > statusFirst, "nothing is trusted after the error")
        let inOrder = isSubsequence(batched, of: reference)
        #expect(inOrder, "every entry accepted is one the chip produced, in order")
        let batchedRepeats = repeats(batched)
        #expect(batchedRepeats == 0)
    }

    @Test func aBusFaultDuringABatchIsTypedAndTheDriverRecovers() throws {
        let rig = TwinRig()
        let settings = try rig.start(hertz: 800)
        let period = Double(settings.watermark) / settings.rateHz
        var samples: [Vector3] = []
        try rig.drain(30, every: period, into: &samples)
        rig.chip.setFault(.busError)
        rig.clock.advance(by: period)
        let error = #expect(throws: SensorError.self) { try rig.driver.drain(into: &samples) }
        #expect(error?.busError?.code == .busError)
        #expect(error?.description.contains("pull-ups") == true)
        rig.chip.setFault(.none)
        rig.clock.advance(by: period)
        #expect(try rig.driver.drain(into: &samples).count > 0)
        let samplesRepeats = repeats(samples)
        #expect(samplesRepeats == 0)
    }

    // MARK: The ledger's arithmetic

    @Test func theLedgerMeasuresALowerBoundOfTheRateAndPredictsConservatively() {
        var ledger = FIFOLedger()
        #expect(ledger.provenEntries(at: 0) == nil)
        // 800 Hz exactly: a status read every 20 ms, after reading what the previous one showed.
        var entries = 0
        for step in 0...20 {
            let time = Double(step) * 0.02
            let arrived = step == 0 ? 0 : 16
            let popped = entries
            entries = arrived
            ledger.record(.init(entries: entries, begin: time, end: time + 0.0001), popped: popped)
        }
        // 320 arrivals over at most 0.4001 s: at least 319 / 0.4001 = 797.3 Hz.
        #expect(ledger.rate.map { $0 < 800 && $0 > 797 } == true)
        // 20 ms after the last read: 0.95 × 797.3 × 0.02 = 15.15, so at least ⌈15.15⌉ − 1 = 15.
        #expect(ledger.provenEntries(at: 0.4001 + 0.02) == 16 + 15)
        // Never more than the chip holds.
        #expect(ledger.provenEntries(at: 10) == FIFOLedger.capacity)
        // A count that fell by more than was read: the chip reset; only that read is kept.
        let consistent = ledger.record(.init(entries: 0, begin: 0.5, end: 0.5), popped: 3)
        #expect(!consistent)
        #expect(ledger.rate == nil)
        #expect(ledger.provenEntries(at: 0.6) == nil)
        #expect(ledger.last?.entries == 0)
    }
}
