import Geometry
import I2C
import PlumbSync

/// A drain's state between calls: the FIFO ledger and the counters.
struct FIFODrainState: Sendable {
    var ledger = FIFOLedger()
    var statistics = FIFODrainStatistics()
}

extension ADXL345 {
    /// The watermark at 200 Hz and above: a drain that begins without a transaction of its own
    /// for FIFO_STATUS reads up to 19 entries in its one transaction, so 17 fit with two to spare
    /// for a late wake-up, and cost one ioctl per 17 samples.
    static let highRateWatermark = 17

    /// A drain's batches: FIFO_STATUS, the entries and FIFO_STATUS again need three runs at least.
    static let minimumRunsForBatching = 3

    /// At most this many entries are left in the FIFO for the next drain rather than read with
    /// another transaction now: half a watermark, and never more than 8 (10 ms at 800 Hz), so
    /// low rates stay fresh and the FIFO stays far from full.
    static func carryLimit(watermark: Int) -> Int {
        min(8, watermark / 2)
    }

    /// One FIFO entry: a six-byte burst of DATAX0…DATAZ1.
    ///
    /// The datasheet asks for 5 µs between the end of one read of the data registers and the next
    /// read of them or of FIFO_STATUS, for the FIFO to pop. Runs in one I2C_RDWR are messages of
    /// one transaction, and each run begins with a repeated start, the address byte and the
    /// register byte, about 20 SCL periods before its first data byte: 50 µs at 400 kHz (the
    /// ADXL345's fastest mode), 20 µs even at 1 MHz Fast-mode Plus. So the spacing holds inside a
    /// batch as it does between transactions.
    private static let entryRun = RegisterRun(register: ADXL345Register.dataX0, count: ADXL345Register.sampleByteCount)
    private static let statusRun = RegisterRun(register: ADXL345Register.fifoStatus, count: 1)

    /// Reads the FIFO's entries, oldest first, in as few bus transactions as can be proven safe.
    ///
    /// On a bus that carries one read per transaction (SMBus, or an adapter such as the Pi 0–4's
    /// that takes one read message, last) a drain reads FIFO_STATUS, then each entry as one
    /// six-byte burst: one transaction per entry plus one.
    ///
    /// Where several reads share a transaction, a drain reads its entries in batches of up to 20,
    /// one transaction each, and ends every batch with a read of FIFO_STATUS: the entries left
    /// after the batch. That count proves as many entries for the next batch. The first drains
    /// read FIFO_STATUS in a transaction of its own first; once the chip's rate is measured (from
    /// those same counts, over a quarter of a second) a drain needs no such transaction: its one
    /// transaction reads FIFO_STATUS, then as many entries as the previous drain's trailing count
    /// and the arrivals certain since at 95 % of the measured rate add up to, then FIFO_STATUS.
    /// Only the entries that leading FIFO_STATUS showed are accepted: read in the same transaction,
    /// just before them, it proves each, whatever the rate does. Should it show fewer than were
    /// read (the chip reset or stopped), the reads past it are discarded undecoded, counted, and
    /// the next drains read their status first again. A drain leaves at most
    /// ``carryLimit(watermark:)`` entries for the next one, so one transaction per drain reads
    /// about a watermark's worth of samples, a few behind the newest.
    ///
    /// Call from one thread at a time (one sampling loop owns the chip): the proof assumes no one
    /// else reads the data registers.
    public func drain(into samples: inout [Vector3]) throws(SensorError) -> DrainReport {
        guard let configuration = running.withLock({ $0 }) else { return DrainReport() }
        let runsPerTransaction = bus.maxRunsPerTransaction
        var state = fifo.withLock { $0 }
        state.statistics.drains += 1
        do {
            let report: DrainReport
            if runsPerTransaction >= Self.minimumRunsForBatching {
                report = try drainInBatches(into: &samples, configuration: configuration,
                                            runsPerTransaction: runsPerTransaction, state: &state)
            } else {
                state.ledger = FIFOLedger()
                state.statistics.statusFirstDrains += 1
                report = try drainEntryByEntry(into: &samples, format: configuration.format)
            }
            fifo.withLock { $0 = state }
            return report
        } catch {
            // A failed transaction may have popped some of its entries: nothing is known any more.
            state.ledger = FIFOLedger()
            fifo.withLock { $0 = state }
            throw error
        }
    }

    /// FIFO_STATUS, then each entry in a transaction of its own.
    private func drainEntryByEntry(into samples: inout [Vector3], format: ADXL345SampleFormat) throws(SensorError) -> DrainReport {
        let entries = Int(try read(ADXL345Register.fifoStatus) & FIFOStatus.entriesMask)
        var report = DrainReport(overrun: entries >= ADXL345Register.fifoCapacity)
        for _ in 0..<min(entries, FIFOLedger.capacity) {
            // One burst per entry: the chip pops an entry at the end of each read of the data
            // registers, and a shorter read would discard the rest of it. Over I²C the next
            // transaction's start comes far later than the 5 µs the FIFO needs between reads.
            accept(try readBurst(ADXL345Register.dataX0, count: ADXL345Register.sampleByteCount),
                   format: format, into: &samples, report: &report)
        }
        return report
    }

