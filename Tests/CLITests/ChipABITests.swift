import Foundation
import Testing

/// Reads a JSON number as a Double (JSONSerialization gives Int for a whole number).
private func number(_ value: Any?) -> Double? {
    (value as? Double) ?? (value as? Int).map(Double.init) ?? (value as? NSNumber)?.doubleValue
}

/// The mean acceleration a `drain` step printed, in g.
private func mean(_ drain: [String: Any]?) -> (x: Double, y: Double, z: Double)? {
    guard let mean = drain?["mean"] as? [String: Any], let x = number(mean["x"]), let y = number(mean["y"]),
          let z = number(mean["z"]) else { return nil }
    return (x, y, z)
}

/// The axes a `selftest` step printed: name → (delta, passed).
private func selfTestAxes(_ step: [String: Any]?) -> [String: (delta: Double, passed: Bool)] {
    var axes: [String: (delta: Double, passed: Bool)] = [:]
    for axis in step?["axes"] as? [[String: Any]] ?? [] {
        guard let name = axis["name"] as? String, let delta = number(axis["delta"]), let passed = axis["passed"] as? Bool
        else { continue }
        axes[name] = (delta, passed)
    }
    return axes
}

/// The bytes of the read messages of `lines`' `RDWR` lines whose write names `register` (`11`).
private func readLengths(after register: String, at address: UInt8, in lines: [String]) -> [Int] {
    let write = "w@" + String(format: "%02x", address) + "[" + register + "]"
    return lines.filter { $0.hasPrefix("RDWR") && $0.hasSuffix("-> ok") }.flatMap { line -> [Int] in
        let tokens = line.split(separator: " ").map(String.init)
        return zip(tokens, tokens.dropFirst()).compactMap { first, second in
            first == write && second.hasPrefix("r@") ? Int(second.split(separator: "#").last ?? "") : nil
        }
    }
}

/// The lone register writes (`RDWR n=1 w@1d[2d01] -> ok` as `2d01`), in order.
private func writes(at address: UInt8, in lines: [String]) -> [String] {
    let prefix = "RDWR n=1 w@" + String(format: "%02x", address) + "["
    return lines.filter { $0.hasPrefix(prefix) && $0.hasSuffix("] -> ok") }
        .map { String($0.dropFirst(prefix.count).prefix { $0 != "]" }) }
}

