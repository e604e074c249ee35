import Accelerometers
import I2C
@testable import PlumbCLI
import Geometry
import SimulatedADXL345
import SimulatedChips
import Testing

/// The chip `--sim-chip` and the `--sim-*` flags build, on a manual clock, with that chip's real
/// driver on top: what the flags ask for must show where a user would see it, through the
/// driver, on every simulated chip.
private struct FlaggedChip {
    let clock = ManualSimulationClock(startingAt: 1000)
    let options: SimulationOptions
    let driver: any Accelerometer

    init(_ kind: SimulatedChipKind, _ flags: [String]) throws {
        let parsed = try ParsedArguments(["--sim-chip", kind.rawValue] + flags, specs: SimulationOptions.specs)
        options = try #require(try SimulationOptions(parsed))
        let address = options.chip.addresses[0]
        let bus = options.makeChip(address: address, clock: clock)
        driver = switch kind {
        case .adxl345: ADXL345(bus: bus, address: address, clock: clock)
        case .adxl355: ADXL355(bus: bus, address: address, clock: clock)
        case .mpu6050: MPU6050(bus: bus, address: address, clock: clock)
        }
    }

    /// Starts the chip at about 100 Hz on its default range and drains it every 0.1 s for
    /// `seconds`.
    func samples(for seconds: Double = 2) throws -> [Vector3] {
        _ = try driver.start(SamplingRequest(rateHz: 100, rangeG: options.chip.defaultRangeG))
        clock.advance(by: 0.1)
        var warmUp: [Vector3] = []
        _ = try driver.drain(into: &warmUp)  // the first samples after start, before the grid settles
        var samples: [Vector3] = []
        for _ in 0..<Int((seconds / 0.1).rounded()) {
            clock.advance(by: 0.1)
            _ = try driver.drain(into: &samples)
        }
        return samples
    }

    func mean(for seconds: Double = 2) throws -> Vector3 {
        let samples = try samples(for: seconds)
        return samples.reduce(.zero, +) / Double(samples.count)
    }
}

private func rms(_ values: [Double]) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
}

/// The LSB of each chip at its default range, the one the tests read, in g: what quantization may
/// move a mean by.
private func resolution(_ kind: SimulatedChipKind) -> Double {
    let chip = kind.chipDescription
    return Double(2 * chip.defaultRangeG) / Double(1 << chip.sampleBits)
}

