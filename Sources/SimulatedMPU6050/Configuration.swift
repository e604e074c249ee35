import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Thermal

extension SimulatedMPU6050 {
    /// One simulated part: which variant it is (and what its WHO_AM_I says), what it senses, and
    /// how imperfect it is.
    ///
    /// The defaults are an ideal MPU-6050 with the datasheet's noise, level and still, at 0x68,
    /// at 25 °C. Opt into errors with ``offset``, ``gain``, ``crossAxis``,
    /// ``typicalPart(variant:scene:seed:)`` or ``randomTypicalPart(seed:variant:scene:)``.
    public struct Configuration: Sendable {
        /// The register map and the figures the part follows.
        public var variant: MPU6050Variant
        /// What WHO_AM_I reads; nil for the variant's own value. Set it to play a clone (0x98 on an
        /// MPU-6050 map) or a chip of another family.
        public var whoAmI: UInt8?
        /// 0x68 (AD0 low) by default.
        public var address: I2CAddress
        /// What the chip senses; change it at run time with ``SimulatedMPU6050/setScene(_:)``.
        public var scene: SimulatedScene
        /// The vibration of the machine the chip is mounted on, on top of the scene (the ADXL345
        /// simulator's model, ``MachineVibration``); nil (default) for none. Its tones' phases and
        /// noise come from ``seed``; change it at run time with ``SimulatedMPU6050/setVibration(_:)``.
        public var vibration: MachineVibration?
        /// Noise density in g/√Hz on every axis; nil for the datasheet's (400 µg/√Hz on the
        /// MPU-6050, 300 on the MPU-6500/9250). 0 makes the chip noiseless.
        public var noiseDensity: Double?
        /// Zero-g offset per axis, mg, added to the output.
        public var offset: Vector3
        /// Sensitivity error per axis, fraction: output = true × (1 + gain).
        public var gain: Vector3
        /// Cross-axis sensitivity, fractions; element (i, j) is how much of axis j shows on axis i.
        /// The diagonal is ignored.
        public var crossAxis: Matrix3
        /// Nonlinearity per axis as a fraction of the configured range's full scale, a cubic
        /// (``CubicNonlinearity``): `n` of full scale at full scale. Default zero.
        public var nonlinearity: Vector3
        /// The die temperature over time; 25 °C by default. Change it at run time with
        /// ``SimulatedMPU6050/setTemperature(_:)``.
        public var temperature: SimulatedTemperature
        /// How the zero-g offset moves with temperature, g/°C per axis, from 25 °C
        /// (``SimulatedPartConfiguration/offsetDrift``; note ``offset`` itself is in mg). Default zero.
        public var offsetDrift: Vector3
        /// How sensitivity moves with temperature, a fraction per °C per axis, from 25 °C. Default zero.
        public var sensitivityDrift: Vector3
        /// TEMP_OUT's noise, °C rms, each conversion drawn afresh (seeded from ``seed``). 0 (the
        /// ideal part's default) converts exactly; a random typical part has the variant's
        /// ``TemperatureSensor/temperatureNoiseCelsius``.
        public var temperatureNoiseCelsius: Double
        /// The factory self-test codes X, Y, Z: 5-bit on the MPU-6050, 8-bit on the MPU-6500/9250;
        /// nil for a typical part's.
        public var selfTestCodes: [UInt8]?
        /// How far the part's self-test response is from its factory value, per axis, fraction;
        /// 0 answers exactly the factory value. −1 is a stuck proof mass.
        public var selfTestError: Vector3
        /// Seed of the noise, the chip's and the machine's, and of the machine's tone phases.
        public var seed: UInt64
        /// What is wrong with the connection (``SimulatedFault``, shared with the other
        /// simulators); change it at run time with ``SimulatedMPU6050/setFault(_:)``.
        public var fault: SimulatedFault

        public init(
            variant: MPU6050Variant = .mpu6050,
            whoAmI: UInt8? = nil,
            address: I2CAddress = I2CAddress(0x68)!,
            scene: SimulatedScene = .level,
            vibration: MachineVibration? = nil,
            noiseDensity: Double? = nil,
            offset: Vector3 = .zero,
            gain: Vector3 = .zero,
            crossAxis: Matrix3 = .zero,
            nonlinearity: Vector3 = .zero,
            temperature: Double = SimulatedTemperature.reference,
            offsetDrift: Vector3 = .zero,
            sensitivityDrift: Vector3 = .zero,
            temperatureNoiseCelsius: Double = 0,
            selfTestCodes: [UInt8]? = nil,
            selfTestError: Vector3 = .zero,
            seed: UInt64 = 0x5EED_0605_0000_0001,
            fault: SimulatedFault = .none
        ) {
            self.vibration = vibration
            self.nonlinearity = nonlinearity
            self.fault = fault
            self.variant = variant
            self.whoAmI = whoAmI
            self.address = address
            self.scene = scene
            self.noiseDensity = noiseDensity
            self.offset = offset
            self.gain = gain
            self.crossAxis = crossAxis
            self.temperature = .constant(temperature)
            self.offsetDrift = offsetDrift
            self.sensitivityDrift = sensitivityDrift
            self.temperatureNoiseCelsius = temperatureNoiseCelsius
            self.selfTestCodes = selfTestCodes
            self.selfTestError = selfTestError
            self.seed = seed
        }

