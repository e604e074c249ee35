import Geometry
import Thermal

extension ADXL345 {
    /// The ADXL345 (and the register-compatible ADXL343), from its datasheet, Rev. G.
    ///
    /// - Rates: 3200 / 2^(15 − code) Hz, codes 6…15 (6.25 to 3200 Hz). I²C carries up to 200 Hz
    ///   at 100 kHz and 800 Hz at 400 kHz; 1600 and 3200 Hz only over SPI.
    /// - Noise: 0.75 LSB rms on X/Y and 1.1 LSB on Z at 3.9 mg/LSB for rates up to 100 Hz, whose
    ///   noise bandwidth is half the rate: the densities below reproduce that at 50 Hz.
    /// - FIFO: 32 entries (33 readable with the output registers).
    /// - Self-test at 2.5 V, ±16 g full resolution, in LSB of 3.9 mg: X +50…+540, Y −540…−50,
    ///   Z +75…+875.
    public static let description = ChipDescription(
        model: model, kind: "adxl345", aliases: ["adxl343"], addresses: addresses,
        identification: [IdentificationRegister(register: ADXL345Register.devid, name: "DEVID",
                                                expected: [ADXL345Register.expectedDeviceID])],
        rangesG: [2, 4, 8, 16], defaultRangeG: 16,
        rates: OutputDataRate.supported.map { rate in
            ChipRate(hertz: rate.hertz, minimumBusKHz: rate <= OutputDataRate.maxSustainedAt100kHz ? 100
                     : rate <= OutputDataRate.maxSustainedAt400kHz ? 400 : nil,
                     noiseBandwidthHz: ADXL345Noise.noiseBandwidthHz(odrHz: rate.hertz))
        },
        sampleBits: 13,
        noiseDensity: Vector3(x: 0.75, y: 0.75, z: 1.1) * (ADXL345Noise.gPerLSB / (50.0).squareRoot()),
        fifoDepth: 32, temperature: nil,
        selfTest: SelfTestResponse(minimumG: Vector3(x: 50, y: -540, z: 75) * ADXL345Noise.gPerLSB,
                                   maximumG: Vector3(x: 540, y: -50, z: 875) * ADXL345Noise.gPerLSB,
                                   atSupplyVoltage: 2.5, supplyRange: ADXL345SelfTestLimits.supplyRange),
        drift: drift,
        // Zero-g offset X/Y ±35 mg, Z ±40 mg; sensitivity ±1 %, and X/Y about 3.5 % higher at 3.3 V.
        zeroOffsetTypical: Vector3(x: 35, y: 35, z: 40) / 1000, sensitivityErrorTypical: 0.045,
        datasheet: "ADXL345 datasheet Rev. G", straps: ["SDO to GND", "SDO to 3V3"])

    /// The zero-g offset's temperature drift: typically ±0.4 mg/°C on X and Y and ±1.2 mg/°C on
    /// Z, up to ±0.8 mg/°C on X and Y; sensitivity ±0.01 %/°C.
    public static let drift = DriftSpecification(
        offsetTypical: Vector3(x: 0.4, y: 0.4, z: 1.2) / 1000, offsetMaximum: Vector3(x: 0.8, y: 0.8, z: 1.2) / 1000,
        sensitivityTypical: 0.0001, source: "ADXL345 datasheet Rev. G, Table 1")
}
