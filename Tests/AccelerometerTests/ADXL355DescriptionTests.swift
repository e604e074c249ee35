import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedADXL355
import Testing

@Suite("ADXL355 description and simulator model, against the datasheet's figures")
struct ADXL355DescriptionTests {
    @Test("the description holds the ADXL355's datasheet figures")
    func description() {
        let chip = ADXL355.description
        #expect(chip.model == "ADXL355" && chip.kind == "adxl355" && chip.aliases.isEmpty)
        #expect(chip.addresses == [I2CAddress(0x1D)!, I2CAddress(0x53)!] && chip.addresses.first == ADXL355.defaultAddress)
        #expect(chip.identification.map(\.register) == [0x00, 0x01, 0x02])
        #expect(chip.identification.map(\.name) == ["DEVID_AD", "DEVID_MST", "PARTID"])
        #expect(chip.identification.map(\.expected) == [[0xAD], [0x1D], [0xED]])
        #expect(chip.rangesG == [2, 4, 8] && chip.defaultRangeG == 2)
        #expect(chip.rates.count == 11 && chip.rates == chip.rates.sorted())
        #expect(chip.rates.first?.hertz == 3.90625 && chip.rates.last?.hertz == 4000)
        #expect(chip.rates.map(\.hertz).contains(62.5) && chip.rates.map(\.hertz).contains(125))
        // 9 bytes a set, 81 SCL periods; a bus kept under half load.
        #expect(chip.rates.first { $0.hertz == 500 }?.minimumBusKHz == 100)
        #expect(chip.rates.first { $0.hertz == 1000 }?.minimumBusKHz == 400)
        #expect(chip.rates.first { $0.hertz == 2000 }?.minimumBusKHz == 400)
        #expect(chip.rates.first { $0.hertz == 4000 }?.minimumBusKHz == 1000)
        #expect(chip.sampleBits == 20 && chip.fifoDepth == 32)
        #expect(chip.noiseDensity == Vector3(x: 22.5e-6, y: 22.5e-6, z: 22.5e-6))
        let temperature = chip.temperature
        #expect(temperature?.register == 0x06 && temperature?.byteCount == 2)
        #expect(temperature?.celsius(raw: 1885) == 25)
        #expect(abs((temperature?.celsius(raw: 1885 - 9.05) ?? 0) - 26) < 1e-9)
        #expect(chip.selfTest?.minimumG == Vector3(x: 0.1, y: 0.1, z: 0.5))
        #expect(chip.selfTest?.maximumG == Vector3(x: 0.6, y: 0.6, z: 3.0))
        #expect(chip.datasheet.contains("ADXL355") && chip.datasheet.contains("Rev. D"))
    }

    @Test("the ranges' scales are 256 000, 128 000 and 64 000 LSB/g, full scale 2¹⁹ LSB")
    func scales() {
        #expect(ADXL355Range.allCases.map(\.countsPerG) == [256_000, 128_000, 64_000])
        #expect(ADXL355Range.allCases.map(\.fullScaleG) == [2.048, 4.096, 8.192])
        #expect(abs(1e6 / ADXL355Range.g2.countsPerG - 3.9) < 0.01)
        #expect(abs(1e6 / ADXL355Range.g8.countsPerG - 15.6) < 0.03)
    }

    @Test("FILTER's codes 0…10 run from 4000 Hz down to 3.906 Hz; the rest are reserved")
    func filterCodes() {
        #expect(ADXL355Filter.rateHz(code: 0) == 4000 && ADXL355Filter.rateHz(code: 10) == 3.90625)
        #expect(ADXL355Filter.rateHz(code: 11) == nil)
        #expect(ADXL355.rateCode(nearest: 100) == 5 && ADXL355.rateCode(nearest: 1e6) == 0)
    }

    @Test("the simulated noise is the datasheet's density over the bandwidth the rate sets",
          arguments: [125.0, 1000])
    func noise(rate: Double) throws {
        let rig = Rig355()
        _ = try rig.driver.start(SamplingRequest(rateHz: rate, rangeG: 2))
        let (samples, _) = try rig.collect(for: 4000 / rate, every: 16 / rate)
        let expected = ADXL355.description.expectedRMS(bandwidthHz: ADXL355.noiseBandwidthHz(rateHz: rate))
        let mean = samples.reduce(Vector3.zero, +) / Double(samples.count)
        let variance = samples.reduce(Vector3.zero) { sum, sample in
            let d = sample - mean
            return sum + Vector3(x: d.x * d.x, y: d.y * d.y, z: d.z * d.z)
        } / Double(samples.count - 1)
        #expect(samples.count >= 3900)
        for (sigma, wanted) in [(variance.x, expected.x), (variance.y, expected.y), (variance.z, expected.z)] {
            #expect(abs(sigma.squareRoot() / wanted - 1) < 0.05, "σ \(sigma.squareRoot()) for \(wanted)")
        }
    }

