import BrokerHarness
import Foundation
import Testing

/// The Linux i2c-dev transport through the real open(2)/ioctl(2) syscalls: `plumb` runs with the
/// fake i2c-dev library preloaded, which emulates an ADXL345 on a /dev/i2c-N path and logs every
/// ioctl, so these tests see the exact transactions the kernel would.
@Suite("Linux I²C transport through real syscalls")
struct LinuxTransportTests {
    private func run(_ arguments: [String], _ fake: FakeI2CDev, also extra: [String: String] = [:]) async throws -> PlumbProcess.Outcome {
        try await PlumbProcess.run(arguments.map { $0 == "BUS" ? fake.devicePath : $0 },
                             environment: fake.variables.merging(extra) { $1 })
    }

    /// The fixture's FIFO filled in real time and emptied by reads (x counts the sample serial).
    private static let timedFIFO = ["PLUMB_FAKE_I2C_FIFO": "timed"]

    /// The timed FIFO's x counts are the sample serials, so readings of `averaging` consecutive
    /// samples differ by `averaging` counts exactly. A stale read repeats the previous entry and
    /// makes a difference smaller, by 1 / (16 × 256) g at 16 samples: above the JSON's 0.0001
    /// rounding, which keeps exact differences (multiples of 0.0625) exact. A sample lost to a
    /// late wake-up on a loaded machine makes one larger, which is no fault of the driver's.
    /// The serial runs modulo 1024 counts (the fixture's SERIAL_MODULUS, 4 g), so differences are
    /// taken modulo that: a run slow enough to lose a few hundred samples (under a sanitizer, say)
    /// passes the wrap, and a stale entry still shows as a difference below `averaging`.
    private func expectConsecutiveSerials(_ outcome: PlumbProcess.Outcome, averaging: Int, readings: Int,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let xs = try outcome.jsonObjects().compactMap { ($0["gravity"] as? [String: Double])?["x"] }
        #expect(xs.count == readings, sourceLocation: sourceLocation)
        let step = Double(averaging) / 256
        let serialPeriod = 1024.0 / 256
        for (earlier, later) in zip(xs, xs.dropFirst()) {
            let difference = later - earlier < 0 ? later - earlier + serialPeriod : later - earlier
            #expect(difference >= step - 1e-6, "readings \(earlier) then \(later)", sourceLocation: sourceLocation)
        }
    }

    /// One `I2C_RDWR` log line's runs: pairs of a one-byte register write and a read.
    private struct Batch {
        var registers: [String]
        var lengths: [Int]
        var line: String

        /// Parses `RDWR n=4 w@53[32] r@53#6 w@53[39] r@53#1 -> ok`; nil for a line of writes.
        init?(_ line: String) {
            guard line.hasPrefix("RDWR n="), let arrow = line.range(of: " -> ") else { return nil }
            let tokens = line[..<arrow.lowerBound].split(separator: " ").dropFirst(2)
            guard tokens.count % 2 == 0, !tokens.isEmpty else { return nil }
            var registers: [String] = []
            var lengths: [Int] = []
            for (write, read) in zip(tokens.enumerated().filter { $0.offset % 2 == 0 }.map(\.element),
                                     tokens.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)) {
                guard write.hasPrefix("w@53["), write.count == 8, read.hasPrefix("r@53#"),
                      let length = Int(read.dropFirst(5)) else { return nil }
                registers.append(String(write.dropFirst(5).prefix(2)))
                lengths.append(length)
            }
            self.registers = registers
            self.lengths = lengths
            self.line = line
        }

