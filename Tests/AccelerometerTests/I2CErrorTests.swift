#if canImport(Glibc)
import Glibc
#endif
import I2C
import Testing

/// Each errno says what happened and what to do; a bus that went away is told from one never there.
@Suite("I²C errors")
struct I2CErrorTests {
    @Test func aBusNotFoundAtTheFirstOpenSaysHowToEnableI2C() {
        for value in [ENOENT, ENODEV] {
            let error = I2CError(errno: value, bus: "/dev/i2c-1", address: nil, operation: I2CError.openOperation)
            #expect(error.code == .busNotFound)
            #expect(error.description.contains("raspi-config"))
        }
    }

    @Test func enodevOnAnOpenDescriptorIsAnAdapterThatWentAway() {
        let error = I2CError(errno: ENODEV, bus: "/dev/i2c-7", address: I2CAddress(0x53)!, operation: "read of register 0x32")
        #expect(error.code == .adapterGone)
        #expect(error.description.hasPrefix("the I²C adapter behind /dev/i2c-7 went away during read of register 0x32 (ENODEV)"))
        #expect(!error.description.contains("raspi-config"))
    }

    @Test func aBusNotFoundWhenReopeningIsAnAdapterThatWentAway() {
        let missing = I2CError(errno: ENOENT, bus: "/dev/i2c-7", address: nil, operation: I2CError.openOperation)
        #expect(missing.reopening().code == .adapterGone)
        #expect(missing.reopening().description.contains("went away during open (ENOENT)"))
        let denied = I2CError(errno: EACCES, bus: "/dev/i2c-7", address: nil, operation: I2CError.openOperation)
        #expect(denied.reopening() == denied, "only a missing bus changes meaning")
    }

    @Test func theOpenerKeepsTheFirstOpensMeaning() {
        let opener = LinuxI2CBusOpener(path: "/nonexistent/i2c-9")
        for _ in 0..<2 {
            #expect(throws: I2CError.self) { _ = try opener.open() }
            do { _ = try opener.open() } catch { #expect(error.code == .busNotFound, "never opened: not a bus that went away") }
        }
    }
}
