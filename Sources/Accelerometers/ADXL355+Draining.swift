import Geometry
import I2C
import PlumbSync

/// A drain's state between calls: when the last drain ended and what it left, and the counters.
struct ADXL355DrainState: Sendable {
    var ledger = ADXL355FIFOLedger()
    var statistics = ADXL355DrainStatistics()
}

/// What the drains know of the FIFO between them, to size the next read. Unlike the ADXL345's
/// ledger this proves nothing and needs not: every FIFO entry says whether it is empty, so a read
/// past the newest set costs bus time, never data.
struct ADXL355FIFOLedger: Sendable, Hashable {
    private var lastTime: Double?
    private var lastRemainingSets = 0

    /// Measuring started at `time`, with the FIFO empty.
    mutating func started(at time: Double) {
        lastTime = time
        lastRemainingSets = 0
    }

    /// A drain at `time` left `remainingSets` behind.
    mutating func drained(at time: Double, remainingSets: Int) {
        lastTime = time
        lastRemainingSets = remainingSets
    }

    /// Sets to read at `time` at `rateHz`: those left, those due since, and one more for a
    /// sample falling due during the transaction; 1…32.
    func expectedSets(at time: Double, rateHz: Double) -> Int {
        guard let lastTime else { return ADXL355Register.fifoSetCapacity }
        let elapsed = min(max(0, time - lastTime), 1e3)
        let due = Int((elapsed * rateHz).rounded(.up))
        return max(1, min(ADXL355Register.fifoSetCapacity, lastRemainingSets + due + 1))
    }
}

/// How an ``ADXL355`` has drained its FIFO since it was made: for benchmarks, health and tests.
public struct ADXL355DrainStatistics: Sendable, Hashable {
    /// Drains of a running chip.
    public var drains = 0
    /// Drains whose STATUS/FIFO_ENTRIES read and FIFO read shared one transaction.
    public var sharedTransactions = 0
    /// FIFO reads after the first of a drain: the first read fewer sets than the chip held, or
    /// the bus carries one read per transaction.
    public var followUpReads = 0
    /// Axis entries dropped to re-align on the x-axis marker (a set was split or broken).
    public var misalignedEntries = 0
    /// Entries read with the empty indicator set: the cost of reading past the newest set.
    public var emptyEntries = 0

    public init() {}
}

/// Turns FIFO entries into whole x/y/z sets, re-aligning on the x-axis marker: an entry before
/// the first x marker, or a set cut short by the next x marker, is dropped, never decoded as
/// another axis.
struct ADXL355SetDecoder {
    private var pending: [Int] = []
    /// Non-empty entries seen: entries popped from the FIFO.
    private(set) var popped = 0
    private(set) var empties = 0
    private(set) var misaligned = 0