/// The ADXL355 driver on the real `LinuxI2CBus`, on the fake i2c-dev playing an ADXL355 through
/// the real ioctls (`PLUMB_FAKE_I2C_CHIP=adxl355`): identification, the reset-and-configure
/// sequence, FIFO drains in whole sets (STATUS, FIFO_ENTRIES and FIFO_DATA in one transaction),
/// temperature and stop, on a batched adapter, one that takes one read message per transfer, and
/// an SMBus-only one.
@Suite("ADXL355 through the kernel ABI on the fake i2c-dev")
struct ADXL355KernelABITests {
    @Test func probeReadsTheThreeIDsInOneBurst() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["probe"])
        #expect(outcome.status == 0, "\(outcome)")
        let probe = try #require(outcome.step("probe"), "\(outcome)")
        #expect(probe["model"] as? String == "ADXL355")
        #expect(probe["device_id"] as? String == "0xED")
        #expect(probe["mode"] as? String == "rdwr-batched")
        let lines = try fake.logLines()
        #expect(lines.contains("RDWR n=2 w@1d[00] r@1d#3 -> ok"), "\(lines)")
        #expect(writes(at: 0x1D, in: lines).isEmpty, "a probe writes nothing: \(lines)")
    }

    @Test func anotherPartIDIsRefusedNamingPARTIDAndTheValue() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, deviceID: 0xEE))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["probe"])
        #expect(outcome.status == 1, "\(outcome)")
        let error = try #require(outcome.step("probe")?["error"] as? String, "\(outcome)")
        #expect(error.contains("PARTID 0xEE"), "\(error)")
        #expect(error.contains("0x1D with ASEL low"), "\(error)")
    }

    @Test("start, drain, temperature and stop at each address", arguments: [UInt8(0x1D), 0x53])
    func startDrainTemperatureStop(address: UInt8) async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, address: address, temperatureRaw: 1795))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake,
                                                   steps: ["probe", "start:125:2", "drain:40", "temperature", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        let start = try #require(outcome.step("start"), "\(outcome)")
        #expect(number(start["rate_hz"]) == 125 && number(start["range_g"]) == 2, "\(start)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(number(drain["samples"]).map { $0 >= 40 } == true, "\(drain)")
        // (No check on overruns: a test process stalled for 256 ms fills the FIFO; the overrun
        // tests below make one on purpose.)
        #expect(number(drain["clipped"]) == 0, "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.x) < 1e-6 && abs(gravity.y) < 1e-6 && abs(gravity.z - 1) < 1e-6, "level: \(gravity)")
        #expect(number(drain["min_z"]) == number(drain["max_z"]), "every set decoded alike: \(drain)")
        // TEMP2/TEMP1 = 1795: (1795 − 1885) / −9.05 + 25 °C.
        let celsius = try #require(number(outcome.step("temperature")?["celsius"]), "\(outcome)")
        #expect(abs(celsius - ((1795.0 - 1885) / -9.05 + 25)) < 1e-9, "\(celsius)")

        let lines = try fake.logLines()
        // Reset, standby, RANGE read-modify-write (I2C_HS kept), FILTER code 5, measure; stop is
        // standby again.
        #expect(writes(at: address, in: lines) == ["2f52", "2d01", "2c81", "2805", "2d00", "2d01"], "\(lines)")
        let hex = String(format: "%02x", address)
        #expect(lines.contains("RDWR n=2 w@\(hex)[28] r@\(hex)#6 -> ok"), "FILTER…POWER_CTL read back: \(lines)")
        #expect(lines.contains("RDWR n=2 w@\(hex)[06] r@\(hex)#2 -> ok"), "TEMP2/TEMP1 in one burst: \(lines)")
        // Every drain is one transaction: STATUS and FIFO_ENTRIES, then FIFO_DATA in whole sets.
        let drains = lines.filter { $0.hasPrefix("RDWR n=4 w@\(hex)[04] r@\(hex)#2 w@\(hex)[11] r@\(hex)#") }
        #expect(drains.count >= 2 && drains.allSatisfy { $0.hasSuffix("-> ok") }, "\(lines)")
        #expect(readLengths(after: "11", at: address, in: lines).allSatisfy { $0 > 0 && $0 % 9 == 0 }, "\(lines)")
    }

    @Test func axesAndRangeComeThroughInTheChipsEncoding() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, milliG: .init(x: 250, y: -500, z: 800)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["start:250:8", "drain:20"])
        #expect(outcome.status == 0, "\(outcome)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        // ±8.192 g: 64 000 LSB/g, so each value is exact in 20 bits.
        #expect(abs(gravity.x - 0.25) < 1e-9 && abs(gravity.y + 0.5) < 1e-9 && abs(gravity.z - 0.8) < 1e-9, "\(gravity)")
        #expect(writes(at: 0x1D, in: try fake.logLines()).contains("2c83"), "RANGE ±8.192 g")
    }

    @Test func aFullFIFOIsReportedAsAnOverrunAndTheSetsStayWhole() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355))
        defer { fake.removeLog() }
        // 1000 Hz for 200 ms is 200 sets into a FIFO of 32.
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["start:1000:2", "sleep:0.2", "drain:1"])
        #expect(outcome.status == 0, "\(outcome)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(number(drain["overruns"]).map { $0 >= 1 } == true, "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.z - 1) < 1e-6 && abs(gravity.x) < 1e-6, "\(gravity)")
    }

    @Test func anAdapterThatTakesOneReadMessageLastGetsEachReadInItsOwnTransfer() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["probe", "start:500:2", "drain:100", "temperature", "stop"],
                                                   also: ["PLUMB_FAKE_I2C_RDWR_READS": "last"])
        #expect(outcome.status == 0, "\(outcome)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(drain["mode"] as? String == "rdwr", "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.z - 1) < 1e-6, "\(gravity)")
        let lines = try fake.logLines()
        #expect(lines.filter { $0.hasSuffix("-> EOPNOTSUPP") }.count == 1, "refused once, then never asked again: \(lines)")
        let after = lines.drop { !$0.hasSuffix("-> EOPNOTSUPP") }.dropFirst().filter { $0.hasPrefix("RDWR") }
        #expect(after.allSatisfy { $0.hasPrefix("RDWR n=1 ") || $0.hasPrefix("RDWR n=2 ") }, "\(lines)")
        #expect(after.contains("RDWR n=2 w@1d[04] r@1d#2 -> ok"), "\(lines)")
        #expect(readLengths(after: "11", at: 0x1D, in: lines).allSatisfy { $0 % 9 == 0 }, "\(lines)")
    }

    @Test func anSMBusOnlyAdapterReadsFIFODataThreeSetsAtATime() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, functionality: FakeI2CDev.smbusOnlyFunctionality))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["probe", "start:500:2", "drain:100", "temperature", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.step("probe")?["mode"] as? String == "smbus", "\(outcome)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        #expect(abs(gravity.z - 1) < 1e-6 && abs(gravity.x) < 1e-6, "\(gravity)")
        #expect(number(outcome.step("temperature")?["celsius"]).map { abs($0 - 25) < 1e-9 } == true, "\(outcome)")
        let lines = try fake.logLines()
        #expect(!lines.contains { $0.hasPrefix("RDWR") }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("SLAVE") } == ["SLAVE 1d -> ok"], "\(lines)")
        #expect(lines.contains("SMBUS write cmd=2f size=BYTE_DATA val=52 -> ok"), "\(lines)")
        // FIFO_DATA does not auto-increment, and a 32-byte block would split a set: 27 bytes at most.
        let fifoReads = lines.filter { $0.hasPrefix("SMBUS read cmd=11 size=I2C_BLOCK len=") }
        #expect(fifoReads.contains("SMBUS read cmd=11 size=I2C_BLOCK len=27 -> ok"), "\(lines)")
        #expect(fifoReads.allSatisfy { line in
            Int(line.split(separator: "=").last?.split(separator: " ").first ?? "").map { $0 % 9 == 0 && $0 <= 27 } == true
        }, "\(fifoReads)")
        #expect(lines.last { $0.hasPrefix("SMBUS write") } == "SMBUS write cmd=2d size=BYTE_DATA val=01 -> ok", "stop: standby")
    }

    @Test func aBusErrorInADrainSurfacesAsTheBusErrorWithItsErrno() async throws {
        // Reset, standby, RANGE read and write, FILTER, measure, read-back: 7 transfers, then drains.
        let fake = try FakeI2CDev(.init(chip: .adxl355, fault: .eioAfter(12)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["start:125:2", "drain:1000"])
        #expect(outcome.status == 1, "\(outcome)")
        let error = try #require(outcome.step("drain:1000")?["error"] as? String, "\(outcome)")
        #expect(error.contains("bus error at 0x1D") && error.contains("(EIO)"), "\(error)")
        let failed = try #require(try fake.logLines().first { $0.hasSuffix("-> EIO") })
        #expect(failed.hasPrefix("RDWR n=4 w@1d[04] r@1d#2 w@1d[11] r@1d#"), "a drain's transaction failed: \(failed)")
    }

    /// The datasheet's self-test at ±8.192 g (64 000 LSB/g): ST1 alone, then ST1 and ST2 (the
    /// force; the fixture's typical 0.3, 0.3 and 1.5 g), then SELF_TEST cleared and standby.
    @Test func selfTestMeasuresTheForceAndLeavesItOff() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["selftest", "start:125:2", "drain:12"])
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(outcome.step("selftest"), "\(outcome)")
        #expect(report["passed"] as? Bool == true, "\(report)")
        let axes = selfTestAxes(report)
        #expect(axes.keys.sorted() == ["x", "y", "z"], "\(report)")
        for (name, wanted) in [("x", 0.3), ("y", 0.3), ("z", 1.5)] {
            #expect(axes[name].map { abs($0.delta - wanted * 64000) < 1 } == true, "\(name): \(report)")
        }
        let all = writes(at: 0x1D, in: try fake.logLines())
        let selfTestWrites = all.filter { $0.hasPrefix("2e") }
        #expect(selfTestWrites == ["2e01", "2e03", "2e00"], "ST1, ST1 and ST2, cleared: \(all)")
        #expect(all.contains("2c83"), "±8.192 g for the test: \(all)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        #expect(abs(gravity.z - 1) < 1e-6 && abs(gravity.x) < 1e-6, "no force after: \(gravity)")
    }

    @Test func aDeadSelfTestForceFailsEveryAxis() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, selfTestMilliG: .init(x: 0, y: 0, z: 0)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["selftest"])
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(outcome.step("selftest"), "\(outcome)")
        #expect(report["passed"] as? Bool == false, "\(report)")
        #expect(selfTestAxes(report).values.allSatisfy { !$0.passed && abs($0.delta) < 1 }, "\(report)")
    }

    @Test("ChipScan finds the ADXL355 at its address", arguments: [UInt8(0x1D), 0x53])
    func scanFindsTheChip(address: UInt8) async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, address: address))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["scan"])
        #expect(outcome.status == 0, "\(outcome)")
        let chips = try #require(outcome.step("scan")?["chips"] as? [[String: Any]], "\(outcome)")
        #expect(chips.count == 1, "\(chips)")
        #expect(chips.first?["address"] as? String == "0x" + String(format: "%02X", address))
        #expect(chips.first?["model"] as? String == "ADXL355")
        #expect(chips.first?["identification"] as? [String] == ["0xAD", "0x1D", "0xED"])
        #expect(chips.first?["clone"] as? Bool == false)
        #expect(chips.first?["mode"] as? String == "rdwr-batched")
        let lines = try fake.logLines()
        #expect(writes(at: address, in: lines).isEmpty, "a scan never writes: \(lines)")
        let other = address == 0x1D ? "53" : "1d"
        #expect(lines.contains("RDWR n=2 w@\(other)[00] r@\(other)#1 -> EREMOTEIO"), "the other address asked too: \(lines)")
    }

    @Test func scanPassesOverAnotherChip() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl355, deviceID: 0xEE))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl355, on: fake, steps: ["scan"])
        #expect(outcome.status == 0, "\(outcome)")
        let chips = try #require(outcome.step("scan")?["chips"] as? [[String: Any]], "\(outcome)")
        #expect(chips.isEmpty, "\(chips)")
    }
}

