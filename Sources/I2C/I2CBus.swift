/// A 7-bit I²C device address, such as the ADXL345's `0x53`.
public struct I2CAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address without the read/write bit.
    public let rawValue: UInt8

    /// Fails for values outside the 7-bit range that ordinary devices may use (0x03…0x77); the
    /// others are reserved by the I²C specification.
    public init?(_ rawValue: Int) {
        guard (0x03...0x77).contains(rawValue) else { return nil }
        self.rawValue = UInt8(rawValue)
    }

    /// Parses `0x53`, `0X1d` or `83`.
    public init?(parsing text: String) {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let value: Int?
        if trimmed.lowercased().hasPrefix("0x") {
            value = Int(trimmed.dropFirst(2), radix: 16)
        } else {
            value = Int(trimmed)
        }
        guard let value else { return nil }
        self.init(value)
    }

    /// `0x53`.
    public var description: String {
        "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 2)
    }
}

/// How a bus carries a register read.
public enum I2CTransferMode: String, Sendable, Codable {
    /// One `I2C_RDWR` combined transaction: write the register address, repeated start, read.
    case combined = "I2C_RDWR"
    /// SMBus I²C-block transfers (`I2C_SMBUS`), for adapters without plain I²C support.
    case smbusBlock = "SMBus"
    /// An in-process model; no kernel involved.
    case simulated
}

/// How register reads reach the chip, as `plumb probe`, `P/health` (`i2c_mode`) and the log name
/// it. The raw values are the wire names docs/reference/mqtt.md documents.
public enum I2CMode: String, Sendable, CaseIterable {
    /// `I2C_RDWR`, several register reads in one transaction (a drain's FIFO entries in one ioctl).
    case rdwrBatched = "rdwr-batched"
    /// `I2C_RDWR`, one register read per transaction: the adapter refused more than one read
    /// message in a transaction (the Raspberry Pi 0–4's `i2c-bcm2835` takes one, last).
    case rdwr
    /// SMBus I²C-block transfers, for adapters without plain I²C.
    case smbus
    /// The simulated chip: no kernel involved.
    case simulated
}

extension I2CBus {
    /// How register reads reach the chip now. Batched until the adapter first refuses a batch,
    /// then ``I2CMode/rdwr`` for good.
    public var mode: I2CMode {
        switch transferMode {
        case .smbusBlock: .smbus
        case .simulated: .simulated
        case .combined: maxRunsPerTransaction > 1 ? .rdwrBatched : .rdwr
        }
    }
}

/// One register read inside a larger transaction: write the register address, then read `count`
/// bytes from it (the device auto-increments).
public struct RegisterRun: Sendable, Hashable, CustomStringConvertible {
    /// The first register read.
    public var register: UInt8
    /// Bytes read, 1…8192 (the most one i2c-dev message carries).
    public var count: Int

    public init(register: UInt8, count: Int) {
        self.register = register
        self.count = count
    }

    /// `0x32×6`.
    public var description: String {
        "0x" + String(register, radix: 16, uppercase: true).leftPadded(to: 2) + "×\(count)"
    }
}

/// The one extension point between Plumb and an I²C bus.
///
/// The Linux implementation is ``LinuxI2CBus``; the simulated ADXL345 is another. Chip drivers are
/// written against this protocol only, so the real driver code runs against the simulation.
///
/// Implementations are thread-safe: each call is one complete transaction (or, for
/// ``readRegisterRuns(at:_:)``, a sequence of them), and calls from different threads are
/// serialized.
public protocol I2CBus: AnyObject, Sendable {
    /// What a person would call this bus: `/dev/i2c-1`, or `simulated ADXL345`.
    var name: String { get }

    /// How register reads are carried.
    var transferMode: I2CTransferMode { get }

    /// Reads `count` consecutive registers starting at `register`, in one transaction so the
    /// device can't change its data between bytes.
    ///
    /// - Throws: ``I2CError`` carrying the cause and what to do about it.
    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8]

    /// Writes one register in a single transaction.
    ///
    /// - Throws: ``I2CError`` carrying the cause and what to do about it.
    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError)

    /// How many ``RegisterRun``s one transaction carries: 1 for a bus that can only address one
    /// register per transaction (SMBus, or an adapter that allows one read message, last). It may
    /// fall to 1 after the first refused multi-read transaction, never rise.
    var maxRunsPerTransaction: Int { get }

    /// Reads each run in order, returning each run's bytes, in as few transactions as the bus
    /// allows: consecutive groups of ``maxRunsPerTransaction`` runs, each group one transaction
    /// in which every run is a register-address write, a repeated start and a read.
    ///
    /// A device sees the runs in order, so its read side effects (an ADXL345 pops a FIFO entry
    /// after each read of its data registers) happen once per run, as with separate reads.
    ///
    /// - Throws: ``I2CError``. When a transaction fails, the runs before it took place, and some
    ///   of its own may have: a caller with read side effects must not assume either way.
    func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]]
}

extension I2CBus {
    /// One run per transaction: the default for a bus that cannot combine them.
    public var maxRunsPerTransaction: Int { 1 }

    /// Each run as its own ``readRegisters(at:from:count:)`` transaction.
    public func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        var results: [[UInt8]] = []
        results.reserveCapacity(runs.count)
        for run in runs {
            results.append(try readRegisters(at: address, from: run.register, count: run.count))
        }
        return results
    }

    /// Reads one register.
    public func readRegister(at address: I2CAddress, _ register: UInt8) throws(I2CError) -> UInt8 {
        let bytes = try readRegisters(at: address, from: register, count: 1)
        return bytes[0]
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