    private func drainInBatches(
        into samples: inout [Vector3], configuration: ADXL345Configuration,
        runsPerTransaction: Int, state: inout FIFODrainState
    ) throws(SensorError) -> DrainReport {
        let format = configuration.format
        var report = DrainReport()
        // Entry reads this drain, discarded ones included; a drain reads at most a full FIFO, so
        // it ends even if the chip kept reporting entries.
        var reads = 0
        // Entries proven to be there at the start of the next batch, by a FIFO_STATUS just read.
        var proven: Int
        // A status read alone obliges the drain to read what it found.
        var mustRead: Bool

        // In stream mode the rate keeps filling the FIFO; in FIFO mode it stops at full, in bypass
        // the FIFO is off: there a drain reads its status first.
        if configuration.fifoMode == .stream,
           let held = state.ledger.provenEntries(at: clock.now()), held > 0 {
            state.statistics.carriedDrains += 1
            let count = min(held, runsPerTransaction - 2)
            let runs = [Self.statusRun] + Array(repeating: Self.entryRun, count: count) + [Self.statusRun]
            let begin = clock.now()
            let bytes = try readRuns(runs)
            let end = clock.now()
            let leading = FIFOLedger.StatusRead(entries: Self.entries(bytes[0][0]), begin: begin, end: end)
            let trailing = FIFOLedger.StatusRead(entries: Self.entries(bytes[bytes.count - 1][0]), begin: begin, end: end)
            reads += count
            // Only our reads lower the count, so the entries FIFO_STATUS showed just before them are
            // there for the first reads; a read past them may have found the FIFO empty, and shows
            // the previous entry again.
            let shown = min(count, leading.entries)
            for entry in bytes[1..<1 + shown] {
                accept(entry, format: format, into: &samples, report: &report)
            }
            report.overrun = leading.entries >= ADXL345Register.fifoCapacity
                || trailing.entries >= ADXL345Register.fifoCapacity
            if shown < count {
                discard(count - shown, after: trailing, state: &state)
            } else {
                state.ledger.record(leading, popped: 0, overrun: report.overrun)
                state.ledger.record(trailing, popped: count, overrun: report.overrun)
            }
            proven = trailing.entries
            mustRead = false
        } else {
            state.statistics.statusFirstDrains += 1
            let begin = clock.now()
            let entries = Self.entries(try read(ADXL345Register.fifoStatus))
            let status = FIFOLedger.StatusRead(entries: entries, begin: begin, end: clock.now())
            report.overrun = entries >= ADXL345Register.fifoCapacity
            // Every batch ends with a status read, so none was popped since the ledger's last.
            state.ledger.record(status, popped: 0, overrun: report.overrun)
            proven = entries
            mustRead = true
        }

        let carryLimit = Self.carryLimit(watermark: configuration.watermark)
        while proven > 0, reads < FIFOLedger.capacity, mustRead || proven > carryLimit {
            mustRead = false
            // Entries proven by the status just read, and a status read to close the batch.
            let count = min(proven, runsPerTransaction - 1, FIFOLedger.capacity - reads)
            let runs = Array(repeating: Self.entryRun, count: count) + [Self.statusRun]
            let begin = clock.now()
            let bytes = try readRuns(runs)
            let status = FIFOLedger.StatusRead(entries: Self.entries(bytes[bytes.count - 1][0]), begin: begin, end: clock.now())
            reads += count
            // Only our reads lower the count: fewer left than that means the chip lost entries
            // (it reset) while the batch ran, and some of its reads may have found nothing.
            guard status.entries >= proven - count else {
                discard(count, after: status, state: &state)
                break
            }
            for entry in bytes[0..<count] {
                accept(entry, format: format, into: &samples, report: &report)
            }
            if status.entries >= ADXL345Register.fifoCapacity { report.overrun = true }
            state.ledger.record(status, popped: count, overrun: status.entries >= ADXL345Register.fifoCapacity)
            proven = status.entries
        }
        report.remaining = proven
        return report
    }

    /// Drops the reads of a batch that no status read proves: none is decoded, the ledger keeps
    /// only the status just read, and the rate must be measured again before a drain trusts it.
    private func discard(_ count: Int, after status: FIFOLedger.StatusRead, state: inout FIFODrainState) {
        state.statistics.discardedBatches += 1
        state.statistics.discardedEntries += count
        state.ledger = FIFOLedger()
        state.ledger.record(status, popped: 0)
    }

    private func accept(_ bytes: [UInt8], format: ADXL345SampleFormat, into samples: inout [Vector3],
                        report: inout DrainReport) {
        let (gravity, clipped) = Self.decode(bytes, format: format)
        samples.append(gravity)
        report.count += 1
        if clipped { report.clipped += 1 }
    }

    private static func entries(_ status: UInt8) -> Int {
        Int(status & FIFOStatus.entriesMask)
    }
}
