import Accelerometers
import I2C
@testable import PlumbCLI
import SimulatedADXL345
import SimulatedChips
import Testing

/// The words that name a temperature: `temp:` and the s/m/h durations in `--sim-script`, and the
/// `--sim-temperature` and `--sim-temperature-cycle` flags.
@Suite struct SimulatedTemperatureGrammarTests {
    @Test("temp: sets a step's target and durations take s, m and h")
    func temperatureWordsAndUnits() throws {
        let script = try AttitudeScript(parsing: "face:+z 90s, temp:35 2h, roll:1 10m, temp:-12.5 1.5m")
        #expect(script.steps.map(\.duration) == [90, 7200, 600, 90])
        #expect(script.steps.map(\.temperature) == [nil, 35, nil, -12.5])
        #expect(script.namesTemperature)
        #expect(try !AttitudeScript(parsing: "face:+z 24h").namesTemperature)
        #expect(AttitudeScript.seconds(parsing: "24h") == 86_400 && AttitudeScript.seconds(parsing: "3") == nil)
    }

    @Test(arguments: [
        ("temp:hot 3s", "step 1 has 'temp:hot'; give the die temperature in °C between -40 and 125, e.g. temp:35."),
        ("face:+z 3s, temp:200 3s", "step 2 has 'temp:200'; give the die temperature in °C between -40 and 125"),
        ("temp: 3s", "step 1 has 'temp:'; give the die temperature"),
        ("temp:30 temp:31 3s", "step 1 names temp: twice; give it once."),
        ("temp:30", "step 1 ends with 'temp:30' and no duration; end each step with one, e.g. 'temp:30 3s'."),
        ("face:+z 3d", "step 1 ends with '3d'; a duration is seconds with an s, or minutes or hours with m or h, e.g. 3s, 2.5s, 10m or 2h."),
        ("face:+z 25h", "step 1 lasts 25h; a step lasts more than 0.5 s (its move takes that) and at most a day (24h)."),
        ("face:+z 0.005m", "step 1 lasts 0.005m; a step lasts more than 0.5 s"),
        ("face:+z hh", "step 1 ends with 'hh'; a duration is seconds"),
        ("heat:30 3s", "step 1 has 'heat:30'; the words are face:F, roll:DEG, pitch:DEG, turn:DEG, surface:ROLL/PITCH and temp:CELSIUS."),
    ])
    func mistakesAreNamed(script: String, message: String) {
        do {
            _ = try AttitudeScript(parsing: script)
            Issue.record("'\(script)' parsed")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    private func options(_ flags: [String]) throws -> SimulationOptions? {
        try SimulationOptions(try ParsedArguments(flags, specs: SimulationOptions.specs))
    }

    @Test("--sim-temperature and --sim-temperature-cycle parse to the profile they say",
          arguments: [
              (["--sim-temperature", "35"], SimulationOptions.TemperatureFlag.constant(35)),
              (["--sim-temperature", "-40"], .constant(-40)),
              (["--sim-temperature-cycle", "22±8/24h"], .cycle(mean: 22, amplitude: 8, period: 86_400)),
              (["--sim-temperature-cycle", "22+-8/90m"], .cycle(mean: 22, amplitude: 8, period: 5400)),
              (["--sim-temperature-cycle", "-5.5±0/30s"], .cycle(mean: -5.5, amplitude: 0, period: 30)),
          ])
    func goodFlags(flags: [String], expected: SimulationOptions.TemperatureFlag) throws {
        #expect(try options(flags)?.temperature == expected)
    }

    @Test("a cycle starts at its minimum when the chip is built")
    func cycleStartsNow() throws {
        let parsed = try #require(try options(["--sim-temperature-cycle", "22±8/24h"]))
        let request = parsed.request(address: I2CAddress(0x53)!, now: 500)
        #expect(request.temperature == .cycle(mean: 22, amplitude: 8, period: 86_400, start: 500))
        #expect(request.temperature?.celsius(at: 500) == 14)
    }

    @Test("bad temperature flags say what to type",
          arguments: [
              (["--sim-temperature", "warm"], "--sim-temperature takes a temperature in °C, e.g. 35; 'warm' is not one."),
              (["--sim-temperature", "200"], "--sim-temperature must be between -40 and 125; got 200."),
              (["--sim-temperature", "30", "--sim-temperature-cycle", "22±8/24h"],
               "--sim-temperature and --sim-temperature-cycle exclude each other: give a constant (e.g. --sim-temperature 35) or a cycle (e.g. --sim-temperature-cycle 22±8/24h)."),
              (["--sim-temperature-cycle", "22±8"],
               "--sim-temperature-cycle takes MEAN±AMP/PERIOD: a mean and an amplitude in °C and a period with s, m or h, e.g. 22±8/24h or 22+-8/24h; got '22±8'."),
              (["--sim-temperature-cycle", "22/24h"], "--sim-temperature-cycle takes MEAN±AMP/PERIOD"),
              (["--sim-temperature-cycle", "22±-3/24h"], "--sim-temperature-cycle takes MEAN±AMP/PERIOD"),
              (["--sim-temperature-cycle", "22±8±1/24h"], "--sim-temperature-cycle takes MEAN±AMP/PERIOD"),
              (["--sim-temperature-cycle", "22±8/24"],
               "--sim-temperature-cycle takes MEAN±AMP/PERIOD: a mean and an amplitude in °C and a period with s, m or h, e.g. 22±8/24h or 22+-8/24h; the period '24' needs a unit: s, m or h, e.g. 24h."),
              (["--sim-temperature-cycle", "100±30/24h"],
               "--sim-temperature-cycle swings from 70 to 130 °C; keep it within -40 to 125 °C."),
              (["--sim-temperature-cycle", "22±8/0.5s"],
               "--sim-temperature-cycle's period must be 1 s to a week (168h); got '0.5s'."),
              (["--sim-temperature-cycle", "22±8/200h"],
               "--sim-temperature-cycle's period must be 1 s to a week (168h); got '200h'."),
          ])
    func badFlags(flags: [String], message: String) throws {
        let error = #expect(throws: UsageError.self) { _ = try options(flags) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "none")")
    }

    @Test("--sim-temperature reaches the sensor through each chip's real driver; the ADXL345 has none",
          arguments: SimulatedChipKind.allCases)
    func flagReachesDriver(kind: SimulatedChipKind) throws {
        let clock = ManualSimulationClock(startingAt: 1000)
        let parsed = try #require(try options(["--sim-chip", kind.rawValue, "--sim-temperature", "47"]))
        let address = parsed.chip.addresses[0]
        let bus = parsed.makeChip(address: address, clock: clock)
        let driver: any Accelerometer = switch kind {
        case .adxl345: ADXL345(bus: bus, address: address, clock: clock)
        case .adxl355: ADXL355(bus: bus, address: address, clock: clock)
        case .mpu6050: MPU6050(bus: bus, address: address, clock: clock)
        }
        _ = try driver.start(SamplingRequest(rateHz: 100, rangeG: parsed.chip.defaultRangeG))
        clock.advance(by: 0.1)
        let celsius = try driver.dieTemperature()
        if kind == .adxl345 {
            #expect(celsius == nil)
        } else {
            // The ideal part reads exactly, within the register's resolution (the ADXL355's 0.11 °C).
            #expect(abs(try #require(celsius) - 47) < 0.06, "\(kind): \(String(describing: celsius))")
        }
        #expect((bus as? any SceneControls)?.dieTemperature == 47)
    }
}
