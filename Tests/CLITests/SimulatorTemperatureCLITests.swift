import Foundation
import Testing

/// `--sim-temperature`, `--sim-temperature-cycle` and the script's `temp:` through the `plumb`
/// binary: the commands on the sensor list them, a mistake is a usage error that says what to
/// write, and a typical part's reading moves when it is warmed.
@Suite("plumb CLI: the simulated temperature")
struct SimulatorTemperatureCLITests {
    @Test(arguments: ["read", "calibrate", "run"])
    func theCommandsListTheFlags(command: String) async throws {
        let outcome = try await PlumbProcess.run([command, "--help"])
        #expect(outcome.status == 0, "\(outcome)")
        for flag in ["--sim-temperature C", "--sim-temperature-cycle MEAN±AMP/PERIOD", "temp:C"] {
            #expect(outcome.stdout.contains(flag), "\(command) --help lacks \(flag)")
        }
    }

    @Test(arguments: [
        (["read", "--sensor", "sim", "--sim-temperature", "hot"], "--sim-temperature takes a temperature in °C, e.g. 35"),
        (["read", "--sensor", "sim", "--sim-temperature-cycle", "22±8/24"], "needs a unit: s, m or h, e.g. 24h"),
        (["read", "--sensor", "sim", "--sim-script", "temp:300 1h"], "give the die temperature in °C between -40 and 125"),
        (["read", "--sensor", "adxl345", "--sim-temperature", "30"], "--sensor sim"),
    ] as [([String], String)])
    func aBadTemperatureFlagIsAUsageError(arguments: [String], mentioned: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: mentioned)
    }

    /// The mean raw gravity z of a noiseless typical ADXL345 (chip seed 5) at `flags`.
    private func meanZ(_ flags: [String]) async throws -> Double {
        let outcome = try await PlumbProcess.run(["read", "--sensor", "sim", "--sim-chip-seed", "5", "--sim-noise-lsb", "0",
                                                  "--rate", "100", "--average", "1", "--count", "5", "--raw", "--json"]
                                                 + flags)
        #expect(outcome.status == 0, "\(outcome)")
        let z = try outcome.jsonObjects().map { object in try #require((object["gravity"] as? [String: Double])?["z"]) }
        return z.reduce(0, +) / Double(z.count)
    }

    @Test func aWarmTypicalPartReadsOtherwise() async throws {
        let reference = try await meanZ([])
        let warm = try await meanZ(["--sim-temperature", "85"])
        // Seed 5's Z drift times 60 °C is tens of mg on the ADXL345 (±1.2 mg/°C typical): well
        // above its 3.9 mg LSB.
        #expect(abs(warm - reference) > 2.0 / 256, "\(reference) g at 25 °C, \(warm) g at 85 °C")
    }
}
