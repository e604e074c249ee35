import Foundation
import Testing

/// The Linux i2c-dev transport through the real open(2)/ioctl(2) syscalls: `plumb` runs with the
/// fake i2c-dev library preloaded, which emulates an ADXL345 on a /dev/i2c-N path and logs every
/// ioctl, so these tests see the exact transactions the kernel would.
@Suite("Linux I²C transport through real syscalls")
struct LinuxTransportTests {
    private func run(_ arguments: [String], _ fake: FakeI2CDev) throws -> PlumbProcess.Outcome {
        try PlumbProcess.run(arguments.map { $0 == "BUS" ? fake.devicePath : $0 }, environment: fake.variables)
    }

    // MARK: I2C_RDWR

    @Test func probeUsesOneCombinedTransactionPerRegisterRead() throws {
        let fake = try FakeI2CDev()
        let outcome = try run(["probe", "--bus", "BUS", "--json"], fake)
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(try outcome.jsonObjects().first)
        #expect(report["device_id"] as? String == "0xE5")
        #expect(report["transfer"] as? String == "I2C_RDWR")
        #expect((report["functionality"] as? [String])?.contains("I2C") == true)
        let lines = try fake.logLines()
        #expect(lines.first == "OPEN \(fake.devicePath) -> ok")
        #expect(lines.dropFirst().first?.hasPrefix("FUNCS -> 0x") == true)
        // DEVID: write the register address, repeated start, read one byte, in one ioctl.
        #expect(lines.contains("RDWR n=2 w@53[00] r@53#1 -> ok"))
        // The offsets: one three-byte burst from OFSX.
        #expect(lines.contains("RDWR n=2 w@53[1e] r@53#3 -> ok"))
        #expect(!lines.contains { $0.hasPrefix("SMBUS") || $0.hasPrefix("SLAVE") })
    }

