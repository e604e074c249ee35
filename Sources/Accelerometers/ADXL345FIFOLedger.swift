/// What the driver has proven about the ADXL345's FIFO between drains: the entries the last
/// FIFO_STATUS read showed and when, and the chip's output rate as measured from successive reads.
///
/// The proof rests on one property of the chip: the number of entries it holds only falls when
/// the data registers are read. In stream mode a full FIFO drops its oldest entry for each new
/// one, so the count stays at the top; in FIFO mode it stops collecting. A chip that resets or
/// goes to standby breaks the property; a drain reads FIFO_STATUS in the same transaction as its
/// entries, so it never depends on it (see `ADXL345+Draining`).
///
/// Pure arithmetic on clock readings, so the bounds can be checked without a bus.
struct FIFOLedger: Sendable, Hashable {
    /// Entries the chip can hold: 32 in the FIFO and one in the data registers.
    static let capacity = ADXL345Register.fifoCapacity + 1
    /// Arrivals are predicted at this fraction of the measured rate: the chip's oscillator does
    /// not drift by a twentieth, so the prediction does not outrun it. (Were it to, a drain's
    /// leading FIFO_STATUS would catch it: the prediction sizes a batch, it proves nothing.)
    static let rateMargin = 0.95
    /// A rate is used only once measured over at least this long: at 100 Hz that is 25 arrivals,
    /// so the measurement's own one-arrival uncertainty is a few percent, inside the margin.
    static let minimumMeasuringSpan = 0.25

    /// One FIFO_STATUS read: the entries it showed, read at some instant of the transaction that
    /// ran from clock reading `begin` to `end`.
    struct StatusRead: Sendable, Hashable {
        var entries: Int
        var begin: Double
        var end: Double
    }

    /// Where a rate measurement started, and the entries that arrived since.
    private struct Measurement: Sendable, Hashable {
        var begin: Double
        var arrivals: Int
    }

    /// The latest FIFO_STATUS read, or nil when nothing is known.
    private(set) var last: StatusRead?
    private var measurement: Measurement?
    /// A proven lower bound on the chip's mean output rate in Hz, once measured.
    private(set) var rate: Double?

    /// Records a FIFO_STATUS read after `popped` entries were read since the previous one.
    ///
    /// - Parameter overrun: the FIFO filled since the previous read, so entries may have been
    ///   dropped uncounted; the rate measurement starts afresh from this read.
    /// - Returns: false when the count fell by more than the entries read, which the chip never
    ///   does while it keeps running; everything but this read is then forgotten.
    @discardableResult
    mutating func record(_ status: StatusRead, popped: Int, overrun: Bool = false) -> Bool {
        defer { last = status }
        guard let previous = last else {
            measurement = Measurement(begin: status.begin, arrivals: 0)
            return true
        }
        let arrivals = status.entries - previous.entries + popped
        guard arrivals >= 0 else {
            self = FIFOLedger()
            measurement = Measurement(begin: status.begin, arrivals: 0)
            return false
        }
        guard !overrun, var measured = measurement else {
            measurement = Measurement(begin: status.begin, arrivals: 0)
            return true
        }
        measured.arrivals += arrivals
        measurement = measured
        // n arrivals between two status reads lie n − 1 periods apart at least, and the reads lie
        // at most `status.end − measured.begin` apart, so the rate is at least (n − 1) / span.
        // Entries dropped by an unnoticed overflow would only make it lower: still a bound.
        let span = status.end - measured.begin
        if span >= Self.minimumMeasuringSpan, measured.arrivals >= 2 {
            rate = Double(measured.arrivals - 1) / span
        }
        return true
    }

    /// A lower bound on the entries the chip holds for a read starting after clock reading `time`,
    /// or nil while there is no status read or no measured rate to build one on.
    ///
    /// The last status read happened by `last.end`; samples arrive on a grid whose period is at
    /// most 1 / rate, and an open interval of length Δ holds at least ⌈Δ / period⌉ − 1 of its
    /// points. The count is capped at the chip's capacity: a full FIFO takes no more.
    func provenEntries(at time: Double) -> Int? {
        guard let last, let rate else { return nil }
        // Capped so that the conversion to Int stays safe whatever the clock says.
        let elapsed = min(max(0, time - last.end), 1e6)
        let arrivals = max(0, Int((elapsed * rate * Self.rateMargin).rounded(.up)) - 1)
        return min(Self.capacity, last.entries + arrivals)
    }
}

/// How an ``ADXL345`` has drained its FIFO since it was made: for benchmarks, health and tests.
public struct FIFODrainStatistics: Sendable, Hashable {
    /// Drains that used the bus.
    public var drains = 0
    /// Of ``drains``, those that began with a FIFO_STATUS read of their own: nothing proven was
    /// carried over, the rate was not measured yet, or the bus takes one read per transaction.
    public var statusFirstDrains = 0
    /// Of ``drains``, those whose first transaction read FIFO_STATUS, entries and FIFO_STATUS
    /// together, as many entries as the previous drain's trailing count and the measured rate
    /// predicted.
    public var carriedDrains = 0
    /// Batches in which more entries were read than a status read proved (the chip stopped, lost
    /// entries or ran slower than predicted, so a read may have found the FIFO empty).
    public var discardedBatches = 0
    /// Entry reads of ``discardedBatches`` that no status read proved: discarded, never decoded.
    public var discardedEntries = 0

    public init() {}

    /// The counts of both.
    public static func + (a: Self, b: Self) -> Self {
        var sum = a
        sum.drains += b.drains
        sum.statusFirstDrains += b.statusFirstDrains
        sum.carriedDrains += b.carriedDrains
        sum.discardedBatches += b.discardedBatches
        sum.discardedEntries += b.discardedEntries
        return sum
    }

    /// The counts between two readings of the statistics, `later - earlier`.
    public static func - (later: Self, earlier: Self) -> Self {
        var difference = later
        difference.drains -= earlier.drains
        difference.statusFirstDrains -= earlier.statusFirstDrains
        difference.carriedDrains -= earlier.carriedDrains
        difference.discardedBatches -= earlier.discardedBatches
        difference.discardedEntries -= earlier.discardedEntries
        return difference
    }
}