@Suite("--sim-chip: every --sim-* flag on every simulated chip, seen through its driver")
struct SimulationFlagTests {
    @Test(arguments: SimulatedChipKind.allCases)
    func theChosenChipIsTheOneItsDriverFinds(kind: SimulatedChipKind) throws {
        let chip = try FlaggedChip(kind, [])
        #expect(chip.options.chip.kind == kind.rawValue)
        #expect(try chip.driver.probe().model == chip.options.chip.model)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func aConnectionFaultMakesTheDriverThrowTheBusError(kind: SimulatedChipKind) throws {
        let nack = try FlaggedChip(kind, ["--sim-fault", "nack"])
        let refused = #expect(throws: SensorError.self) { _ = try nack.driver.probe() }
        #expect(refused?.description.contains("no device acknowledged") == true, "\(String(describing: refused))")
        let eio = try FlaggedChip(kind, ["--sim-fault", "eio"])
        #expect(throws: SensorError.self) { _ = try eio.driver.start(SamplingRequest(rateHz: 100, rangeG: 2)) }
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func anUnpluggedChipFailsWhileGoneAndComesBackPowerCycled(kind: SimulatedChipKind) throws {
        let chip = try FlaggedChip(kind, ["--sim-fault", "unplug:1:2"])
        _ = try chip.driver.start(SamplingRequest(rateHz: 100, rangeG: chip.options.chip.defaultRangeG))
        chip.clock.advance(by: 0.5)
        var samples: [Vector3] = []
        #expect(try chip.driver.drain(into: &samples).count > 0)
        chip.clock.advance(by: 1)
        #expect(throws: SensorError.self) { _ = try chip.driver.drain(into: &samples) }
        chip.clock.advance(by: 2)
        // Back, in standby as from power-on: it answers, and a restart samples again.
        _ = try chip.driver.probe()
        _ = try chip.driver.start(SamplingRequest(rateHz: 100, rangeG: chip.options.chip.defaultRangeG))
        chip.clock.advance(by: 0.5)
        samples.removeAll()
        #expect(try chip.driver.drain(into: &samples).count > 0)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func anOffsetAndAGainErrorShowInTheReading(kind: SimulatedChipKind) throws {
        let mean = try FlaggedChip(kind, ["--sim-offset-mg", "40,-30,20", "--sim-gain-error", "2", "--sim-noise-lsb", "0"])
            .mean()
        let tolerance = resolution(kind)
        #expect(abs(mean.x - 0.040) <= tolerance, "\(mean)")
        #expect(abs(mean.y + 0.030) <= tolerance, "\(mean)")
        #expect(abs(mean.z - (1.02 + 0.020)) <= tolerance, "\(mean)")
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func noiseIsTheChipsOwnUntilTheFlagSilencesIt(kind: SimulatedChipKind) throws {
        let noisy = try FlaggedChip(kind, []).samples()
        // The ADXL345's 0.75 LSB rms is below its own LSB: some of it is lost to quantization.
        #expect(rms(noisy.map(\.x)) > 0.3 * resolution(kind))
        let quiet = try FlaggedChip(kind, ["--sim-noise-lsb", "0"]).samples()
        #expect(rms(quiet.map(\.x)) == 0)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func machineVibrationShowsAsACContentOnItsAxis(kind: SimulatedChipKind) throws {
        // 10 mm/s RMS at 20 Hz is 0.128 g RMS, well below every chip's Nyquist frequency here.
        let samples = try FlaggedChip(kind, ["--sim-vibration", "z:10@20", "--sim-noise-lsb", "0"]).samples()
        let expected = 0.010 * 2 * Double.pi * 20 / VibrationTone.standardGravity
        #expect(abs(rms(samples.map(\.z)) - expected) < 0.1 * expected, "\(rms(samples.map(\.z)))")
        #expect(rms(samples.map(\.x)) < resolution(kind))
        let broadband = try FlaggedChip(kind, ["--sim-vibration-noise", "0.05", "--sim-noise-lsb", "0"]).samples()
        #expect(abs(rms(broadband.map(\.x)) - 0.05) < 0.01, "\(rms(broadband.map(\.x)))")
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func theMachineScheduleStopsTheVibration(kind: SimulatedChipKind) throws {
        // Running the first 1 s of every 3 from the chip's creation: quiet from 1 s to 3 s.
        let chip = try FlaggedChip(kind, ["--sim-vibration", "z:10@20", "--sim-machine", "1:2", "--sim-noise-lsb", "0"])
        let samples = try chip.samples(for: 1.8)
        let stopped = samples.suffix(50)
        #expect(rms(stopped.map(\.z)) < resolution(kind))
        #expect(rms(samples.prefix(50).map(\.z)) > 0.05)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func aStuckProofMassFailsTheDriversSelfTest(kind: SimulatedChipKind) throws {
        let healthy = try FlaggedChip(kind, [])
        #expect(try healthy.driver.selfTest(supplyVoltage: 3.3).passed)
        let stuck = try FlaggedChip(kind, ["--sim-fault", "stuck"])
        let report = try stuck.driver.selfTest(supplyVoltage: 3.3)
        #expect(!report.passed)
        #expect(report.axes.map(\.passed) == [true, true, false])
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func theChipSeedGivesADifferentButReproduciblePart(kind: SimulatedChipKind) throws {
        let quiet = ["--sim-noise-lsb", "0"]
        let ideal = try FlaggedChip(kind, quiet).mean()
        let first = try FlaggedChip(kind, ["--sim-chip-seed", "7"] + quiet).mean()
        let again = try FlaggedChip(kind, ["--sim-chip-seed", "7"] + quiet).mean()
        let other = try FlaggedChip(kind, ["--sim-chip-seed", "8"] + quiet).mean()
        #expect(first == again)
        // Typical offsets are tens of mg on every chip.
        #expect((first - other).magnitude > 0.002, "\(first) \(other)")
        #expect((first - ideal).magnitude > 0.002, "\(first) \(ideal)")
        // An explicit error flag replaces that part of the random chip.
        let offset = try FlaggedChip(kind, ["--sim-chip-seed", "7", "--sim-offset-mg", "0,0,0"] + quiet).mean()
        #expect(offset != first)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func theNoiseSeedRepeatsARun(kind: SimulatedChipKind) throws {
        let first = try FlaggedChip(kind, ["--sim-seed", "3"]).samples(for: 0.5)
        let again = try FlaggedChip(kind, ["--sim-seed", "3"]).samples(for: 0.5)
        let other = try FlaggedChip(kind, ["--sim-seed", "4"]).samples(for: 0.5)
        #expect(first == again)
        #expect(first != other)
    }

    @Test(arguments: SimulatedChipKind.allCases)
    func theSceneFlagsTiltEveryChip(kind: SimulatedChipKind) throws {
        let mean = try FlaggedChip(kind, ["--sim-roll", "3", "--sim-noise-lsb", "0"]).mean()
        let expected = Attitude.gravity(roll: Angle(degrees: 3), pitch: .zero)
        #expect((mean - expected).magnitude <= 2 * resolution(kind), "\(mean)")
    }

    @Test func theChipIsStrictAndNamesTheChoices() throws {
        let parsed = try ParsedArguments(["--sim-chip", "adxl999"], specs: SimulationOptions.specs)
        let error = #expect(throws: UsageError.self) { _ = try SimulationOptions(parsed) }
        #expect(error?.message == "--sim-chip takes one of adxl345, adxl355, mpu6050; got 'adxl999'.")
        let defaulted = try #require(try SimulationOptions(ParsedArguments(["--sim-roll", "1"], specs: SimulationOptions.specs)))
        #expect(defaulted.chip.kind == "adxl345")
        #expect(SimulationOptions().chip == ADXL345.description)
        let chosen = try #require(try SimulationOptions(ParsedArguments(["--sim-chip", "mpu6050"], specs: SimulationOptions.specs)))
        #expect(chosen.chip == MPU6050.description)
        #expect(chosen.firstFlagGiven == "--sim-chip")
    }
}
