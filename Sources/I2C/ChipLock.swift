import CI2CDev
#if canImport(Glibc)
import Glibc
#endif

/// One Plumb process's hold on one chip: while it lives, no other Plumb process configures or
/// drains the chip at `address` on `bus`.
///
/// The lock is an open-file-description lock (`F_OFD_SETLK`) on the byte at offset `address` of
/// the bus device file itself. Whoever may drive the chip can open that file, so the agent, a
/// command run as another user and a second command all meet on it, with no directory or file
/// of its own to create first; the kernel drops it when the process ends, however it ends. It is
/// advisory: `i2cset` and other tools don't look at it.
public final class ChipLock: Sendable {
    /// The bus device file, e.g. `/dev/i2c-1`.
    public let bus: String
    public let address: I2CAddress
    /// Opened for the lock alone and never used for a transfer: closing a bus descriptor (a
    /// reopen after a fault) leaves an OFD lock on this one in place.
    private let descriptor: Int32

    private init(bus: String, address: I2CAddress, descriptor: Int32) {
        self.bus = bus
        self.address = address
        self.descriptor = descriptor
    }

    /// Takes the lock without waiting.
    ///
    /// - Throws: ``ChipLockError``: `.held` when another Plumb process (or another lock in this
    ///   one) holds it; `.cannotOpen` with the ``I2CError`` of opening the bus device file.
    public static func acquire(bus: String, address: I2CAddress) throws(ChipLockError) -> ChipLock {
        let descriptor = open(bus, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ChipLockError(bus: bus, address: address,
                                reason: .cannotOpen(I2CError(errno: errno, bus: bus, address: address,
                                                             operation: I2CError.openOperation)))
        }
        guard plumb_chip_lock(descriptor, Int64(address.rawValue)) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EAGAIN || failure == EACCES {
                throw ChipLockError(bus: bus, address: address, reason: .held)
            }
            throw ChipLockError(bus: bus, address: address, reason: .unsupported(errno: failure))
        }
        return ChipLock(bus: bus, address: address, descriptor: descriptor)
    }

    deinit {
        close(descriptor)
    }
}

/// Why ``ChipLock/acquire(bus:address:)`` failed.
public struct ChipLockError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// Another Plumb process holds the chip.
        case held
        /// The bus device file could not be opened.
        case cannotOpen(I2CError)
        /// The file system refused the lock itself (errno).
        case unsupported(errno: Int32)
    }

    public let bus: String
    public let address: I2CAddress
    public let reason: Reason

    public init(bus: String, address: I2CAddress, reason: Reason) {
        self.bus = bus
        self.address = address
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .held:
            "another Plumb process owns the chip at \(address) on \(bus): the running agent, or another plumb"
                + " command. Wait for it to finish, or stop the agent (sudo systemctl stop plumb)."
        case .cannotOpen(let error):
            error.description
        case .unsupported(let value):
            "\(bus) does not take Plumb's chip lock (errno \(value)); it is not an i2c-dev device file. Give --bus"
                + " the adapter's /dev/i2c-N (`ls /dev/i2c-*`)."
        }
    }
}