        /// How many FIFO entries (six-byte reads of DATAX0) it carried.
        var entries: Int { zip(registers, lengths).count { $0 == "32" && $1 == 6 } }
        var succeeded: Bool { line.hasSuffix("-> ok") }
    }

    // MARK: I2C_RDWR

    @Test func scanFindsTheChipAtItsAddressWithTheBusMode() async throws {
        let fake = try FakeI2CDev()
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345", "--scan", "--json"], fake)
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(try outcome.jsonObjects().first)
        let chips = try #require(report["chips"] as? [[String: Any]])
        #expect(chips.count == 1, "\(report)")
        #expect(chips.first?["address"] as? String == "0x53" && chips.first?["model"] as? String == "ADXL345")
        #expect(chips.first?["i2c_mode"] as? String == "rdwr-batched")
        #expect((chips.first?["identification"] as? [String: String])?["DEVID"] == "0xE5")
        // Every address a supported chip can have was asked, and nothing was written: a scan
        // never configures a chip.
        let lines = try fake.logLines()
        #expect(lines.contains { $0.hasPrefix("RDWR n=2 w@1d[00] r@1d#1") }, "\(lines)")
        // A register write is a lone write message (`RDWR n=1 w@53[2d08]`); a read always has its r@.
        #expect(!lines.contains { $0.hasPrefix("RDWR n=1 w@") }, "\(lines)")
    }

    @Test func probeUsesOneCombinedTransactionPerRegisterRead() async throws {
        let fake = try FakeI2CDev()
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345", "--json"], fake)
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(try outcome.jsonObjects().first)
        #expect(report["device_id"] as? String == "0xE5")
        #expect(report["transfer"] as? String == "I2C_RDWR")
        #expect((report["functionality"] as? [String])?.contains("I2C") == true)
        let lines = try fake.logLines()
        // The chip lock's own descriptor first (held until exit), then the bus's.
        #expect(Array(lines.prefix(2)) == ["OPEN \(fake.devicePath) -> ok", "OPEN \(fake.devicePath) -> ok"])
        #expect(lines.dropFirst(2).first?.hasPrefix("FUNCS -> 0x") == true)
        // DEVID: write the register address, repeated start, read one byte, in one ioctl.
        #expect(lines.contains("RDWR n=2 w@53[00] r@53#1 -> ok"))
        // The offsets: one three-byte burst from OFSX.
        #expect(lines.contains("RDWR n=2 w@53[1e] r@53#3 -> ok"))
        #expect(!lines.contains { $0.hasPrefix("SMBUS") || $0.hasPrefix("SLAVE") })
    }

    @Test func readWritesTheInitSequenceAndReadsEachSampleInOneBurst() async throws {
        let fake = try FakeI2CDev(.init(counts: .init(x: 0, y: 128, z: 224)))
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--average", "4", "--json"], fake)
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
        // Entries are read many to an ioctl, each a six-byte burst, each batch ending with
        // FIFO_STATUS; the first drain reads FIFO_STATUS alone before them.
        let batches = transfers.compactMap(Batch.init).filter { $0.entries > 0 }
        #expect(batches.reduce(0) { $0 + $1.entries } >= 4)
        #expect(batches.allSatisfy { $0.registers.last == "39" && $0.lengths.last == 1 })
        #expect(batches.allSatisfy { $0.registers.count <= 21 })
        #expect(batches.contains { $0.entries >= 4 }, "several entries share an ioctl")
        #expect(transfers.contains("RDWR n=2 w@53[39] r@53#1 -> ok"), "FIFO_STATUS is read before the first entries")
    }

    // MARK: Batched FIFO draining

    @Test func at800HzOneIoctlCarriesADrainsEntriesInOrderWithNoneRepeated() async throws {
        let fake = try FakeI2CDev()
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--raw", "--rate", "800", "--average", "16", "--count", "50", "--json"],
                              fake, also: Self.timedFIFO)
        #expect(outcome.status == 0, "\(outcome)")
        try expectConsecutiveSerials(outcome, averaging: 16, readings: 50)
        let batches = try fake.logLines().compactMap(Batch.init).filter { $0.entries > 0 }
        #expect(batches.allSatisfy { $0.succeeded })
        #expect(batches.allSatisfy { 2 * $0.registers.count <= 42 && $0.registers.last == "39" })
        // Once the rate is measured a drain is one ioctl: FIFO_STATUS, about a watermark's worth
        // of entries, FIFO_STATUS; no ioctl of its own for the status before it.
        let carried = batches.filter { $0.registers.first == "39" }
        #expect(carried.count >= 10, "\(batches.map(\.line))")
        #expect(carried.contains { $0.entries >= 12 })
    }

    @Test func anAdapterThatTakesOneReadMessageLastGetsOneRunPerIoctl() async throws {
        let fake = try FakeI2CDev()
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--raw", "--rate", "800", "--average", "16", "--count", "10", "--json"],
                              fake, also: Self.timedFIFO.merging(["PLUMB_FAKE_I2C_RDWR_READS": "last"]) { $1 })
        #expect(outcome.status == 0, "\(outcome)")
        try expectConsecutiveSerials(outcome, averaging: 16, readings: 10)
        let transfers = try fake.logLines().filter { $0.hasPrefix("RDWR") }
        // The first batch is refused before it reaches the bus, once; from then on every read is
        // its own ioctl, as on a Raspberry Pi 0–4.
        let refused = transfers.filter { $0.hasSuffix("-> EOPNOTSUPP") }
        #expect(refused.count == 1)
        let after = transfers.drop { !$0.hasSuffix("-> EOPNOTSUPP") }.dropFirst()
        #expect(after.contains("RDWR n=2 w@53[32] r@53#6 -> ok"))
        #expect(after.allSatisfy { $0.hasPrefix("RDWR n=2 ") || $0.hasPrefix("RDWR n=1 ") })
    }

    @Test("plumb probe says whether the adapter takes batched reads: i2c_mode", arguments: [
        ([String: String](), "rdwr-batched", "several register reads per transfer"),
        (["PLUMB_FAKE_I2C_RDWR_READS": "last"], "rdwr", "one read message per transfer"),
    ])
    func probeTellsTheBusMode(environment: [String: String], mode: String, text: String) async throws {
        let fake = try FakeI2CDev()
        let json = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345", "--json"], fake, also: environment)
        #expect(json.status == 0, "\(json)")
        #expect(try json.jsonObjects().first?["i2c_mode"] as? String == mode)
        let plain = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345"], fake, also: environment)
        #expect(plain.stdout.contains("i2c mode     \(mode) ("), "\(plain.stdout)")
        #expect(plain.stdout.contains(text))
    }

    /// The agent on an adapter like the Pi 0–4's says at its first drain that batched reads are
    /// off, and `P/health` carries `i2c_mode: rdwr`.
    @Test func theAgentSaysWhenTheAdapterRefusesBatchedReadsAndHealthCarriesTheMode() async throws {
        let fake = try FakeI2CDev()
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let directory = try makeTemporaryDirectory("mode")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "sensor:\n  kind: adxl345\n  bus: \(fake.devicePath)\n".write(toFile: directory + "/plumb.yaml", atomically: true,
                                                                      encoding: .utf8)
        let health = try await MosquittoClients.startSubscriber(port: broker.port, topic: "plumb/mode/health",
                                                               timeout: .seconds(30))
        let process = Process()
        process.executableURL = PlumbProcess.binary
        process.arguments = ["run", "--config", directory + "/plumb.yaml", "--broker", broker.url,
                             "--device-id", "mode", "--state-dir", directory + "/state"]
        process.environment = ProcessInfo.processInfo.environment
            .merging(fake.variables.merging(Self.timedFIFO.merging(["PLUMB_FAKE_I2C_RDWR_READS": "last"]) { $1 }) { $1 }) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let messages = await health.messages()
        let text = await offThePool {
            kill(process.processIdentifier, SIGTERM)
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        let object = try #require(messages.first.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
        }, "no health within 30 s: \(text)")
        #expect(object["i2c_mode"] as? String == "rdwr", "\(object)")
        #expect(text.components(separatedBy: "the adapter refused batched reads").count - 1 == 1, "said once: \(text)")
        #expect(!text.contains("<3>"), "an info line, not an error: \(text)")
    }

    @Test func aBusErrorInABatchStopsWithTheBusErrorMessage() async throws {
        let fake = try FakeI2CDev(.init(fault: .eioAfter(60)))
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--raw", "--rate", "800", "--average", "80", "--count", "20"],
                              fake, also: Self.timedFIFO)
        #expect(outcome.status == 1, "an error exit, not a crash: \(outcome)")
        #expect(outcome.stderr.contains("bus error at 0x53"))
        #expect(outcome.stderr.contains("EIO"))
        let failed = try #require(try fake.logLines().first { $0.hasSuffix("-> EIO") })
        let batch = try #require(Batch(failed), "\(failed)")
        #expect(batch.entries > 1, "the failing transfer is a batch of entries: \(failed)")
    }

    // MARK: SMBus fallback

    @Test func anAdapterWithoutPlainI2CFallsBackToSMBusBlocks() async throws {
        let fake = try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality))
        let probe = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345", "--json"], fake)
        #expect(probe.status == 0, "\(probe)")
        #expect(try probe.jsonObjects().first?["transfer"] as? String == "SMBus")
        #expect(try probe.jsonObjects().first?["i2c_mode"] as? String == "smbus")
        fake.removeLog()

        let read = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--average", "3", "--json"], fake)
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

    @Test func theSMBusFallbackDrainsATimedFIFOEntryByEntryInOrder() async throws {
        let fake = try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality))
        let read = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--raw", "--rate", "400", "--average", "16", "--count", "25", "--json"],
                           fake, also: Self.timedFIFO)
        #expect(read.status == 0, "\(read)")
        try expectConsecutiveSerials(read, averaging: 16, readings: 25)
        let lines = try fake.logLines()
        #expect(!lines.contains { $0.hasPrefix("RDWR") })
        let entries = lines.filter { $0 == "SMBUS read cmd=32 size=I2C_BLOCK len=6 -> ok" }.count
        let statuses = lines.filter { $0 == "SMBUS read cmd=39 size=I2C_BLOCK len=1 -> ok" }.count
        #expect(entries >= 200)
        #expect(statuses > 0 && statuses < entries, "FIFO_STATUS once per drain, then one transfer per entry")
    }

    @Test func anAdapterWithNeitherTransferIsRefusedClearly() async throws {
        let fake = try FakeI2CDev(.init(functionality: 0x0000_0002))  // 10-bit addressing only
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("supports neither I2C_RDWR nor SMBus"))
    }

    // MARK: errno → message

    @Test func aMissingBusSaysHowToEnableI2C() async throws {
        let outcome = try await PlumbProcess.run(["probe", "--bus", "/nonexistent/i2c-9"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("does not exist"))
        #expect(outcome.stderr.contains("dtparam=i2c_arm=on"))
        #expect(outcome.stderr.contains("ENOENT"))
    }

    @Test func permissionDeniedNamesTheI2CGroup() async throws {
        let fake = try FakeI2CDev(.init(openErrno: EACCES))
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("i2c group"))
        #expect(outcome.stderr.contains("EACCES"))
    }

    @Test(arguments: [EREMOTEIO, ENXIO])
    func noAcknowledgeSaysCheckTheWiringAndAddress(errno: Int32) async throws {
        let fake = try FakeI2CDev(.init(fault: .nack, nackErrno: errno))
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no device acknowledged at 0x53"))
        #expect(outcome.stderr.contains("0x1D with SDO to 3V3"))
        #expect(outcome.stderr.contains("i2cdetect -y"))
    }

    @Test func aWrongAddressIsNotAcknowledged() async throws {
        let fake = try FakeI2CDev()
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345", "--address", "0x1D"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no device acknowledged at 0x1D"))
    }

    @Test func aBusErrorMidStreamStopsWithAClearMessage() async throws {
        let fake = try FakeI2CDev(.init(fault: .eioAfter(20)))
        let outcome = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--count", "100", "--average", "8"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("bus error at 0x53"))
        #expect(outcome.stderr.contains("pull-ups"))
        #expect(outcome.stderr.contains("EIO"))
    }

    @Test func aKernelDriverHoldingTheAddressIsNamed() async throws {
        let fake = try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality, slaveErrno: EBUSY))
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("claimed by a kernel driver"))
    }

    @Test func anotherChipIsNamedByItsID() async throws {
        let fake = try FakeI2CDev(.init(deviceID: 0x68))
        let outcome = try await run(["probe", "--bus", "BUS", "--sensor", "adxl345"], fake)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("has ID 0x68"))
    }

    // MARK: sensor.kind auto, the default

    @Test func autoFindsTheOneChipAndReadsIt() async throws {
        let fake = try FakeI2CDev()
        let probe = try await run(["probe", "--bus", "BUS", "--json"], fake)
        #expect(probe.status == 0, "\(probe)")
        #expect(try probe.jsonObjects().first?["chip"] as? String == "ADXL345")
        let read = try await run(["read", "--bus", "BUS", "--average", "3", "--json"], fake)
        #expect(read.status == 0, "\(read)")
        #expect(try read.jsonObjects().first?["chip"] as? String == "ADXL345")
    }

    @Test func autoWithNoChipSaysWhatItSawAtEachAddress() async throws {
        let silent = try await run(["probe", "--bus", "BUS"], try FakeI2CDev(.init(fault: .nack)))
        #expect(silent.status == 1)
        #expect(silent.stderr.contains("no supported accelerometer (ADXL345, ADXL355, MPU-6050)"))
        #expect(silent.stderr.contains("no device acknowledged at 0x1D, 0x53, 0x68, 0x69"), "\(silent.stderr)")
        #expect(silent.stderr.contains("i2cdetect -y") && silent.stderr.contains("--sensor"))
        let unknown = try await run(["read", "--bus", "BUS"], try FakeI2CDev(.init(deviceID: 0x33)))
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("0x53 has ID 0x33 (DEVID)"), "\(unknown.stderr)")
        let held = try await run(["probe", "--bus", "BUS"],
                                 try FakeI2CDev(.init(functionality: FakeI2CDev.smbusOnlyFunctionality, slaveErrno: EBUSY)))
        #expect(held.stderr.contains("claimed by a kernel driver"), "\(held.stderr)")
    }

    @Test(arguments: [(FakeI2CDev.Chip.adxl355, "ADXL355", "0x1D"), (.mpu6050, "MPU-6050", "0x68"), (.mpu9250, "MPU-9250", "0x68")])
    func everyChipIsFoundAndReadByPlumbItself(chip: FakeI2CDev.Chip, model: String, address: String) async throws {
        let fake = try FakeI2CDev(.init(chip: chip))
        let read = try await run(["read", "--bus", "BUS", "--average", "3", "--json"], fake)
        #expect(read.status == 0, "\(read)")
        let reading = try #require(try read.jsonObjects().first)
        #expect(reading["chip"] as? String == model, "\(reading)")
        let gravity = try #require(reading["gravity"] as? [String: Double])
        #expect(abs((gravity["z"] ?? 0) - 1) < 0.01, "\(gravity)")
        let probe = try await run(["probe", "--bus", "BUS", "--json"], fake)
        #expect(probe.status == 0, "\(probe)")
        let report = try #require(try probe.jsonObjects().first)
        #expect(report["chip"] as? String == model && report["address"] as? String == address, "\(report)")
        let scan = try await run(["probe", "--scan", "--bus", "BUS"], fake)
        #expect(scan.status == 0 && scan.stdout.contains("1 supported chip") && scan.stdout.contains(address), "\(scan)")
        let selfTest = try await run(["selftest", "--bus", "BUS"], fake)
        #expect(selfTest.status == 0 && selfTest.stdout.contains("PASS"), "\(selfTest)")
    }

    @Test func anMPUCloneIsReadWithAWarningNamingItsID() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, deviceID: 0x98))
        let probe = try await run(["probe", "--bus", "BUS"], fake)
        #expect(probe.status == 0, "\(probe)")
        #expect(probe.stdout.contains("warning") && probe.stdout.contains("0x98"), "\(probe.stdout)")
    }

    @Test func autoWithAnAddressLooksOnlyThere() async throws {
        let outcome = try await run(["probe", "--bus", "BUS", "--address", "0x68"], try FakeI2CDev())
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("answers on") && outcome.stderr.contains("at 0x68"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("0x53"), "only the address given is looked at")
    }

    // MARK: Rates

    @Test func ratesAboveWhatTheBusSustainsAreWarnedAbout() async throws {
        let fake = try FakeI2CDev()
        let fast = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--rate", "400", "--average", "4"], fake)
        #expect(fast.status == 0, "\(fast)")
        #expect(fast.stderr.contains("needs a 400 kHz I²C bus"))
        let tooFast = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--rate", "1600", "--average", "4"], fake)
        #expect(tooFast.stderr.contains("I²C cannot carry the ADXL345 at 1600 Hz") && tooFast.stderr.contains("--rate 800"))
        let fine = try await run(["read", "--bus", "BUS", "--sensor", "adxl345", "--rate", "200", "--average", "4"], fake)
        #expect(fine.stderr.isEmpty)
    }
}

