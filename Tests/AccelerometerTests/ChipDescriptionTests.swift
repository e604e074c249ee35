import Accelerometers
import PlumbDomain
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
