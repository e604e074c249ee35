import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedADXL355
import SimulatedChips
import SimulatedMPU6050
import Testing
import Thermal

/// The die temperature as the simulators model it: the profile over time, a script's ramps, the
/// drift it drives through each chip's real driver, the datasheet draws, and the sensors.
@Suite struct SimulatedTemperatureTests {
    // MARK: The profile

    @Test("a cycle is at its minimum at its start, its mean a quarter on, its maximum half way")
    func cycle() {
        let cycle = SimulatedTemperature.cycle(mean: 22, amplitude: 8, period: 86_400, start: 1000)
        #expect(abs(cycle.celsius(at: 1000) - 14) < 1e-9)
        #expect(abs(cycle.celsius(at: 1000 + 21_600) - 22) < 1e-9)
        #expect(abs(cycle.celsius(at: 1000 + 43_200) - 30) < 1e-9)
        #expect(abs(cycle.celsius(at: 1000 + 86_400 * 365) - 14) < 1e-6, "a year of uptime keeps the phase")
        #expect(SimulatedTemperature.cycle(mean: 22, amplitude: 8, period: 0).celsius(at: 5) == 22)
        #expect(SimulatedTemperature.constant(31).celsius(at: -4) == 31)
    }

    @Test("temp: ramps from the configured temperature over its step, holds, ramps again, and holds after the script")
    func scriptRamps() throws {
        let script = try AttitudeScript(parsing: "face:+z 10s, temp:35 20s, face:-z 10s, temp:30 1h")
        let profile = SimulatedTemperature.scripted(script, start: 100, base: .constant(25))
        #expect(profile.celsius(at: 50) == 25, "before the script")
        #expect(profile.celsius(at: 105) == 25, "before the first temp: step")
        #expect(abs(profile.celsius(at: 120) - 30) < 1e-9, "half way up the first ramp")
        #expect(profile.celsius(at: 130) == 35)
        #expect(profile.celsius(at: 135) == 35, "held through a step without temp:")
        #expect(abs(profile.celsius(at: 140 + 1800) - 32.5) < 1e-9, "half way down the second ramp")
        #expect(profile.celsius(at: 140 + 3600) == 30)
        #expect(profile.celsius(at: 1e7) == 30, "the last value held after the script")
    }

    @Test("a script's first ramp starts from where the configured cycle is when the step begins")
    func rampFromCycle() throws {
        let script = try AttitudeScript(parsing: "face:+z 10s, temp:40 10s")
        let base = SimulatedTemperature.cycle(mean: 20, amplitude: 5, period: 40, start: 0)
        let profile = SimulatedTemperature.scripted(script, start: 0, base: base)
        #expect(abs(profile.celsius(at: 5) - base.celsius(at: 5)) < 1e-9, "the cycle runs until then")
        // At 10 s the cycle is at its mean, 20 °C; half way up to 40 is 30.
        #expect(abs(profile.celsius(at: 15) - 30) < 1e-9)
        #expect(profile.celsius(at: 100) == 40)
    }

    @Test("a script without temp: leaves the configured temperature in force")
    func scriptWithoutTemperature() throws {
        let chip = SimulatedADXL345(clock: ManualSimulationClock(startingAt: 10))
        chip.setTemperature(31)
        chip.run(try AttitudeScript(parsing: "face:+z 2s, face:-z 2s"))
        #expect(chip.dieTemperature == 31)
        chip.setTemperature(12)
        #expect(chip.dieTemperature(at: 13) == 12)
    }

    @Test("every simulator reports the die temperature its profile gives, at any time")
    func accessors() throws {
        let clock = ManualSimulationClock(startingAt: 0)
        let cycle = SimulatedTemperature.cycle(mean: 22, amplitude: 8, period: 3600)
        for kind in SimulatedChipKind.allCases {
            let chip = kind.make(SimulatedPartRequest(address: kind.chipDescription.addresses[0], temperature: cycle),
                                 clock: clock)
            #expect(chip.dieTemperature(at: 1800) == cycle.celsius(at: 1800), "\(kind)")
            chip.run(try AttitudeScript(parsing: "temp:50 100s"))
            #expect(abs(chip.dieTemperature(at: 50) - (14 + 50) / 2) < 1e-9, "\(kind): half way from 14 °C to 50")
        }
    }

    // MARK: Drift through the real drivers