    @Test("a random typical part is repeatable, within the datasheet's typical errors, and reads through them")
    func typicalPart() throws {
        let part = SimulatedADXL355.Configuration.randomTypicalPart(seed: 7)
        let again = SimulatedADXL355.Configuration.randomTypicalPart(seed: 7)
        let other = SimulatedADXL355.Configuration.randomTypicalPart(seed: 8)
        #expect(part.offset == again.offset && part.gain == again.gain && part.seed == again.seed)
        #expect(part.offset != other.offset)
        let bound = SimulatedADXL355.Configuration.TypicalErrors.self
        #expect([part.offset.x, part.offset.y, part.offset.z].allSatisfy { abs($0) <= bound.offsetG })
        #expect([part.gain.x, part.gain.y, part.gain.z].allSatisfy { abs($0) <= bound.gain })
        #expect([part.offsetDrift.x, part.offsetDrift.y, part.offsetDrift.z].allSatisfy { abs($0) <= bound.offsetDriftGPerDegree })
        #expect(part.offsetDrift != .zero)
        for i in 0..<3 {
            for j in 0..<3 where i != j { #expect(abs(part.crossAxis[i, j]) <= bound.crossAxis) }
        }
        var noiseless = part
        noiseless.noiseDensity = .zero
        let rig = Rig355(noiseless)
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        let (samples, _) = try rig.collect(for: 0.2)
        let expected = part.sensitivity * Vector3(x: 0, y: 0, z: 1) + part.offset
        #expect(samples.allSatisfy { ($0 - expected).magnitude < 1e-5 })
    }

    @Test("the simulated offset drifts with the temperature set, from 25 °C")
    func offsetDrift() throws {
        let drift = Vector3(x: 0.02e-3, y: -0.02e-3, z: 0.01e-3)
        let rig = Rig355(.init(noiseDensity: .zero, offsetDrift: drift))
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        let (cool, _) = try rig.collect(for: 0.2)
        rig.chip.setTemperature(65)
        let (warm, _) = try rig.collect(for: 0.2)
        #expect(((cool.last ?? .zero) - Vector3(x: 0, y: 0, z: 1)).magnitude < 1e-5)
        #expect(((warm.last ?? .zero) - Vector3(x: 0, y: 0, z: 1) - drift * 40).magnitude < 1e-5)
    }

    @Test("the simulated chip ignores FILTER written while measuring, and counts it")
    func filterNeedsStandby() throws {
        let rig = Rig355()
        let bus = rig.chip, address = rig.chip.address
        try bus.writeRegister(at: address, ADXL355Register.powerCtl, value: 0)
        try bus.writeRegister(at: address, ADXL355Register.filter, value: 5)
        #expect(bus.peek(ADXL355Register.filter) == 0 && bus.statistics.configurationWritesWhileMeasuring == 1)
        try bus.writeRegister(at: address, ADXL355Register.powerCtl, value: ADXL355PowerCtl.standby)
        try bus.writeRegister(at: address, ADXL355Register.filter, value: 5)
        #expect(bus.peek(ADXL355Register.filter) == 5)
    }

    @Test("the chip NACKs while unplugged, and the driver says so as a bus error")
    func unplugged() throws {
        let rig = Rig355()
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        rig.chip.setUnplugged(true)
        var samples: [Vector3] = []
        #expect {
            _ = try rig.driver.drain(into: &samples)
        } throws: { error in
            (error as? SensorError)?.busError?.code == .noAcknowledge
        }
        rig.chip.setUnplugged(false)
        rig.clock.advance(by: 0.1)
        #expect(try rig.driver.drain(into: &samples).count > 0)
    }

    @Test("an attitude script turns the simulated chip as it turns the ADXL345's")
    func attitudeScript() throws {
        let rig = Rig355(.init(noiseDensity: .zero))
        _ = try rig.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        let tilted = SimulatedPose(roll: Angle(degrees: 20))
        rig.chip.run(AttitudeScript(steps: [.init(pose: .level, duration: 1), .init(pose: tilted, duration: 2)])!)
        let (samples, _) = try rig.collect(for: 3)
        #expect((samples[10] - Vector3(x: 0, y: 0, z: 1)).magnitude < 1e-5)
        #expect((samples[samples.count - 1] - tilted.gravity).magnitude < 1e-5)
    }
}
