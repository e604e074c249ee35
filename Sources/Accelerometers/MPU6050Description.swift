import Geometry
import Thermal
import I2C

extension MPU6050 {
    /// The rates offered for continuous sampling, 1 kHz / (1 + SMPLRT_DIV) at the dividers that
    /// give whole rates people ask for. ``start(_:)`` takes any rate and sets the nearest divider.
    public static let offeredRatesHz: [Double] = [4, 5, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000]

    /// The MPU-6050's description (``description(for:)`` gives each variant's): the driver answers
    /// for the whole family, and a probe tells which one is on the bus.
    public static let description: ChipDescription = MPU6050.description(for: .mpu6050)

    /// One variant's facts.
    ///
    /// - Addresses 0x68 (AD0 low) and 0x69; WHO_AM_I (0x75) 0x68, 0x70, 0x71, clones
    ///   ``MPU6050Identification/clones``.
    /// - Ranges ±2/±4/±8/±16 g at 16384/8192/4096/2048 LSB/g, 16-bit; Plumb's default ±2 g, where a
    ///   level's 1 g has the finest LSB (61 µg) and still 1 g of headroom.
    /// - Rates 1 kHz / (1 + SMPLRT_DIV) with the DLPF on, 4…1000 Hz (PS-MPU-6000A §6.2 "4 to
    ///   1,000 Hz"). The bus estimate is Plumb's: a sample is 6 FIFO bytes plus a share of the
    ///   drain's FIFO_COUNT read, about 60 bits of SCL a sample; 500 Hz takes about a third of a
    ///   100 kHz bus, 1000 Hz two thirds, so 1000 Hz asks for 400 kHz.
    /// - Noise density 400 µg/√Hz on the MPU-6050 (PS-MPU-6000A Rev. 3.4 §6.2, at 10 Hz, ±2 g,
    ///   1 kHz), 300 µg/√Hz on the MPU-6500/9250 (PS-MPU-9250A Rev. 1.0 Table 2; PS-MPU-6500A
    ///   Rev. 1.1 was not read here, its figure is taken as the MPU-9250's, which embeds it); the
    ///   same on every axis, as the datasheets give one figure.
    /// - FIFO 1024 bytes (170 samples) on the MPU-6050, 512 (85) on the MPU-6500/9250.
    /// - Self-test: the response window any factory trim allows, in g: MPU-6050 FT(1) × 0.86 …
    ///   FT(31) × 1.14 at 4096 LSB/g (0.29…1.05 g); MPU-6500/9250 225…675 mg (AN-MPU-6500A-02).
    ///   The driver judges each part against its own trim (``selfTest(supplyVoltage:)``).
    public static func description(for variant: MPU6050Variant) -> ChipDescription {
        let clones = MPU6050Identification.clones.map(\.whoAmI)
        let selfTest: SelfTestResponse
        if variant.hasMPU6500RegisterMap {
            let window = MPU6050SelfTestLimits.mpu6500AbsoluteG
            selfTest = SelfTestResponse(minimumG: Vector3(x: 1, y: 1, z: 1) * window.lowerBound,
                                        maximumG: Vector3(x: 1, y: 1, z: 1) * window.upperBound, atSupplyVoltage: 2.5,
                                        supplyRange: variant == .mpu9250 ? 2.4...3.6 : 1.71...3.6)
        } else {
            let window = MPU6050SelfTestLimits.limits(code: 0, variant: .mpu6050)
            selfTest = SelfTestResponse(minimumG: Vector3(x: 1, y: 1, z: 1) * (window.minimum / 4096),
                                        maximumG: Vector3(x: 1, y: 1, z: 1) * (window.maximum / 4096), atSupplyVoltage: 3.3,
                                        supplyRange: 2.375...3.46)
        }
        let density = (variant.hasMPU6500RegisterMap ? 300e-6 : 400e-6)
        return ChipDescription(
            model: variant.rawValue, kind: "mpu6050", aliases: ["mpu6500", "mpu9250"], addresses: addresses,
            identification: [IdentificationRegister(register: MPU6050Register.whoAmI, name: "WHO_AM_I",
                                                    expected: MPU6050Variant.allCases.map(\.whoAmI), clones: clones)],
            rangesG: [2, 4, 8, 16], defaultRangeG: 2,
            rates: offeredRatesHz.map { hertz in
                // The filter ``start(_:)`` sets for the rate, whose −3 dB bandwidth the noise
                // fills (as ``bandwidthHz`` says).
                ChipRate(hertz: hertz, minimumBusKHz: hertz <= 500 ? 100 : 400,
                         noiseBandwidthHz: MPU6050LowPass.forRate(hertz, on: variant).bandwidthHz(on: variant))
            },
            sampleBits: 16,
            noiseDensity: Vector3(x: density, y: density, z: density),
            fifoDepth: variant.fifoSamples, temperature: variant.temperature, selfTest: selfTest,
            // ±35 mg on X/Y and ±60 mg on Z over 0…70 °C, as mg/°C; sensitivity ±0.02 %/°C.
            drift: DriftSpecification(offsetTypical: Vector3(x: 35, y: 35, z: 60) / 70_000, sensitivityTypical: 0.0002,
                                      source: "MPU-6000/MPU-6050 Product Specification Rev. 3.4, Table 6.2"),
            // Zero-g initial tolerance X/Y ±50 mg, Z ±80 mg; sensitivity ±3 % initially.
            zeroOffsetTypical: Vector3(x: 50, y: 50, z: 80) / 1000, sensitivityErrorTypical: 0.03,
            datasheet: variant.hasMPU6500RegisterMap
                ? (variant == .mpu9250 ? "MPU-9250 Product Specification Rev. 1.0, Register Map Rev. 1.6"
                    : "MPU-6500 Product Specification Rev. 1.1, Register Map Rev. 2.1")
                : "MPU-6000/MPU-6050 Product Specification Rev. 3.4, Register Map Rev. 4.2",
            straps: ["AD0 to GND", "AD0 to 3V3"])
    }
}
