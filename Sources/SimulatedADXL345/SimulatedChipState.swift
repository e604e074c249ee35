import I2C

/// A simulated chip's state under its lock, as far as what every simulator does alike needs it:
/// each simulator's state conforms, and gets its bus transactions (``transaction(at:target:address:bus:operation:_:)``),
/// ``setFault(_:)``, ``setVibration(_:)`` and ``countTransaction(failed:)`` written once; a
/// ``SimulatedChip`` keeps it in its ``SimulatedChipCore``.
public protocol SimulatedChipState: Sendable {
    associatedtype Part: SimulatedPartConfiguration
    associatedtype Statistics: SimulatedChipStatistics
    /// The configuration in force; its `fault` and `vibration` are kept equal to what runs.
    var configuration: Part { get set }
    /// The connection and its fault.
    var connection: ConnectionFaultState { get set }
    /// The machine's vibration, ready to sample; nil without one.
    var machine: MachineStage? { get set }
    /// The latest clock reading the chip has seen.
    var now: Double { get }
    /// What the chip has done.
    var statistics: Statistics { get set }
    /// Every acknowledged register write, oldest first.
    var writeLog: [RegisterWrite] { get set }
    /// Brings the chip up to `time`, power-cycling it for an unplug that has begun.
    mutating func synchronize(to time: Double)
    /// One read of `count` registers from `register`, with the chip's side effects (auto-increment,
    /// FIFO pops); the count is already checked.
    mutating func read(from register: UInt8, count: Int) -> [UInt8]
    /// One write of `value` to `register`, appended to ``writeLog``, with the chip's side effects.
    mutating func write(_ register: UInt8, value: UInt8)
}

/// The counters every simulated chip keeps of its bus transactions.
public protocol SimulatedChipStatistics: Sendable {
    /// Bus transactions (each group of runs counts once).
    var transactions: Int { get set }
    /// Transactions that failed (wrong address, a fault), counted in ``transactions`` too.
    var failedTransactions: Int { get set }
}

extension SimulatedChipState {
    /// One bus transaction to `target` at clock reading `time`, for a chip answering at `address`
    /// on the bus named `bus`: the chip is brought up to `time`, the transfer fails as the wiring
    /// would (``ConnectionFaultState/check(at:target:address:bus:operation:)``), else `body` runs;
    /// either way it is counted.
    ///
    /// - Throws: the wiring's ``I2CError``, or what `body` throws; a failed transfer has no effect
    ///   on the chip.
    public mutating func transaction<Result>(
        at time: Double, target: I2CAddress, address: I2CAddress, bus: String, operation: String,
        _ body: (inout Self) throws(I2CError) -> Result
    ) throws(I2CError) -> Result {
        synchronize(to: time)
        do throws(I2CError) {
            try connection.check(at: now, target: target, address: address, bus: bus, operation: operation)
            let result = try body(&self)
            countTransaction(failed: false)
            return result
        } catch {
            countTransaction(failed: true)
            throw error
        }
    }

    /// Counts one bus transaction in ``statistics``, and whether it failed.
    public mutating func countTransaction(failed: Bool) {
        statistics.transactions += 1
        if failed { statistics.failedTransactions += 1 }
    }

    /// Puts `fault` in force from now on; an unplug already under way takes effect at once.
    public mutating func setFault(_ fault: SimulatedFault) {
        configuration.fault = fault
        connection.set(fault)
        synchronize(to: now)
    }

    /// Puts `vibration` on from now on (nil stops it), its phases and noise from the
    /// configuration's seed, so setting the same vibration again repeats the same tones.
    public mutating func setVibration(_ vibration: MachineVibration?) {
        configuration.vibration = vibration
        machine = vibration.map { MachineStage($0, seed: configuration.seed) }
    }
}