    /// A noiseless random typical part of `kind` on `clock`, its configuration's drift, and its
    /// real driver.
    private func typicalPart(_ kind: SimulatedChipKind, seed: UInt64, clock: ManualSimulationClock)
        -> (chip: any SceneControls, driver: any Accelerometer, offsetDrift: Vector3, sensitivityDrift: Vector3,
            sensitivity: Matrix3) {
        switch kind {
        case .adxl345:
            var part = SimulatedADXL345.Configuration.randomTypicalPart(seed: seed)
            part.noiseXY = 0
            part.noiseZ = 0
            let chip = SimulatedADXL345(configuration: part, clock: clock)
            return (chip, ADXL345(bus: chip, clock: clock), part.offsetDrift, part.sensitivityDrift, part.sensitivity)
        case .adxl355:
            var part = SimulatedADXL355.Configuration.randomTypicalPart(seed: seed)
            part.noiseDensity = .zero
            let chip = SimulatedADXL355(configuration: part, clock: clock)
            return (chip, ADXL355(bus: chip, clock: clock), part.offsetDrift, part.sensitivityDrift, part.sensitivity)
        case .mpu6050:
            var part = SimulatedMPU6050.Configuration.randomTypicalPart(seed: seed)
            part.noiseDensity = 0
            let chip = SimulatedMPU6050(configuration: part, clock: clock)
            return (chip, MPU6050(bus: chip, clock: clock), part.offsetDrift, part.sensitivityDrift, part.sensitivity)
        }
    }

    private func mean(_ driver: any Accelerometer, _ clock: ManualSimulationClock) throws -> Vector3 {
        var warmUp: [Vector3] = []
        clock.advance(by: 0.1)
        _ = try driver.drain(into: &warmUp)
        var samples: [Vector3] = []
        for _ in 0..<5 {
            clock.advance(by: 0.1)
            _ = try driver.drain(into: &samples)
        }
        return samples.reduce(.zero, +) / Double(samples.count)
    }

    @Test("a typical part's output moves by its coefficients × ΔT: offset drift plus sensitivity drift on what it senses",
          arguments: SimulatedChipKind.allCases)
    func driftThroughDriver(kind: SimulatedChipKind) throws {
        let clock = ManualSimulationClock(startingAt: 100)
        let rig = typicalPart(kind, seed: 11, clock: clock)
        let description = kind.chipDescription
        _ = try rig.driver.start(SamplingRequest(rateHz: 100, rangeG: description.defaultRangeG))
        let atReference = try mean(rig.driver, clock)
        rig.chip.setTemperature(65)
        let warm = try mean(rig.driver, clock)
        let sensed = rig.sensitivity * Vector3(x: 0, y: 0, z: 1)
        let expected = Vector3(x: rig.sensitivityDrift.x * sensed.x, y: rig.sensitivityDrift.y * sensed.y,
                               z: rig.sensitivityDrift.z * sensed.z) * 40 + rig.offsetDrift * 40
        // One LSB: each mean is of one constant reading, rounded.
        let lsb = Double(2 * description.defaultRangeG) / Double(1 << description.sampleBits)
        let change = warm - atReference
        for (got, want) in [(change.x, expected.x), (change.y, expected.y), (change.z, expected.z)] {
            #expect(abs(got - want) <= lsb + 1e-9, "\(kind): changed \(change), expected \(expected)")
        }
        #expect(expected.magnitude > 2 * lsb, "\(kind): the drift is large enough to see")
    }

    @Test("an ideal part does not drift")
    func idealPartsDoNotDrift() throws {
        let clock = ManualSimulationClock(startingAt: 0)
        let chip = SimulatedADXL345(configuration: .init(noiseXY: 0), clock: clock)
        let driver = ADXL345(bus: chip, clock: clock)
        _ = try driver.start(SamplingRequest(rateHz: 100, rangeG: 16))
        let cool = try mean(driver, clock)
        chip.setTemperature(85)
        #expect(try mean(driver, clock) == cool)
    }