/// The MPU-6050 family's driver on the real `LinuxI2CBus`, on the fake i2c-dev playing an
/// MPU-6050, MPU-6500 or MPU-9250 through the real ioctls (`PLUMB_FAKE_I2C_CHIP=mpu…`):
/// WHO_AM_I and its clones, reset, wake, the FIFO fed with the accelerometer alone, drains of
/// INT_STATUS and FIFO_COUNT then FIFO_R_W, overflows, temperature and sleep, on a batched
/// adapter, one that takes one read message per transfer, and an SMBus-only one.
@Suite("MPU-6050 family through the kernel ABI on the fake i2c-dev")
struct MPU6050KernelABITests {
    @Test("probe names the part from WHO_AM_I", arguments: [
        (FakeI2CDev.Chip.mpu6050, "0x68", "MPU-6050"), (.mpu6500, "0x70", "MPU-6500"), (.mpu9250, "0x71", "MPU-9250"),
    ])
    func probeNamesThePart(chip: FakeI2CDev.Chip, id: String, model: String) async throws {
        let fake = try FakeI2CDev(.init(chip: chip))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe"])
        #expect(outcome.status == 0, "\(outcome)")
        let probe = try #require(outcome.step("probe"), "\(outcome)")
        #expect(probe["model"] as? String == model && probe["device_id"] as? String == id, "\(probe)")
        #expect(probe["warning"] == nil, "a genuine part: \(probe)")
        #expect(try fake.logLines().contains("RDWR n=2 w@68[75] r@68#1 -> ok"))
    }

