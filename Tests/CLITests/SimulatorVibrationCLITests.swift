import Foundation
import Testing

/// `--sim-vibration`, `--sim-vibration-noise` and `--sim-machine` through the `plumb` binary: every
/// command that takes the simulated chip takes them, a mistake is a usage error that says what to
/// write, and the readings shake while the machine runs and are still once it stops.
@Suite("plumb CLI: the simulated machine vibration")
struct SimulatorVibrationCLITests {
    static let flags = ["--sim-vibration SPEC", "--sim-vibration-noise G", "--sim-machine ON:OFF"]

    @Test(arguments: ["read", "watch", "bubble", "rise", "shim", "calibrate", "selftest", "probe", "run"])
    func everyCommandOnTheSensorListsTheFlags(command: String) async throws {
        let outcome = try await PlumbProcess.run([command, "--help"])
        #expect(outcome.status == 0, "\(outcome)")
        for flag in Self.flags {
            #expect(outcome.stdout.contains(flag), "\(command) --help lacks \(flag)")
        }
    }

    @Test(arguments: [
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@50,"], "--sim-vibration: tone 2 is empty"),
        (["read", "--sensor", "sim", "--sim-vibration", "q:4.5@50"], "the axes are x, y and z"),
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@2000"], "at most 1600"),
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@50", "--sim-vibration-noise", "-1"],
         "--sim-vibration-noise takes g rms per axis, above 0"),
        (["read", "--sensor", "sim", "--sim-vibration-noise", "nan"], "--sim-vibration-noise"),
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@50", "--sim-machine", "30"], "e.g. 30:10"),
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@50", "--sim-machine", "0:10"], "each above 0"),
        (["read", "--sensor", "sim", "--sim-vibration", "z:4.5@50", "--sim-machine", "inf:10"], "--sim-machine takes ON:OFF"),
        (["read", "--sensor", "sim", "--sim-machine", "30:10"], "add --sim-vibration SPEC (e.g. z:4.5@50) or --sim-vibration-noise G"),
        (["read", "--sensor", "adxl345", "--sim-vibration", "z:4.5@50"], "--sensor sim"),
        (["watch", "--sensor", "sim", "--sim-vibration", "z"], "--sim-vibration"),
        (["calibrate", "six-point", "--sensor", "sim", "--sim-machine", "1:1"], "--sim-machine switches"),
        (["run", "--sensor", "sim", "--sim-machine", "1:1"], "--sim-machine switches"),
        (["run", "--sensor", "sim", "--sim-vibration", "x:1@120,x:1@120"], "repeats x at 120 Hz"),
    ] as [([String], String)])
    func aBadVibrationFlagIsAUsageError(arguments: [String], mentioned: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: mentioned)
    }

    /// `count` readings of one sample each at 100 Hz, noiseless, raw: their gravity x.
    static func readX(_ flags: [String], count: Int) async throws -> [Double] {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-noise-lsb", "0", "--rate", "100",
                                            "--average", "1", "--count", String(count), "--raw", "--json"] + flags)
        #expect(outcome.status == 0, "\(outcome)")
        return try outcome.jsonObjects().map { object in
            try #require((object["gravity"] as? [String: Double])?["x"])
        }
    }

    @Test func readingsShakeWithTheTonesAmplitude() async throws {
        // 40 mm/s RMS at 5 Hz: √2 · 0.04 · 2π · 5 / 9.80665 = 0.1812 g peak; 20 samples, a cycle.
        let peak = 2.0.squareRoot() * 0.04 * 2 * Double.pi * 5 / 9.80665
        let x = try await Self.readX(["--sim-vibration", "x:40@5"], count: 20)
        let largest = try #require(x.map(abs).max())
        #expect(largest > peak * 0.9 && largest < peak + 2.0 / 256, "\(largest) g against \(peak) g")
        #expect(x.contains { $0 > 0.1 } && x.contains { $0 < -0.1 })
    }

    @Test func broadbandNoiseAloneShakesTheReadings() async throws {
        let x = try await Self.readX(["--sim-vibration-noise", "0.05", "--sim-seed", "3"], count: 200)
        let rms = (x.map { $0 * $0 }.reduce(0, +) / Double(x.count)).squareRoot()
        // 200 samples: the RMS's standard error is 5 %.
        #expect(abs(rms - 0.05) < 0.01, "\(rms) g")
    }

    @Test func theMachineStopsAfterItsOnTime() async throws {
        // Running the first second from the chip's creation, then stopped for 100 s: readings
        // start within milliseconds, so the early ones shake and those after 2 s are still.
        let x = try await Self.readX(["--sim-vibration", "x:40@5", "--sim-machine", "1:100"], count: 300)
        #expect(x.prefix(50).contains { abs($0) > 0.05 }, "shaking while it runs")
        #expect(x.suffix(100).allSatisfy { $0 == 0 }, "still once it stopped")
    }

    @Test func theVibrationRidesOnAScript() async throws {
        // Facing +x (gravity along x), shaken along z: x stays 1 g, z shakes.
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-noise-lsb", "0", "--average", "1",
                                            "--count", "20", "--raw", "--json", "--sim-script", "face:+x 60s",
                                            "--sim-vibration", "z:40@5"])
        #expect(outcome.status == 0, "\(outcome)")
        let gravity = try outcome.jsonObjects().map { try #require($0["gravity"] as? [String: Double]) }
        #expect(gravity.allSatisfy { $0["x"] == 1 })
        #expect(gravity.contains { abs($0["z"] ?? 0) > 0.1 })
    }
}
