import Geometry
import Thermal

extension ADXL355 {
    /// The ADXL355, from the ADXL354/ADXL355 datasheet, Rev. D.
    ///
    /// - IDs: DEVID_AD 0xAD, DEVID_MST 0x1D, PARTID 0xED, read in that order (registers 0x00–0x02).
    /// - Rates: 4000 / 2^code Hz, FILTER codes 10…0 (3.906 to 4000 Hz). A sample set is 9 bytes,
    ///   81 SCL periods; with the addressing and FIFO_ENTRIES reads of a drain, Plumb keeps a bus
    ///   under half loaded: 100 kHz carries up to 500 Hz, 400 kHz up to 2000 Hz, and 4000 Hz needs
    ///   Fast-mode Plus (1 MHz).
    /// - Noise: 22.5 µg/√Hz typical on every axis at ±2.048 g (Rev. D's figure; 25 µg/√Hz at
    ///   ±8.192 g, and 25 in the datasheet's earlier revisions), over the noise bandwidth of
    ///   ``noiseBandwidthHz(rateHz:)``.
    /// - FIFO: 96 axis entries, 32 x/y/z sets.
    /// - Temperature: TEMP2/TEMP1, 12 bits, 1885 LSB at 25 °C, −9.05 LSB/°C.
    /// - Self-test (ST1 then ST2, the change per axis): X and Y +0.1…+0.6 g, Z +0.5…+3.0 g around
    ///   the typical 0.3, 0.3 and 1.5 g; the chip's internal regulators make it independent of the
    ///   supply from 2.25 to 3.6 V. (Not read from the PDF: the typical responses are Analog
    ///   Devices' EngineerZone answer, the limits those a published ADXL355 library prints; see
    ///   ``selfTestLimitsG``.)
    public static let description = ChipDescription(
        model: model, kind: "adxl355", aliases: [], addresses: addresses,
        identification: [
            IdentificationRegister(register: ADXL355Register.devidAD, name: "DEVID_AD", expected: [ADXL355Register.expectedDevidAD]),
            IdentificationRegister(register: ADXL355Register.devidMST, name: "DEVID_MST", expected: [ADXL355Register.expectedDevidMST]),
            IdentificationRegister(register: ADXL355Register.partID, name: "PARTID", expected: [ADXL355Register.expectedPartID]),
        ],
        rangesG: ADXL355Range.allCases.map(\.gravities), defaultRangeG: ADXL355Range.g2.gravities,
        rates: ADXL355Filter.codes.compactMap(ADXL355Filter.rateHz(code:)).map { hertz in
            ChipRate(hertz: hertz, minimumBusKHz: hertz <= 500 ? 100 : hertz <= 2000 ? 400 : 1000,
                     noiseBandwidthHz: noiseBandwidthHz(rateHz: hertz))
        },
        sampleBits: 20,
        noiseDensity: Vector3(x: noiseDensityG, y: noiseDensityG, z: noiseDensityG),
        fifoDepth: ADXL355Register.fifoSetCapacity,
        temperature: temperatureSensor,
        selfTest: SelfTestResponse(minimumG: selfTestLimitsG.minimum, maximumG: selfTestLimitsG.maximum, atSupplyVoltage: 3.3,
                                   supplyRange: supplyRange),
        drift: drift,
        // Zero-g offset ±25 mg; sensitivity ±1 % initially.
        zeroOffsetTypical: Vector3(x: 25, y: 25, z: 25) / 1000, sensitivityErrorTypical: 0.01,
        datasheet: "ADXL354/ADXL355 datasheet Rev. D")

    /// The zero-g offset's temperature drift: about ±0.02 mg/°C typical, ±0.15 mg/°C at most;
    /// sensitivity ±0.01 %/°C.
    public static let drift = DriftSpecification(
        offsetTypical: Vector3(x: 0.02, y: 0.02, z: 0.02) / 1000, offsetMaximum: Vector3(x: 0.15, y: 0.15, z: 0.15) / 1000,
        sensitivityTypical: 0.0001, source: "ADXL354/ADXL355 datasheet Rev. D, Table 1")

    /// 22.5 µg/√Hz, in g/√Hz: Rev. D's typical figure at ±2.048 g, the range Plumb samples at.
    public static let noiseDensityG = 22.5e-6

    /// The nominal temperature transfer function, and its noise: 0.15 °C rms. Rev. D gives no
    /// noise figure; 0.15 °C is Plumb's estimate, about 1.4 LSB of 0.11 °C, for a 12-bit reading
    /// whose last bit or two flicker at a steady temperature (quantization alone is 0.03 °C rms).
    public static let temperatureSensor = TemperatureSensor(
        register: ADXL355Register.temp2, byteCount: 2, lsbPerDegree: -9.05, offsetLSB: 1885, offsetDegrees: 25,
        temperatureNoiseCelsius: 0.15)

    /// The self-test change's limits per axis, in g.
    public static let selfTestLimitsG = (minimum: Vector3(x: 0.1, y: 0.1, z: 0.5), maximum: Vector3(x: 0.6, y: 0.6, z: 3.0))

    /// The bandwidth white noise is integrated over at `rateHz`: the low-pass corner (a quarter of
    /// the rate) times π/2, a single pole's equivalent noise bandwidth. The chip's digital filter
    /// is steeper, so this errs a little high.
    public static func noiseBandwidthHz(rateHz: Double) -> Double {
        ADXL355Filter.lowPassHz(rateHz: rateHz) * Double.pi / 2
    }
}