    @Test("random parts draw their coefficients within the datasheet's typical drift, different per seed",
          arguments: SimulatedChipKind.allCases)
    func drawsWithinBounds(kind: SimulatedChipKind) {
        let drift = kind.chipDescription.drift
        var seen: Set<[Double]> = []
        for seed in UInt64(1)...200 {
            let clock = ManualSimulationClock(startingAt: 0)
            let part = typicalPart(kind, seed: seed, clock: clock)
            let o = part.offsetDrift, s = part.sensitivityDrift
            #expect(abs(o.x) <= drift.offsetTypical.x && abs(o.y) <= drift.offsetTypical.y
                && abs(o.z) <= drift.offsetTypical.z, "\(kind) seed \(seed): \(o)")
            #expect([s.x, s.y, s.z].allSatisfy { abs($0) <= drift.sensitivityTypical }, "\(kind) seed \(seed): \(s)")
            seen.insert([o.x, o.y, o.z, s.x, s.y, s.z])
        }
        #expect(seen.count == 200, "every seed a different part")
    }

    @Test("drawing drift left the other errors and the noise seed of an existing seed as they were")
    func drawsKeepOtherErrors() {
        // The drift comes from a stream of its own: a part's other draws do not depend on it.
        let part = SimulatedADXL345.Configuration.randomTypicalPart(seed: 42)
        var zeroed = part
        zeroed.offsetDrift = .zero
        zeroed.sensitivityDrift = .zero
        let drawn = RandomDrift.draw(seed: 42, offsetBound: ADXL345.drift.offsetTypical,
                                     sensitivityBound: ADXL345.drift.sensitivityTypical)
        #expect(part.offsetDrift == drawn.offset && part.sensitivityDrift == drawn.sensitivity)
        // The ADXL355 still burns its three former drift draws, so its noise seed follows them.
        let a = SimulatedADXL355.Configuration.randomTypicalPart(seed: 42)
        #expect(a.offsetDrift == RandomDrift.draw(seed: 42, offsetBound: ADXL355.drift.offsetTypical,
                                                  sensitivityBound: ADXL355.drift.sensitivityTypical).offset)
    }

    // MARK: The sensors

    private func readings(_ read: () throws -> Double?, clock: ManualSimulationClock, count: Int = 400) throws -> [Double] {
        var values: [Double] = []
        for _ in 0..<count {
            clock.advance(by: 0.01)
            values.append(try #require(try read()))
        }
        return values
    }

    private func meanAndRMS(_ values: [Double]) -> (mean: Double, rms: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        return (mean, (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
    }

    @Test("the ADXL355's TEMP2/TEMP1 read the die temperature with the sensor's noise, repeatably")
    func adxl355Sensor() throws {
        let clock = ManualSimulationClock(startingAt: 0)
        let chip = SimulatedADXL355(configuration: .randomTypicalPart(seed: 3), clock: clock)
        let driver = ADXL355(bus: chip, clock: clock)
        _ = try driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        chip.setTemperature(41)
        let values = try readings(driver.dieTemperature, clock: clock)
        let (mean, rms) = meanAndRMS(values)
        let sigma = ADXL355.temperatureSensor.temperatureNoiseCelsius
        #expect(abs(mean - 41) < 0.05, "\(mean)")
        #expect(rms > sigma * 0.8 && rms < sigma * 1.2, "\(rms) against \(sigma)")
        let again = SimulatedADXL355(configuration: .randomTypicalPart(seed: 3), clock: ManualSimulationClock(startingAt: 0))
        let first = try again.readRegisters(at: again.address, from: ADXL355Register.temp2, count: 2)
        let other = SimulatedADXL355(configuration: .randomTypicalPart(seed: 3), clock: ManualSimulationClock(startingAt: 0))
        #expect(try other.readRegisters(at: other.address, from: ADXL355Register.temp2, count: 2) == first,
                "the same seed reads the same noise")
    }

    @Test("the MPU's TEMP_OUT reads the die temperature with the sensor's noise on each variant",
          arguments: MPU6050Variant.allCases)
    func mpuSensor(variant: MPU6050Variant) throws {
        let clock = ManualSimulationClock(startingAt: 0)
        let chip = SimulatedMPU6050(configuration: .randomTypicalPart(seed: 5, variant: variant), clock: clock)
        let driver = MPU6050(bus: chip, clock: clock)
        _ = try driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        chip.setTemperature(-5)
        let values = try readings(driver.dieTemperature, clock: clock)
        let (mean, rms) = meanAndRMS(values)
        let sigma = variant.temperature.temperatureNoiseCelsius
        #expect(abs(mean + 5) < 0.03, "\(variant): \(mean)")
        #expect(rms > sigma * 0.8 && rms < sigma * 1.2, "\(variant): \(rms) against \(sigma)")
    }

    @Test("the ADXL345 has no sensor: dieTemperature() is nil, though its simulator knows the temperature")
    func adxl345HasNoSensor() throws {
        let clock = ManualSimulationClock(startingAt: 0)
        let chip = SimulatedADXL345(clock: clock)
        let driver = ADXL345(bus: chip, clock: clock)
        chip.setTemperature(40)
        #expect(try driver.dieTemperature() == nil)
        #expect(chip.dieTemperature == 40)
    }
}