/// An adapter that goes away while in use (a USB I²C adapter unplugged, its driver unloaded):
/// the kernel answers ENODEV on the open descriptor, then the device file is gone.
@Suite("An I²C adapter that goes away")
struct AdapterGoneTests {
    @Test func aCommandSaysTheAdapterWentAwayNotToEnableI2C() async throws {
        let fake = try FakeI2CDev(.init(fault: .goneAfter(20)))
        let outcome = try await PlumbProcess.run(["read", "--bus", fake.devicePath, "--count", "100", "--average", "8"],
                                                 environment: fake.variables)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("the I²C adapter behind \(fake.devicePath) went away"), "\(outcome)")
        #expect(outcome.stderr.contains("ENODEV"), "\(outcome)")
        #expect(!outcome.stderr.contains("raspi-config"), "\(outcome)")
    }

    /// The agent reports it once, waits, and each reopen (the node gone: ENOENT) is the same
    /// story, never "does not exist … enable I²C", which is for a bus that was never there.
    @Test func theAgentSaysItWentAwayAndWaitsForIt() async throws {
        let fake = try FakeI2CDev(.init(fault: .goneAfter(40)))
        let broker = try MosquittoBroker.start()
        let directory = try makeTemporaryDirectory("gone")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "log_level: debug\nsensor:\n  kind: adxl345\n  bus: \(fake.devicePath)\n".write(toFile: directory + "/plumb.yaml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = PlumbProcess.binary
        process.arguments = ["run", "--config", directory + "/plumb.yaml", "--broker", broker.url,
                             "--device-id", "gone", "--state-dir", directory + "/state"]
        process.environment = ProcessInfo.processInfo.environment.merging(fake.variables) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let reopened = "sensor still faulty: the I²C adapter behind \(fake.devicePath) went away during open (ENOENT)"
        let text = await offThePool {
            // Read until the first reopen has been refused (the first retry is within 2 s), then stop.
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            let handle = errors.fileHandleForReading
            while !text.contains(reopened), Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGTERM)
            text += String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            // Reaped, or Foundation's Process stays alive in a reference cycle (LeakSanitizer).
            process.waitUntilExit()
            return text
        }
        #expect(text.contains("<3>plumb: sensor fault: the I²C adapter behind \(fake.devicePath) went away"), "\(text)")
        #expect(text.contains("Plumb waits for the sensor"), "\(text)")
        #expect(text.contains(reopened), "\(text)")
        #expect(!text.contains("raspi-config") && !text.contains("does not exist"), "\(text)")
    }
}