    @Test func aCloneIsAcceptedWithAWarningNamingTheValueAndReadAsAnMPU6050() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, deviceID: 0x98))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe", "start:100:2", "drain:20", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        let probe = try #require(outcome.step("probe"), "\(outcome)")
        #expect(probe["model"] as? String == "MPU-6050", "\(probe)")
        let warning = try #require(probe["warning"] as? String, "\(probe)")
        #expect(warning.contains("WHO_AM_I reads 0x98"), "\(warning)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        #expect(abs(gravity.z - 1) < 1e-6, "\(gravity)")
        #expect(!writes(at: 0x68, in: try fake.logLines()).contains { $0.hasPrefix("1d") },
                "no ACCEL_CONFIG2 on the MPU-6050's map")
    }

    @Test func anUnknownWHOAMIIsRefusedNamingIt() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, deviceID: 0x72))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe"])
        #expect(outcome.status == 1, "\(outcome)")
        let error = try #require(outcome.step("probe")?["error"] as? String, "\(outcome)")
        #expect(error.contains("WHO_AM_I 0x72"), "\(error)")
        #expect(error.contains("0x69 (AD0 to 3V3)"), "\(error)")
    }

    /// Each part with its own temperature formula: MPU-6050 raw / 340 + 36.53, MPU-6500/9250
    /// raw / 333.87 + 21 (the register maps' TEMP_OUT).
    @Test("start, drain, temperature and sleep", arguments: [
        (FakeI2CDev.Chip.mpu6050, UInt8(0x68), Int32(-521), -521.0 / 340 + 36.53),
        (.mpu6500, 0x69, 1336, 1336.0 / 333.87 + 21),
        (.mpu9250, 0x68, -2000, -2000.0 / 333.87 + 21),
    ])
    func startDrainTemperatureSleep(chip: FakeI2CDev.Chip, address: UInt8, raw: Int32, celsius: Double) async throws {
        let fake = try FakeI2CDev(.init(chip: chip, address: address, temperatureRaw: raw))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake,
                                                   steps: ["probe", "start:100:2", "drain:30", "temperature", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(number(drain["samples"]).map { $0 >= 30 } == true && number(drain["clipped"]) == 0, "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.x) < 1e-6 && abs(gravity.y) < 1e-6 && abs(gravity.z - 1) < 1e-6, "level: \(gravity)")
        let read = try #require(number(outcome.step("temperature")?["celsius"]), "\(outcome)")
        #expect(abs(read - celsius) < 1e-9, "\(read) °C")

        let lines = try fake.logLines()
        let all = writes(at: address, in: lines)
        // DEVICE_RESET, wake on the PLL, all axes on, 100 Hz (SMPLRT_DIV 9), DLPF 44 Hz, ±2 g,
        // (ACCEL_CONFIG2 on the MPU-6500 map), FIFO_OFLOW_EN, the accelerometer into the FIFO,
        // FIFO reset then on; stop: FIFO off and SLEEP.
        let accelConfig2 = chip == .mpu6050 ? [] : ["1d03"]
        #expect(all == ["6b80", "6b01", "6c00", "1909", "1a03", "1c00"] + accelConfig2
                + ["3810", "2308", "6a04", "6a40", "6a00", "6b41"], "\(lines)")
        let hex = String(format: "%02x", address)
        #expect(lines.contains("RDWR n=2 w@\(hex)[41] r@\(hex)#2 -> ok"), "TEMP_OUT in one burst: \(lines)")
        let heads = lines.filter { $0 == "RDWR n=4 w@\(hex)[3a] r@\(hex)#1 w@\(hex)[72] r@\(hex)#2 -> ok" }
        #expect(!heads.isEmpty, "INT_STATUS and FIFO_COUNT in one transaction: \(lines)")
        #expect(!lines.contains { $0.hasPrefix("RDWR n=2 w@\(hex)[72]") }, "never a transaction of its own: \(lines)")
        let fifoReads = readLengths(after: "74", at: address, in: lines)
        #expect(!fifoReads.isEmpty && fifoReads.allSatisfy { $0 % 6 == 0 }, "whole samples from FIFO_R_W: \(fifoReads)")
    }

    @Test func axesAndRangeComeThroughInTheChipsEncoding() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, milliG: .init(x: 250, y: -500, z: 750)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["start:200:8", "drain:20"])
        #expect(outcome.status == 0, "\(outcome)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        // ±8 g: 4096 LSB/g, each value exact in 16 bits.
        #expect(gravity.x == 0.25 && gravity.y == -0.5 && gravity.z == 0.75, "\(gravity)")
        #expect(writes(at: 0x68, in: try fake.logLines()).contains("1c10"), "ACCEL_CONFIG AFS_SEL 2")
    }

    /// An MPU-6050's full FIFO (1024 bytes, not whole samples) and an MPU-6500's (512) lose the
    /// samples' alignment; the drain resets the FIFO, reports the overrun and decodes only whole
    /// samples after.
    @Test("an overflowed FIFO is reset and reported", arguments: [FakeI2CDev.Chip.mpu6050, .mpu6500])
    func anOverflowIsResetAndReported(chip: FakeI2CDev.Chip) async throws {
        let fake = try FakeI2CDev(.init(chip: chip, milliG: .init(x: 125, y: 0, z: 1000)))
        defer { fake.removeLog() }
        // 1000 Hz for 400 ms is 2400 bytes.
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["start:1000:2", "sleep:0.4", "drain:20"])
        #expect(outcome.status == 0, "\(outcome)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(number(drain["overruns"]).map { $0 >= 1 } == true, "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.x - 0.125) < 1e-6 && abs(gravity.z - 1) < 1e-6, "aligned after the reset: \(gravity)")
        #expect(number(drain["min_z"]) == number(drain["max_z"]), "\(drain)")
        let resets = writes(at: 0x68, in: try fake.logLines()).filter { $0 == "6a04" }
        #expect(resets.count >= 2, "the start's FIFO reset, then the overflow's")
    }

    @Test func anAdapterThatTakesOneReadMessageLastGetsEachReadInItsOwnTransfer() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu9250, address: 0x69))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe", "start:250:2", "drain:60", "stop"],
                                                   also: ["PLUMB_FAKE_I2C_RDWR_READS": "last"])
        #expect(outcome.status == 0, "\(outcome)")
        let drain = try #require(outcome.step("drain"), "\(outcome)")
        #expect(drain["mode"] as? String == "rdwr", "\(drain)")
        let gravity = try #require(mean(drain), "\(drain)")
        #expect(abs(gravity.z - 1) < 1e-6, "\(gravity)")
        let lines = try fake.logLines()
        #expect(lines.filter { $0.hasSuffix("-> EOPNOTSUPP") } == ["RDWR n=4 w@69[3a] r@69#1 w@69[72] r@69#2 -> EOPNOTSUPP"],
                "\(lines)")
        let after = lines.drop { !$0.hasSuffix("-> EOPNOTSUPP") }.dropFirst().filter { $0.hasPrefix("RDWR") }
        #expect(after.allSatisfy { $0.hasPrefix("RDWR n=1 ") || $0.hasPrefix("RDWR n=2 ") }, "\(lines)")
        #expect(after.contains("RDWR n=2 w@69[72] r@69#2 -> ok"), "\(lines)")
    }

    @Test func anSMBusOnlyAdapterReadsFIFO_R_WThirtyBytesAtATime() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6500, functionality: FakeI2CDev.smbusOnlyFunctionality))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe", "start:500:2", "drain:100", "temperature", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.step("probe")?["mode"] as? String == "smbus", "\(outcome)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        #expect(abs(gravity.z - 1) < 1e-6 && abs(gravity.x) < 1e-6, "\(gravity)")
        #expect(number(outcome.step("temperature")?["celsius"]).map { abs($0 - 21) < 1e-9 } == true, "\(outcome)")
        let lines = try fake.logLines()
        #expect(!lines.contains { $0.hasPrefix("RDWR") }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("SLAVE") } == ["SLAVE 68 -> ok"], "\(lines)")
        let fifoReads = lines.filter { $0.hasPrefix("SMBUS read cmd=74 size=I2C_BLOCK len=") }
        #expect(fifoReads.contains("SMBUS read cmd=74 size=I2C_BLOCK len=30 -> ok"), "\(lines)")
        #expect(fifoReads.allSatisfy { line in
            Int(line.split(separator: "=").last?.split(separator: " ").first ?? "").map { $0 % 6 == 0 && $0 <= 30 } == true
        }, "\(fifoReads)")
        // 500 Hz: the widest filter at or below 250 Hz, 184 Hz, DLPF_CFG and A_DLPF_CFG 1.
        #expect(lines.contains("SMBUS write cmd=1a size=BYTE_DATA val=01 -> ok"), "CONFIG")
        #expect(lines.contains("SMBUS write cmd=1d size=BYTE_DATA val=01 -> ok"), "ACCEL_CONFIG2 on the MPU-6500")
        #expect(lines.last { $0.hasPrefix("SMBUS write") } == "SMBUS write cmd=6b size=BYTE_DATA val=41 -> ok", "stop: SLEEP")
    }

    @Test func anAdapterGoneInADrainSaysItWentAway() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, fault: .goneAfter(20)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["start:125:2", "drain:1000"])
        #expect(outcome.status == 1, "\(outcome)")
        let error = try #require(outcome.step("drain:1000")?["error"] as? String, "\(outcome)")
        #expect(error.contains("went away") && error.contains("(ENODEV)"), "\(error)")
    }

    /// The self-test against the part's own factory trim (SELF_TEST_X…A read in one burst): the
    /// MPU-6050 at ±8 g, 20 samples; the MPU-6500 map at ±2 g, 200 samples at 1 kHz. The fixture's
    /// force is the trim's response (0.559 g at code 16, 0.260 g at code 50).
    @Test("self-test against the factory trim", arguments: [
        (FakeI2CDev.Chip.mpu6050, 0.559 * 4096, "1cf0", 20),
        (.mpu6500, 0.260 * 16384, "1ce0", 200),
    ])
    func selfTestAgainstTheTrim(chip: FakeI2CDev.Chip, delta: Double, forceOn: String, samples: Int) async throws {
        let fake = try FakeI2CDev(.init(chip: chip))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["probe", "selftest", "start:100:2", "drain:10"])
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(outcome.step("selftest"), "\(outcome)")
        #expect(report["passed"] as? Bool == true, "\(report)")
        #expect(number(report["samples_per_mean"]) == Double(samples), "\(report)")
        let axes = selfTestAxes(report)
        #expect(axes.count == 3 && axes.values.allSatisfy { abs($0.delta - delta) < 2 }, "\(report)")
        let lines = try fake.logLines()
        #expect(lines.contains("RDWR n=2 w@68[0d] r@68#4 -> ok"), "the trims in one burst: \(lines)")
        #expect(writes(at: 0x68, in: lines).contains(forceOn), "XA_ST, YA_ST, ZA_ST set: \(lines)")
        let gravity = try #require(mean(outcome.step("drain")), "\(outcome)")
        #expect(abs(gravity.z - 1) < 1e-6 && abs(gravity.x) < 1e-6, "no force after: \(gravity)")
    }

    @Test func aWeakSelfTestResponseFails() async throws {
        let fake = try FakeI2CDev(.init(chip: .mpu6050, selfTestMilliG: .init(x: 559, y: 100, z: 559)))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["selftest"])
        #expect(outcome.status == 0, "\(outcome)")
        let report = try #require(outcome.step("selftest"), "\(outcome)")
        #expect(report["passed"] as? Bool == false, "\(report)")
        let axes = selfTestAxes(report)
        #expect(axes["x"]?.passed == true && axes["y"]?.passed == false && axes["z"]?.passed == true, "\(report)")
    }

    @Test("ChipScan finds the part at its address", arguments: [
        (FakeI2CDev.Chip.mpu6050, UInt8(0x68), UInt8?.none, "0x68", false),
        (.mpu9250, 0x69, nil, "0x71", false),
        (.mpu6050, 0x68, 0x98, "0x98", true),
    ])
    func scanFindsThePart(chip: FakeI2CDev.Chip, address: UInt8, id: UInt8?, read: String, clone: Bool) async throws {
        let fake = try FakeI2CDev(.init(chip: chip, address: address, deviceID: id))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.mpu6050, on: fake, steps: ["scan"])
        #expect(outcome.status == 0, "\(outcome)")
        let chips = try #require(outcome.step("scan")?["chips"] as? [[String: Any]], "\(outcome)")
        #expect(chips.count == 1, "\(chips)")
        #expect(chips.first?["address"] as? String == "0x" + String(format: "%02X", address))
        #expect(chips.first?["identification"] as? [String] == [read])
        #expect(chips.first?["clone"] as? Bool == clone)
        let lines = try fake.logLines()
        #expect(writes(at: address, in: lines).isEmpty, "a scan never writes: \(lines)")
        #expect(lines.contains("RDWR n=4 w@\(String(format: "%02x", address))[75] r@\(String(format: "%02x", address))#1 "
                               + "w@\(String(format: "%02x", address))[75] r@\(String(format: "%02x", address))#1 -> ok"),
                "the mode check: WHO_AM_I twice in one transaction: \(lines)")
    }
}

