import Accelerometers
import Geometry
import I2C
import Level
import Testing

@Suite("Chip descriptions: the facts above the driver")
struct ChipDescriptionTests {
    @Test("The ADXL345's description matches its driver and its datasheet's figures")
    func adxl345() {
        let chip = ADXL345.description
        #expect(chip.model == ADXL345.model && chip.kind == "adxl345" && chip.aliases == ["adxl343"])
        #expect(chip.addresses == ADXL345.addresses && chip.addresses.first == ADXL345.defaultAddress)
        #expect(chip.identification.first?.expected == [0xE5])
        #expect(chip.rangesG == [2, 4, 8, 16] && chip.rangesG.contains(chip.defaultRangeG))
        #expect(chip.rates.first?.hertz == 6.25 && chip.rates.last?.hertz == 3200 && chip.rates == chip.rates.sorted())
        #expect(chip.rates.first { $0.hertz == 200 }?.minimumBusKHz == 100)
        #expect(chip.rates.first { $0.hertz == 800 }?.minimumBusKHz == 400)
        #expect(chip.rates.first { $0.hertz == 1600 }?.minimumBusKHz == nil)
        // The noise model the pipeline uses today, at 100 Hz (a 50 Hz noise bandwidth).
        let rms = chip.expectedRMS(bandwidthHz: 50)
        let today = ADXL345Noise.expectedRMS(odrHz: 100)
        #expect(abs(rms.x - today.x) < 1e-12 && abs(rms.z - today.z) < 1e-12)
    }

    @Test("ADXL345 noise: 0.75 / 0.75 / 1.1 LSB at 1/256 g up to 100 Hz, √2 more per doubling above")
    func adxl345Noise() {
        let sigma100 = ADXL345Noise.expectedRMS(odrHz: 100)
        #expect(abs(sigma100.x - 0.75 / 256) < 1e-18 && abs(sigma100.z - 1.1 / 256) < 1e-18)
        #expect(ADXL345Noise.expectedRMS(odrHz: 12.5) == sigma100)
        #expect(ADXL345Noise.expectedRMS(odrHz: 0.1) == sigma100)
        #expect(abs(ADXL345Noise.expectedRMS(odrHz: 800).x - sigma100.x * 8.0.squareRoot()) < 1e-15)
        #expect(ADXL345Noise.expectedRMS(odrHz: 10_000) == ADXL345Noise.expectedRMS(odrHz: 3200))
        #expect(ADXL345Noise.expectedRMS(odrHz: .nan) == ADXL345Noise.expectedRMS(odrHz: 3200))
        #expect(ADXL345Noise.expectedRMS(odrHz: -5) == sigma100)
        #expect(ADXL345Noise.odrHz(rateCode: 10) == 100 && ADXL345Noise.odrHz(rateCode: 0) == 3200.0 / 32768)
        #expect(ADXL345Noise.odrHz(rateCode: 16) == nil && ADXL345Noise.odrHz(rateCode: -1) == nil)
        // What everything above the driver asks: the description at every rate I²C carries
        // reproduces the driver's figures exactly.
        for rate in ADXL345.description.rates {
            let asked = ADXL345.description.expectedRMS(rateHz: rate.hertz)
            let figure = ADXL345Noise.expectedRMS(odrHz: rate.hertz)
            #expect(abs(asked.x - figure.x) < 1e-12 && abs(asked.z - figure.z) < 1e-12, "at \(rate.hertz) Hz")
        }
        #expect(ADXL345.description.expectedRMS(rateHz: .nan) == ADXL345.description.expectedRMS(rateHz: 3200))
    }

    @Test("Each chip's noise at a rate follows its density over that rate's bandwidth; the operating point takes the nearest rate")
    func noisePerChip() {
        for chip in ChipCatalog.all {
            for rate in chip.rates {
                let rms = chip.expectedRMS(rateHz: rate.hertz)
                #expect(abs(rms.x - chip.noiseDensity.x * rate.noiseBandwidthHz.squareRoot()) < 1e-15, "\(chip.model) at \(rate.hertz)")
                #expect(rate.noiseBandwidthHz > 0 && rate.noiseBandwidthHz <= max(rate.hertz, 100) / 2 * 1.6,
                        "\(chip.model) at \(rate.hertz)")
            }
        }
        // The ADXL355 asked for 100 Hz runs at 125 Hz, its noise over 125/4 Hz × π/2.
        let point = ADXL355.description.operatingPoint(rateHz: 100)
        #expect(point.rateHz == 125)
        #expect(abs(point.expectedNoise.x - ADXL355.description.noiseDensity.x * (125.0 / 4 * Double.pi / 2).squareRoot()) < 1e-15)
        // A precise chip expects less noise than the ADXL345 at the same rate: `stable` is stricter.
        #expect(ADXL355.description.expectedRMS(rateHz: 100).x < ADXL345.description.expectedRMS(rateHz: 100).x / 10)
        // The MPU-6050 at 100 Hz sets the 44 Hz filter, whose bandwidth its noise fills.
        let mpu = MPU6050.description.rates.first { $0.hertz == 100 }
        #expect(mpu?.noiseBandwidthHz == MPU6050LowPass.forRate(100, on: .mpu6050).bandwidthHz(on: .mpu6050))
    }

    @Test("sensor.kind names: auto, every chip's kind and aliases, sim; nothing else")
    func sensorKinds() {
        #expect(SensorKind.names == ["auto", "adxl345", "adxl343", "adxl355", "mpu6050", "mpu6500", "mpu9250", "sim"])
        #expect(SensorKind(name: "adxl343") == .chip(ADXL345.description))
        #expect(SensorKind(name: "mpu9250")?.chip?.kind == "mpu6050")
        #expect(SensorKind(name: "auto") == .auto && SensorKind(name: "sim") == .sim)
        #expect(SensorKind(name: "lis3dh") == nil && SensorKind(name: "ADXL345") == nil)
        for name in SensorKind.names { #expect(SensorKind(name: name)?.name == (ChipCatalog.chip(named: name)?.kind ?? name)) }
    }

    @Test("The catalog builds each chip's own driver, at its default address unless told")
    func catalogDrivers() {
        let bus = NoBus()
        for chip in ChipCatalog.all {
            let driver = ChipCatalog.driver(for: chip, bus: bus)
            #expect(type(of: driver).description.kind == chip.kind && driver.address == chip.addresses[0])
        }
        #expect(ChipCatalog.driver(for: MPU6050.description, bus: bus, address: I2CAddress(0x69)!).address == I2CAddress(0x69)!)
    }

    @Test("sample_rate_hz maps to the nearest rate offered, ties to the faster")
    func nearestRate() {
        let chip = ADXL345.description
        #expect(chip.nearestRate(to: 100)?.hertz == 100)
        #expect(chip.nearestRate(to: 120)?.hertz == 100)
        #expect(chip.nearestRate(to: 150)?.hertz == 200)
        #expect(chip.nearestRate(to: 1)?.hertz == 6.25)
        #expect(chip.nearestRate(to: 1e6)?.hertz == 3200)
    }
}
