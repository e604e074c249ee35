import I2C
import PlumbSync

/// The agent's hold on its chip (``ChipLock``), taken before the chip is first configured and
/// kept for the agent's life, so no `plumb` command reconfigures or drains it under the agent.
///
/// Taken lazily, from the sampling thread's `makeChip`: a bus that is not there yet (I²C not
/// enabled) is the sampler's usual fault, and a chip held by a command run with `--direct` is a
/// fault too, retried with the same backoff, so the agent takes the chip once the command ends.
public final class ChipOwnership: Sendable {
    public let bus: String
    public let address: I2CAddress
    private let lock = Locked<ChipLock?>(nil)

    public init(bus: String, address: I2CAddress) {
        self.bus = bus
        self.address = address
    }

    /// Takes the chip lock unless held already.
    ///
    /// - Throws: ``ChipOwnershipError`` when another process holds it; the ``I2CError`` of
    ///   opening the bus when that fails.
    public func claim() throws {
        if lock.withLock({ $0 != nil }) { return }
        do {
            let taken = try ChipLock.acquire(bus: bus, address: address)
            lock.withLock { $0 = taken }
        } catch {
            if case .cannotOpen(let failure) = error.reason { throw failure }
            if error.reason == .held { throw ChipOwnershipError(bus: bus, address: address) }
            throw error
        }
    }

    /// Whether the lock is held.
    public var isHeld: Bool { lock.withLock { $0 != nil } }
}

/// Another Plumb process holds the agent's chip.
public struct ChipOwnershipError: Error, Sendable, CustomStringConvertible {
    public let bus: String
    public let address: I2CAddress

    public var description: String {
        "another Plumb process holds the chip at \(address) on \(bus) (a plumb command run with --direct, or a second"
            + " agent): the agent does not drive a chip under it. `fuser -v \(bus)` shows who; the agent takes the"
            + " chip as soon as it is free."
    }
}
