import I2C
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("The chip lock: one Plumb process per chip")
struct ChipLockTests {
    /// A regular file stands in for the bus device: OFD locks behave the same on both.
    private func busFile(_ name: String) -> String {
        let path = "/tmp/plumb-lock-\(getpid())-\(name)"
        close(open(path, O_CREAT | O_RDWR, 0o600))
        return path
    }

    @Test("A second lock on the same chip is refused, even in the same process; another address is free")
    func exclusive() throws {
        let bus = busFile("exclusive")
        let address = try #require(I2CAddress(0x53))
        let held = try ChipLock.acquire(bus: bus, address: address)
        #expect(throws: ChipLockError(bus: bus, address: address, reason: .held)) {
            _ = try ChipLock.acquire(bus: bus, address: address)
        }
        let other = try ChipLock.acquire(bus: bus, address: try #require(I2CAddress(0x1D)))
        _ = other
        _ = held
    }

    @Test("Releasing it (the holder gone) frees the chip; closing another descriptor of the bus does not")
    func release() throws {
        let bus = busFile("release")
        let address = try #require(I2CAddress(0x53))
        var held: ChipLock? = try ChipLock.acquire(bus: bus, address: address)
        // A reopen of the bus after a fault: another descriptor, opened and closed.
        close(open(bus, O_RDWR))
        #expect(throws: ChipLockError.self) { _ = try ChipLock.acquire(bus: bus, address: address) }
        _ = held
        held = nil
        _ = try ChipLock.acquire(bus: bus, address: address)
    }

    @Test("A bus that is not there fails as the bus error, saying how to enable I²C")
    func missingBus() throws {
        let address = try #require(I2CAddress(0x53))
        do {
            _ = try ChipLock.acquire(bus: "/dev/i2c-nonexistent-\(getpid())", address: address)
            Issue.record("acquired a lock on a bus that does not exist")
        } catch {
            guard case .cannotOpen(let failure) = error.reason else { Issue.record("\(error)"); return }
            #expect(failure.code == .busNotFound)
        }
    }
}