    @Test func readWritesTheInitSequenceAndReadsEachSampleInOneBurst() throws {
        let fake = try FakeI2CDev(.init(counts: .init(x: 0, y: 128, z: 224)))
        let outcome = try run(["read", "--bus", "BUS", "--average", "4", "--json"], fake)
        #expect(outcome.status == 0, "\(outcome)")
        let reading = try #require(try outcome.jsonObjects().first)
        let gravity = try #require(reading["gravity"] as? [String: Double])
        #expect(gravity["y"] == 0.5)
        #expect(gravity["z"] == 0.875)
        let roll = try #require(reading["roll"] as? Double)
        #expect(abs(roll - atan2(128.0, 224.0) * 180 / .pi) < 0.001)

        let transfers = try fake.logLines().filter { $0.hasPrefix("RDWR") }
        let writes = transfers.filter { $0.hasPrefix("RDWR n=1") }
        #expect(Array(writes.prefix(6)) == [
            "RDWR n=1 w@53[2d00] -> ok",  // standby
            "RDWR n=1 w@53[310b] -> ok",  // DATA_FORMAT: full resolution, ±16 g
            "RDWR n=1 w@53[2c0a] -> ok",  // BW_RATE: 100 Hz
            "RDWR n=1 w@53[3800] -> ok",  // FIFO_CTL: bypass, empties the FIFO
            "RDWR n=1 w@53[388a] -> ok",  // FIFO_CTL: stream, watermark 10
            "RDWR n=1 w@53[2d08] -> ok",  // POWER_CTL: Measure
        ])
        let sampleReads = transfers.filter { $0.contains("w@53[32]") }
        #expect(sampleReads.count >= 4)
        #expect(sampleReads.allSatisfy { $0 == "RDWR n=2 w@53[32] r@53#6 -> ok" })
        #expect(transfers.contains("RDWR n=2 w@53[39] r@53#1 -> ok"), "FIFO_STATUS is read before the entries")
    }

    // MARK: SMBus fallback

    @Test func anAdapterWithoutPlainI2CFallsBackToSMBusBlocks() throws {
        let fake = try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality))
        let probe = try run(["probe", "--bus", "BUS", "--json"], fake)
        #expect(probe.status == 0, "\(probe)")
        #expect(try probe.jsonObjects().first?["transfer"] as? String == "SMBus")
        fake.removeLog()

        let read = try run(["read", "--bus", "BUS", "--average", "3", "--json"], fake)
        #expect(read.status == 0, "\(read)")
        let gravity = try #require(try read.jsonObjects().first?["gravity"] as? [String: Double])
        #expect(gravity["z"] == 1)
        let lines = try fake.logLines()
        #expect(!lines.contains { $0.hasPrefix("RDWR") })
        #expect(lines.contains("SLAVE 53 -> ok"))
        #expect(lines.contains("SMBUS write cmd=2d size=BYTE_DATA val=08 -> ok"))
        // The block length is requested explicitly; a zero there would read nothing.
        #expect(lines.contains("SMBUS read cmd=32 size=I2C_BLOCK len=6 -> ok"))
        #expect(lines.filter { $0.hasPrefix("SLAVE") }.count == 1, "the address is selected once, not per transfer")
    }

    @Test func anAdapterWithNeitherTransferIsRefusedClearly() throws {
        let fake = try FakeI2CDev(.init(functionality: 0x0000_0002))  // 10-bit addressing only
        let outcome = try run(["probe", "--bus", "BUS"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("supports neither I2C_RDWR nor SMBus"))
    }

    // MARK: errno → message

    @Test func aMissingBusSaysHowToEnableI2C() throws {
        let outcome = try PlumbProcess.run(["probe", "--bus", "/nonexistent/i2c-9"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("does not exist"))
        #expect(outcome.stderr.contains("dtparam=i2c_arm=on"))
        #expect(outcome.stderr.contains("ENOENT"))
    }

    @Test func permissionDeniedNamesTheI2CGroup() throws {
        let fake = try FakeI2CDev(.init(openErrno: EACCES))
        let outcome = try run(["read", "--bus", "BUS"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("i2c group"))
        #expect(outcome.stderr.contains("EACCES"))
    }

    @Test(arguments: [EREMOTEIO, ENXIO])
    func noAcknowledgeSaysCheckTheWiringAndAddress(errno: Int32) throws {
        let fake = try FakeI2CDev(.init(fault: .nack, nackErrno: errno))
        let outcome = try run(["probe", "--bus", "BUS"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no device acknowledged at 0x53"))
        #expect(outcome.stderr.contains("0x1D with SDO to 3V3"))
        #expect(outcome.stderr.contains("i2cdetect -y"))
    }

    @Test func aWrongAddressIsNotAcknowledged() throws {
        let fake = try FakeI2CDev()
        let outcome = try run(["probe", "--bus", "BUS", "--address", "0x1D"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no device acknowledged at 0x1D"))
    }

    @Test func aBusErrorMidStreamStopsWithAClearMessage() throws {
        let fake = try FakeI2CDev(.init(fault: .eioAfter(20)))
        let outcome = try run(["read", "--bus", "BUS", "--count", "100", "--average", "8"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("bus error at 0x53"))
        #expect(outcome.stderr.contains("pull-ups"))
        #expect(outcome.stderr.contains("EIO"))
    }

    @Test func aKernelDriverHoldingTheAddressIsNamed() throws {
        let fake = try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality, slaveErrno: EBUSY))
        let outcome = try run(["probe", "--bus", "BUS"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("claimed by a kernel driver"))
    }

    @Test func anotherChipIsNamedByItsID() throws {
        let fake = try FakeI2CDev(.init(deviceID: 0x68))
        let outcome = try run(["probe", "--bus", "BUS"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("has ID 0x68"))
    }

    // MARK: Rates

    @Test func ratesAboveWhatTheBusSustainsAreWarnedAbout() throws {
        let fake = try FakeI2CDev()
        let fast = try run(["read", "--bus", "BUS", "--rate", "400", "--average", "4"], fake)
        #expect(fast.status == 0, "\(fast)")
        #expect(fast.stderr.contains("needs a 400 kHz I²C bus"))
        let tooFast = try run(["read", "--bus", "BUS", "--rate", "1600", "--average", "4"], fake)
        #expect(tooFast.stderr.contains("above the 800 Hz"))
        let fine = try run(["read", "--bus", "BUS", "--rate", "200", "--average", "4"], fake)
        #expect(fine.stderr.isEmpty)
    }
}