        /// The datasheet's typical magnitudes for a variant, each the bound a part is drawn within.
        public struct TypicalErrors: Sendable, Hashable {
            /// Zero-g initial tolerance, mg: MPU-6050 X/Y ±50, Z ±80 (PS-MPU-6000A Rev. 3.4 §6.2);
            /// MPU-6500/9250 X/Y ±60, Z ±80 (PS-MPU-9250A Rev. 1.0 Table 2; the MPU-6500's taken as
            /// the MPU-9250's, which embeds it).
            public var offsetMilliG: Vector3
            /// Sensitivity initial tolerance, fraction: ±3 % on all three.
            public var gain: Double
            /// Cross-axis sensitivity, fraction: ±2 % on all three.
            public var crossAxis: Double
            /// Noise density, g/√Hz: 400 µg/√Hz and 300 µg/√Hz.
            public var noiseDensity: Double

            public static func of(_ variant: MPU6050Variant) -> Self {
                variant.hasMPU6500RegisterMap
                    ? Self(offsetMilliG: Vector3(x: 60, y: 60, z: 80), gain: 0.03, crossAxis: 0.02, noiseDensity: 300e-6)
                    : Self(offsetMilliG: Vector3(x: 50, y: 50, z: 80), gain: 0.03, crossAxis: 0.02, noiseDensity: 400e-6)
            }
        }

        /// A part at the typical bounds: offsets (+X, −Y, +Z) at the tolerance and gains
        /// (+3 %, −3 %, +1.5 %).
        public static func typicalPart(variant: MPU6050Variant = .mpu6050, scene: SimulatedScene = .level,
                                       seed: UInt64 = 0x5EED_0605_0000_0001) -> Self {
            let bounds = TypicalErrors.of(variant)
            return Self(variant: variant, scene: scene,
                        offset: Vector3(x: bounds.offsetMilliG.x, y: -bounds.offsetMilliG.y, z: bounds.offsetMilliG.z),
                        gain: Vector3(x: bounds.gain, y: -bounds.gain, z: bounds.gain / 2), seed: seed)
        }

        /// A part drawn uniformly within the typical bounds: a different part for every `seed`,
        /// the same part for the same seed (noise seed included). Its temperature coefficients come
        /// from the datasheet's typical drift (``MPU6050``'s ``ChipDescription/drift``: offset X/Y
        /// ±0.5, Z ±0.86 mg/°C, sensitivity ±0.02 %/°C) on a stream of their own (``RandomDrift``),
        /// and TEMP_OUT has the variant's noise.
        public static func randomTypicalPart(seed: UInt64, variant: MPU6050Variant = .mpu6050,
                                             scene: SimulatedScene = .level) -> Self {
            var generator = SplitMix64(seed: seed ^ 0x6050_C0DE_0000_0019)
            func uniform(_ bound: Double) -> Double { (2 * generator.nextUnit() - 1) * bound }
            let bounds = TypicalErrors.of(variant)
            let offset = Vector3(x: uniform(bounds.offsetMilliG.x), y: uniform(bounds.offsetMilliG.y),
                                 z: uniform(bounds.offsetMilliG.z))
            let gain = Vector3(x: uniform(bounds.gain), y: uniform(bounds.gain), z: uniform(bounds.gain))
            let c = bounds.crossAxis
            let crossAxis = Matrix3(rows: Vector3(x: 0, y: uniform(c), z: uniform(c)),
                                    Vector3(x: uniform(c), y: 0, z: uniform(c)),
                                    Vector3(x: uniform(c), y: uniform(c), z: 0))
            let spec = MPU6050.description(for: variant)
            let drift = RandomDrift.draw(seed: seed, offsetBound: spec.drift.offsetTypical,
                                         sensitivityBound: spec.drift.sensitivityTypical)
            return Self(variant: variant, scene: scene, offset: offset, gain: gain, crossAxis: crossAxis,
                        offsetDrift: drift.offset, sensitivityDrift: drift.sensitivity,
                        temperatureNoiseCelsius: variant.temperature.temperatureNoiseCelsius, seed: generator.next())
        }

        /// What WHO_AM_I reads.
        public var effectiveWhoAmI: UInt8 { whoAmI ?? variant.whoAmI }

        /// Noise density with the default applied, g/√Hz.
        public var effectiveNoiseDensity: Double {
            max(0, noiseDensity ?? TypicalErrors.of(variant).noiseDensity)
        }

        /// Self-test codes with the default applied: mid-range trims, a little apart per axis.
        public var effectiveSelfTestCodes: [UInt8] {
            if let selfTestCodes, selfTestCodes.count == 3 { return selfTestCodes }
            return variant.hasMPU6500RegisterMap ? [0x64, 0x6A, 0x70] : [14, 16, 18]
        }

        /// diag(1 + gain) with the cross-axis terms off the diagonal.
        public var sensitivity: Matrix3 {
            Matrix3(rows: Vector3(x: 1 + gain.x, y: crossAxis[0, 1], z: crossAxis[0, 2]),
                    Vector3(x: crossAxis[1, 0], y: 1 + gain.y, z: crossAxis[1, 2]),
                    Vector3(x: crossAxis[2, 0], y: crossAxis[2, 1], z: 1 + gain.z))
        }
    }
}
extension SimulatedMPU6050.Configuration: SimulatedPartConfiguration {}