    /// Feeds one read's bytes, a whole number of entries; appends each completed set, in counts.
    mutating func feed(_ bytes: [UInt8], into sets: inout [(Int, Int, Int)]) {
        var index = bytes.startIndex
        while index + ADXL355Register.entryByteCount <= bytes.endIndex {
            let entry = ADXL355.decodeAxis(bytes[index], bytes[index + 1], bytes[index + 2])
            index += ADXL355Register.entryByteCount
            if entry.empty {
                empties += 1
                continue
            }
            popped += 1
            if entry.xMarker {
                misaligned += pending.count
                pending = [entry.value]
            } else if pending.isEmpty {
                misaligned += 1
            } else {
                pending.append(entry.value)
                if pending.count == 3 {
                    sets.append((pending[0], pending[1], pending[2]))
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// Ends the drain: a set begun and not finished is dropped (its other entries, still in the
    /// FIFO, are dropped by the next drain for want of an x marker).
    mutating func finish() {
        misaligned += pending.count
        pending.removeAll()
    }
}

extension ADXL355 {
    private static let statusRun = RegisterRun(register: ADXL355Register.status, count: 2)
    /// SMBus block reads carry 32 bytes, and the Linux fallback restarts each block at the next
    /// register address: FIFO_DATA goes in reads of 3 sets (27 bytes) of their own.
    static let smbusSetsPerRead = 3

    /// Reads the sets the FIFO holds, oldest first, in whole x/y/z sets.
    ///
    /// Where a transaction carries several reads, a drain is usually one: STATUS and FIFO_ENTRIES,
    /// then FIFO_DATA for as many sets as the previous drain left plus those due since at the
    /// rate. Entries read past the newest carry the empty indicator and are skipped; should
    /// FIFO_ENTRIES show more than were read, the rest follow in reads of their own. On a bus
    /// with one read per transaction, STATUS and FIFO_ENTRIES come first, then the sets they
    /// show (3 to a read over SMBus).
    ///
    /// `overrun` is STATUS's FIFO_OVR (sets were lost since the last read) or a full FIFO.
    /// Samples at the 20-bit rails count as `clipped`.
    ///
    /// Call from one thread at a time (one sampling loop owns the chip).
    public func drain(into samples: inout [Vector3]) throws(SensorError) -> DrainReport {
        guard let configuration = running.withLock({ $0 }) else { return DrainReport() }
        var state = fifo.withLock { $0 }
        state.statistics.drains += 1
        do {
            let report = try drainSets(into: &samples, configuration: configuration, state: &state)
            fifo.withLock { $0 = state }
            return report
        } catch {
            state.ledger.started(at: clock.now())
            fifo.withLock { $0 = state }
            throw error
        }
    }

    private func drainSets(into samples: inout [Vector3], configuration: ADXL355Configuration,
                           state: inout ADXL355DrainState) throws(SensorError) -> DrainReport {
        let now = clock.now()
        var decoder = ADXL355SetDecoder()
        var sets: [(Int, Int, Int)] = []
        let status: UInt8
        let entries: Int
        if bus.maxRunsPerTransaction >= 2 {
            let guess = state.ledger.expectedSets(at: now, rateHz: configuration.rateHz)
            let read = try readRuns([Self.statusRun,
                                     RegisterRun(register: ADXL355Register.fifoData, count: guess * ADXL355Register.setByteCount)])
            status = read[0][0]
            entries = Int(read[0][1] & 0x7F)
            decoder.feed(read[1], into: &sets)
            state.statistics.sharedTransactions += 1
        } else {
            let read = try readBurst(ADXL355Register.status, count: 2)
            status = read[0]
            entries = Int(read[1] & 0x7F)
        }
        let setsPerRead = bus.transferMode == .smbusBlock ? Self.smbusSetsPerRead : ADXL355Register.fifoSetCapacity
        // The entries FIFO_ENTRIES showed and no read took yet; bounded, so a drain ends even if
        // the chip kept reporting entries.
        var reads = 0
        while (entries - decoder.popped) / 3 > 0, reads < 2 * ADXL355Register.fifoSetCapacity / setsPerRead {
            let count = min((entries - decoder.popped) / 3, setsPerRead)
            let before = decoder.popped
            decoder.feed(try readBurst(ADXL355Register.fifoData, count: count * ADXL355Register.setByteCount), into: &sets)
            reads += 1
            state.statistics.followUpReads += 1
            if decoder.popped == before { break }
        }
        decoder.finish()
        state.statistics.misalignedEntries += decoder.misaligned
        state.statistics.emptyEntries += decoder.empties

        var report = DrainReport(overrun: status & ADXL355Status.fifoOverrun != 0
                                 || entries >= ADXL355Register.fifoEntryCapacity)
        let scale = 1 / configuration.range.countsPerG
        for (x, y, z) in sets {
            samples.append(Vector3(x: Double(x) * scale, y: Double(y) * scale, z: Double(z) * scale))
            report.count += 1
            if [x, y, z].contains(where: { $0 == Self.countLimits.lowerBound || $0 == Self.countLimits.upperBound }) {
                report.clipped += 1
            }
        }
        report.remaining = max(0, entries - decoder.popped) / 3
        state.ledger.drained(at: now, remainingSets: report.remaining)
        return report
    }

    /// How the drains went so far.
    public var drainStatistics: ADXL355DrainStatistics {
        fifo.withLock { $0.statistics }
    }
}
