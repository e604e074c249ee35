import Accelerometers
import Geometry
import I2C
import SimulatedMPU6050
import Testing

@Suite("MPU-6050 family description, pinned against the datasheets")
struct MPU6050DescriptionTests {
    @Test func identificationAddressesRangesAndBits() {
        let chip = MPU6050.description
        #expect(chip.model == "MPU-6050" && chip.kind == "mpu6050" && chip.aliases == ["mpu6500", "mpu9250"])
        #expect(chip.addresses == [I2CAddress(0x68)!, I2CAddress(0x69)!])
        #expect(chip.addressList == "0x68 (AD0 to GND) or 0x69 (AD0 to 3V3)")
        let id = chip.identification
        #expect(id.count == 1 && id[0].register == 0x75 && id[0].name == "WHO_AM_I")
        #expect(id[0].expected == [0x68, 0x70, 0x71])
        #expect(Set(id[0].clones) == [0x73, 0x74, 0x75, 0x78, 0x98])
        #expect(chip.rangesG == [2, 4, 8, 16] && chip.defaultRangeG == 2)
        #expect(chip.sampleBits == 16)
        #expect(MPU6050Range.allCases.map(\.countsPerG) == [16384, 8192, 4096, 2048])
    }

    @Test func ratesAreOneKilohertzOverTheDividerWithTheirBus() {
        let chip = MPU6050.description
        #expect(chip.rates.first?.hertz == 4 && chip.rates.last?.hertz == 1000 && chip.rates == chip.rates.sorted())
        for rate in chip.rates {
            let divider = MPU6050Configuration.divider(forRate: rate.hertz)
            #expect(1000 / (1 + Double(divider)) == rate.hertz, "\(rate.hertz) Hz is a whole divider")
        }
        #expect(chip.rates.first { $0.hertz == 500 }?.minimumBusKHz == 100)
        #expect(chip.rates.first { $0.hertz == 1000 }?.minimumBusKHz == 400)
        #expect(chip.nearestRate(to: 110)?.hertz == 100)
    }

    @Test(arguments: [(MPU6050Variant.mpu6050, 400e-6, 170, 36.53), (.mpu6500, 300e-6, 85, 21), (.mpu9250, 300e-6, 85, 21)]
          as [(MPU6050Variant, Double, Int, Double)])
    func perVariantNoiseFIFOAndTemperature(variant: MPU6050Variant, density: Double, fifo: Int, tempAtZero: Double) throws {
        let chip = MPU6050.description(for: variant)
        #expect(chip.model == variant.rawValue)
        #expect(chip.noiseDensity == Vector3(x: density, y: density, z: density))
        #expect(chip.fifoDepth == fifo)
        let sensor = try #require(chip.temperature)
        #expect(sensor.register == 0x41 && sensor.byteCount == 2)
        #expect(sensor.celsius(raw: 0) == tempAtZero)
        #expect(sensor.lsbPerDegree == (variant == .mpu6050 ? 340 : 333.87))
        // The simulator draws its noise from the same figure.
        #expect(SimulatedMPU6050.Configuration(variant: variant).effectiveNoiseDensity == density)
    }

    @Test func selfTestWindows() throws {
        let mpu6050 = try #require(MPU6050.description(for: .mpu6050).selfTest)
        #expect(abs(mpu6050.minimumG.x - 0.34 * 0.86) < 1e-9 && abs(mpu6050.maximumG.z - 0.92 * 1.14) < 1e-9)
        let mpu6500 = try #require(MPU6050.description(for: .mpu6500).selfTest)
        #expect(mpu6500.minimumG.y == 0.225 && mpu6500.maximumG.y == 0.675)
    }

    @Test func typicalErrorsAreTheDatasheetsAndRandomPartsStayWithinThem() {
        let mpu6050 = SimulatedMPU6050.Configuration.TypicalErrors.of(.mpu6050)
        #expect(mpu6050.offsetMilliG == Vector3(x: 50, y: 50, z: 80) && mpu6050.gain == 0.03 && mpu6050.crossAxis == 0.02)
        let mpu9250 = SimulatedMPU6050.Configuration.TypicalErrors.of(.mpu9250)
        #expect(mpu9250.offsetMilliG == Vector3(x: 60, y: 60, z: 80))
        var offsets: Set<Double> = []
        for seed in UInt64(1)...20 {
            let part = SimulatedMPU6050.Configuration.randomTypicalPart(seed: seed)
            #expect(abs(part.offset.x) <= 50 && abs(part.offset.z) <= 80 && abs(part.gain.y) <= 0.03)
            #expect(abs(part.crossAxis[0, 1]) <= 0.02 && part.crossAxis[1, 1] == 0)
            offsets.insert(part.offset.x)
        }
        #expect(offsets.count == 20, "every seed is another part")
    }
}
