import PlumbSync

/// Opens one bus device file, again after every fault, and remembers whether it ever opened.
///
/// A bus that is not found on the first open was never there: I²C is not enabled or the number
/// is wrong, and ``I2CError/Code/busNotFound`` says how to enable it. Not found after it had
/// opened, the adapter went away (a USB adapter unplugged, a driver unloaded): telling that user
/// to run raspi-config would mislead, so the error becomes ``I2CError/Code/adapterGone``.
public final class LinuxI2CBusOpener: Sendable {
    /// The device file, e.g. `/dev/i2c-1`.
    public let path: String
    private let openedBefore = Locked(false)

    public init(path: String) {
        self.path = path
    }

    /// Opens the bus.
    /// - Throws: ``I2CError``; a bus not found after an earlier open is ``I2CError/Code/adapterGone``.
    public func open() throws(I2CError) -> LinuxI2CBus {
        do {
            let bus = try LinuxI2CBus(path: path)
            openedBefore.withLock { $0 = true }
            return bus
        } catch {
            throw openedBefore.withLock { $0 } ? error.reopening() : error
        }
    }
}