/// The protocol's ``Accelerometer/dieTemperature()`` over the real Linux transport: one short
/// burst from each chip's temperature registers, the fake serving a raw value that stands for a
/// die temperature; nil from the ADXL345, which has no sensor.
@Suite("dieTemperature through the kernel ABI on the fake i2c-dev")
struct DieTemperatureKernelABITests {
    @Test("the ADXL355 and the MPU family read the die temperature the registers hold", arguments: [
        // 40 °C on each: (40 − 25) × −9.05 + 1885 = 1749.25 → 1749; (40 − 36.53) × 340 = 1179.8 → 1180;
        // (40 − 21) × 333.87 = 6343.53 → 6344.
        (FakeI2CDev.Chip.adxl355, ChipABIHarness.Driver.adxl355, Int32(1749), 0.5 / 9.05),
        (.mpu6050, .mpu6050, 1180, 0.5 / 340),
        (.mpu6500, .mpu6050, 6344, 0.5 / 333.87),
    ])
    func readsTheDie(chip: FakeI2CDev.Chip, driver: ChipABIHarness.Driver, raw: Int32, resolution: Double) async throws {
        let fake = try FakeI2CDev(.init(chip: chip, temperatureRaw: raw))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(driver, on: fake,
                                                   steps: ["probe", "start:100:2", "die-temperature", "stop"])
        #expect(outcome.status == 0, "\(outcome)")
        let celsius = try #require(number(outcome.step("die-temperature")?["celsius"]), "\(outcome)")
        #expect(abs(celsius - 40) <= resolution + 1e-9, "\(chip): \(celsius) °C")
    }

    @Test("the ADXL345 has no sensor: null, and no transfer asked for it")
    func adxl345IsNil() async throws {
        let fake = try FakeI2CDev(.init(chip: .adxl345))
        defer { fake.removeLog() }
        let outcome = try await ChipABIHarness.run(.adxl345, on: fake, steps: ["probe", "die-temperature"])
        #expect(outcome.status == 0, "\(outcome)")
        let step = try #require(outcome.step("die-temperature"), "\(outcome)")
        #expect(step["celsius"] is NSNull, "\(step)")
    }
}
