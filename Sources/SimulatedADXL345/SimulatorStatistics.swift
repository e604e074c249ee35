/// One register write the chip acknowledged, in the order it arrived.
public struct RegisterWrite: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The register address written, including reserved and read-only ones (which ignore it).
    public var register: UInt8
    /// The byte written.
    public var value: UInt8

    public init(register: UInt8, value: UInt8) {
        self.register = register
        self.value = value
    }

    /// `0x2D ← 0x08`.
    public var description: String {
        "\(hexByte(register)) ← \(hexByte(value))"
    }
}

/// What a ``SimulatedADXL345`` has done since it was made (or since
/// ``SimulatedADXL345/resetStatistics()``).
///
/// Every sample the ODR clock produced ends up in exactly one place, so
/// `samplesProduced == entriesRead + overwritten + lost + entries still held`.
public struct SimulatorStatistics: SimulatedChipStatistics, Hashable {
    /// Samples the ODR clock produced while measuring, including any never computed after a
    /// long gap (see ``skipped``).
    public var samplesProduced = 0
    /// Unread samples displaced by newer ones: the oldest entry when a stream-mode (or trigger-
    /// mode) FIFO is full, the data registers' sample in bypass mode. A driver that keeps up sees
    /// none.
    public var overwritten = 0
    /// Samples discarded unread for any other reason: arriving at a full FIFO in FIFO mode, or
    /// cleared by a write of bypass mode to FIFO_CTL, or by a power cycle.
    public var lost = 0
    /// Of ``overwritten`` and ``lost``, the samples never even computed because so much time
    /// passed between bus accesses that they could not have survived.
    public var skipped = 0
    /// Unread entries removed by reads of the data registers (0x32–0x37). Re-reading data
    /// registers that hold no new entry counts nothing.
    public var entriesRead = 0
    /// Bus transactions, failed ones included: each call of `readRegisters` and `writeRegister`,
    /// and each transaction of `readRegisterRuns` (one per up to 21 runs), as a Linux bus would
    /// count ioctls.
    public var transactions = 0
    /// Of ``transactions``, those that threw.
    public var failedTransactions = 0
    /// Bytes read from or written to reserved registers (0x01–0x1C, above 0x39). A correct
    /// driver never touches them, so tests assert this stays 0.
    public var reservedAccesses = 0
    /// Times the chip came back from ``SimulatedADXL345/Fault/unplugged(at:for:)`` (or a
    /// ``SimulatedADXL345/Fault/flapping(from:period:down:)`` window) reset.
    public var powerCycles = 0

    public init() {}
}

/// `0x2D`: how registers are written in this module's messages.
func hexByte(_ value: UInt8) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + (digits.count < 2 ? "0" + digits : digits)
}
