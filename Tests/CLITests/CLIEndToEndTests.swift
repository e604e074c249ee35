import BrokerHarness
import Foundation
import Testing

/// `plumb` run as a subprocess on the simulated sensor: its output, its JSON, its exit status.
@Suite("plumb CLI end to end")
struct CLIEndToEndTests {
    @Test func versionPrintsTheVersion() async throws {
        let outcome = try await PlumbProcess.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("plumb 0."))
    }

    @Test func probeScanListsTheSimulatedChip() async throws {
        let outcome = try await PlumbProcess.run(["probe", "--sensor", "sim", "--scan"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("1 supported chip") && outcome.stdout.contains("0x53  ADXL345  DEVID 0xE5"), "\(outcome)")
        let address = try await PlumbProcess.run(["probe", "--sensor", "sim", "--scan", "--address", "0x1D"])
        #expect(address.status == 2 && address.stderr.contains("leave --address out"), "\(address)")
    }

    @Test func readJSONHasTheContractKeysAndTheSceneAngles() async throws {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "3", "--sim-pitch", "-1.5",
                                            "--average", "50", "--count", "2", "--raw", "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        let objects = try outcome.jsonObjects()
        #expect(objects.count == 2)
        for object in objects {
            #expect(Set(object.keys) == ["roll", "pitch", "tilt", "unit", "level", "stable", "gravity", "temperature",
                                         "uncertainty", "roll_deg", "pitch_deg", "tilt_deg", "uncertainty_deg", "calibration", "source", "chip"])
            #expect(object["temperature"] is NSNull, "the ADXL345 has no sensor")
            #expect((object["uncertainty"] as? Double ?? 0) > 1, "uncalibrated: the datasheet's ±35 mg zero-g offset")
            #expect(object["chip"] as? String == "ADXL345")
            #expect(object["source"] as? String == "chip", "the simulated chip is the command's own")
            #expect(object["calibration"] is NSNull, "--raw applies none")
            let roll = try #require(object["roll"] as? Double)
            let pitch = try #require(object["pitch"] as? Double)
            let tilt = try #require(object["tilt"] as? Double)
            #expect(abs(roll - 3) < 0.05)
            #expect(abs(pitch + 1.5) < 0.05)
            #expect(tilt > 3 && tilt < 3.5)
            #expect(object["unit"] as? String == "deg")
            #expect(object["level"] as? Bool == false)
            #expect(object["stable"] as? Bool == true, "the simulated chip sits still")
            let gravity = try #require(object["gravity"] as? [String: Double])
            #expect(Set(gravity.keys) == ["x", "y", "z"])
            let magnitude = (gravity.values.map { $0 * $0 }.reduce(0, +)).squareRoot()
            #expect(abs(magnitude - 1) < 0.01)
        }
    }

    @Test(arguments: [("percent", 100.0), ("mm_per_m", 1000.0), ("in_per_ft", 12.0)])
    func readInSlopeUnits(unit: String, factor: Double) async throws {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "2", "--sim-noise-lsb", "0",
                                            "--average", "5", "--unit", unit, "--json"])
        let object = try #require(try outcome.jsonObjects().first)
        #expect(object["unit"] as? String == unit)
        let roll = try #require(object["roll"] as? Double)
        let expected = tan(2 * Double.pi / 180) * factor
        // One LSB of quantization is about 0.22° at this attitude's gravity split.
        #expect(abs(roll - expected) < expected * 0.03, "\(roll) vs \(expected)")
    }

    @Test func levelFollowsTheToleranceInAnyUnit() async throws {
        let inside = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "0.05", "--tolerance", "1.5 mm/m", "--json"])
        #expect(try inside.jsonObjects().first?["level"] as? Bool == true, "\(inside)")
        let outside = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "0.5", "--tolerance", "0.2", "--json"])
        #expect(try outside.jsonObjects().first?["level"] as? Bool == false)
    }

    @Test func uprightMountReadsTheSlopeAlongTheBar() async throws {
        // A bar level on a vertical face: the device's y is up; a 1° slope along x shows as pitch.
        // Device roll −90° puts +y up; the scene's pitch then tilts x.
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "90", "--sim-pitch", "1",
                                            "--sim-noise-lsb", "0", "--average", "5", "--mount", "upright", "--json"])
        let object = try #require(try outcome.jsonObjects().first, "\(outcome)")
        let pitch = try #require(object["pitch"] as? Double)
        let tilt = try #require(object["tilt"] as? Double)
        #expect(abs(pitch - 1) < 0.3, "\(object)")
        #expect(tilt < 1.3)
    }

    @Test func upsideDownSlopeIsNullNotAFakeNumber() async throws {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "180", "--sim-noise-lsb", "0",
                                            "--average", "3", "--unit", "percent", "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first)
        #expect(object["tilt"] is NSNull)
        let degrees = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-roll", "180", "--sim-noise-lsb", "0",
                                            "--average", "3", "--json"])
        let tilt = try #require(try degrees.jsonObjects().first?["tilt"] as? Double)
        #expect(abs(tilt - 180) < 0.01)
    }

    @Test func selfTestPassesOnAHealthyChipAndFailsOnAStuckOne() async throws {
        let healthy = try await PlumbProcess.run(["selftest", "--sensor", "sim", "--json"])
        #expect(healthy.status == 0, "\(healthy)")
        let report = try #require(try healthy.jsonObjects().first)
        #expect(report["passed"] as? Bool == true)
        #expect((report["axes"] as? [[String: Any]])?.count == 3)
        let stuck = try await PlumbProcess.run(["selftest", "--sensor", "sim", "--sim-fault", "stuck"])
        #expect(stuck.status == 1)
        #expect(stuck.stdout.contains("FAIL"))
    }

    @Test func simChipADXL345IsTheDefaultChipNamedExplicitly() async throws {
        let outcome = try await PlumbProcess.run(["probe", "--sensor", "sim", "--sim-chip", "adxl345", "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first)
        #expect(object["device_id"] as? String == "0xE5")
    }

    @Test func theSimChipFlagIsInTheHelp() async throws {
        let outcome = try await PlumbProcess.run(["read", "--help"])
        #expect(outcome.stdout.contains("--sim-chip KIND"), "\(outcome)")
        #expect(outcome.stdout.contains("adxl355"), "\(outcome)")
    }

    @Test func probeOnTheSimulatedChip() async throws {
        let outcome = try await PlumbProcess.run(["probe", "--sensor", "sim", "--json"])
        #expect(outcome.status == 0, "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first)
        #expect(object["device_id"] as? String == "0xE5")
        #expect(object["transfer"] as? String == "simulated")
    }

    @Test func aSensorFaultIsAClearErrorAndExitOne() async throws {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-fault", "nack"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no device acknowledged"))
        #expect(outcome.stderr.contains("0x53"))
    }

    @Test(arguments: [
        (["read", "--rate", "150", "--sensor", "sim"], "--rate"),
        (["read", "--unit", "furlongs", "--sensor", "sim"], "--unit"),
        (["read", "--tolerance", "abc", "--sensor", "sim"], "--tolerance"),
        (["read", "--count", "0", "--sensor", "sim"], "--count"),
        (["read", "--count", "2", "--watch", "--sensor", "sim"], "--watch"),
        (["read", "--sim-roll", "3"], "--sensor sim"),
        (["read", "--sensor", "sim", "--bus", "/dev/i2c-1"], "--bus"),
        (["read", "--sensor", "sim", "--sim-roll", "400"], "--sim-roll"),
        (["read", "--sensor", "sim", "--sim-offset-mg", "1,2"], "--sim-offset-mg"),
        (["read", "--sensor", "sim", "--sim-fault", "meteor"], "--sim-fault"),
        (["read", "--sensor", "sim", "--sim-fault", "flap:1:3"], "DOWN above 0 and below PERIOD"),
        (["read", "--sensor", "sim", "--sim-fault", "flap:3"], "flap:PERIOD:DOWN"),
        (["read", "--sensor", "sim", "--sim-chip", "adxl999"], "--sim-chip takes one of adxl345, adxl355, mpu6050"),
        (["read", "--sensor", "sim", "--sim-chip", "ADXL355"], "--sim-chip takes one of adxl345, adxl355, mpu6050"),
        (["read", "--sim-chip", "adxl355"], "--sim-chip applies to the simulated chip only; add --sensor sim"),
        (["read", "--mount", "x,x,z", "--sensor", "sim"], "--mount"),
        (["read", "--address", "0x99"], "--address"),
        (["read", "--bogus"], "--bogus"),
        (["read", "--rate"], "--rate"),
        (["selftest", "--supply", "5", "--sensor", "sim"], "--supply"),
        (["probe", "extra"], "extra"),
        (["frobnicate"], "frobnicate"),
    ] as [([String], String)])
    func badArgumentsPrintUsageAndExitTwo(arguments: [String], mentioned: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: mentioned)
    }

    @Test(arguments: ["probe", "read", "selftest", "watch"])
    func everySubcommandHasHelp(command: String) async throws {
        let outcome = try await PlumbProcess.run([command, "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("Usage: plumb \(command)"))
        #expect(outcome.stdout.contains("--sensor"))
    }

    @Test func watchStreamsUntilInterruptedAndExitsCleanly() async throws {
        let (process, out) = try PlumbProcess.start(["read", "--sensor", "sim", "--average", "10", "--watch", "--json"])
        // 10 samples at 100 Hz: about ten readings a second.
        try await Task.sleep(for: .milliseconds(1500))
        kill(process.processIdentifier, SIGINT)
        let received = await offThePool {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let lines = received.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count >= 5, "\(lines.count) readings in 1.5 s")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line))) != nil)
        }
    }
}
