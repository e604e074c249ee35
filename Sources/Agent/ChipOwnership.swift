import I2C
import PlumbSync

/// The agent's hold on its chip (``ChipLock``), taken before the chip is first configured and
/// kept for the agent's life, so no `plumb` command reconfigures or drains it under the agent.
///
/// Taken lazily, from the sampling thread's `makeChip`: a bus that is not there yet (I²C not
/// enabled) is the sampler's usual fault, and a chip held by a command run with `--direct` is a
/// fault too, retried with the same backoff, so the agent takes the chip once the command ends.
///
/// The address is the chip's the driver was built for: with `sensor.kind: auto` a scan finds it
/// first (identification reads only, which may run beside another owner), and the lock is then
/// taken before anything is configured. A scan that finds the chip elsewhere later moves the
/// hold to the new address.
public final class ChipOwnership: Sendable {
    public let bus: String
    private let lock = Locked<(address: I2CAddress, lock: ChipLock)?>(nil)

    public init(bus: String) {
        self.bus = bus
    }

    /// Takes the lock on the chip at `address` unless held already, letting go of one held on
    /// another address.
    ///
    /// - Throws: ``ChipOwnershipError`` when another process holds it; the ``I2CError`` of
    ///   opening the bus when that fails.
    public func claim(address: I2CAddress) throws {
        if lock.withLock({ $0?.address == address }) { return }
        // Dropped here, outside our lock: releasing closes the descriptor.
        let previous = lock.withLock { held in
            defer { held = nil }
            return held
        }
        _ = previous
        do {
            let taken = try ChipLock.acquire(bus: bus, address: address)
            lock.withLock { $0 = (address, taken) }
        } catch {
            if case .cannotOpen(let failure) = error.reason { throw failure }
            if error.reason == .held { throw ChipOwnershipError(bus: bus, address: address) }
            throw error
        }
    }

    /// The address whose lock is held; nil when none is.
    public var heldAddress: I2CAddress? { lock.withLock { $0?.address } }

    /// Whether the lock is held.
    public var isHeld: Bool { heldAddress != nil }
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
