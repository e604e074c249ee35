import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Thermal

extension SimulatedADXL355 {
    /// The simulated part and its surroundings.
    public struct Configuration: Sendable {
        /// 0x1D (ASEL low) by default.
        public var address: I2CAddress
        /// What the chip senses; the scenes, poses and attitude scripts of the ADXL345's
        /// simulator.
        public var scene: SimulatedScene
        /// The vibration of the machine the chip is mounted on, on top of the scene (the ADXL345
        /// simulator's model, ``MachineVibration``); nil (default) for none. Its tones' phases and
        /// noise come from ``seed``; change it at run time with ``SimulatedADXL355/setVibration(_:)``.
        public var vibration: MachineVibration?
        /// Noise density per axis in g/√Hz; the datasheet's typical 22.5 µg/√Hz (Rev. D, ±2.048 g)
        /// by default.
        public var noiseDensity: Vector3
        /// Zero-g offset per axis, in g.
        public var offset: Vector3
        /// How the zero-g offset moves with temperature, g/°C per axis, from 25 °C.
        public var offsetDrift: Vector3
        /// How sensitivity moves with temperature, a fraction per °C per axis, from 25 °C
        /// (``SimulatedPartConfiguration/sensitivityDrift``). Default zero.
        public var sensitivityDrift: Vector3
        /// Sensitivity error per axis, a fraction (0.01 reads 1 % high).
        public var gain: Vector3
        /// Cross-axis terms off the diagonal (a fraction): output i gains `crossAxis[i, j]` of
        /// axis j's input. The diagonal is ignored.
        public var crossAxis: Matrix3
        /// Nonlinearity per axis as a fraction of the configured range's full scale, a cubic
        /// (``CubicNonlinearity``): `n` of full scale at full scale. Default zero.
        public var nonlinearity: Vector3
        /// The die temperature over time; 25 °C by default. Change it at run time with
        /// ``SimulatedADXL355/setTemperature(_:)``.
        public var temperature: SimulatedTemperature
        /// TEMP2/TEMP1's noise, °C rms, each reading drawn afresh (seeded from ``seed``). 0 (the
        /// ideal part's default) reads the transfer function exactly; a random typical part has
        /// the datasheet-grade figure, ``ADXL355/temperatureSensor``'s
        /// ``TemperatureSensor/temperatureNoiseCelsius``.
        public var temperatureNoiseCelsius: Double
        /// This part's temperature intercept error, LSB added to the nominal 1885 at 25 °C.
        public var temperatureOffsetLSB: Double
        /// The change ST1 + ST2 makes, in g per axis; typical 0.3, 0.3, 1.5.
        public var selfTestResponse: Vector3
        /// REVID.
        public var revisionID: UInt8
        /// PARTID, for testing a refusal (0xED on every ADXL355).
        public var partID: UInt8
        /// Seeds the noise: the same seed repeats a run.
        public var seed: UInt64
        /// What is wrong with the connection (``SimulatedFault``, shared with the other
        /// simulators); change it at run time with ``SimulatedADXL355/setFault(_:)``.
        public var fault: SimulatedFault

        public static let defaultAddress = ADXL355.defaultAddress
        public static let typicalSelfTestResponse = Vector3(x: 0.3, y: 0.3, z: 1.5)

        /// An ideal part (no offset, gain, cross-axis or nonlinearity error) with the datasheet's
        /// noise, level and still, at 25 °C, healthy wiring.
        public init(address: I2CAddress = defaultAddress, scene: SimulatedScene = .level,
                    vibration: MachineVibration? = nil,
                    noiseDensity: Vector3 = ADXL355.description.noiseDensity, offset: Vector3 = .zero,
                    offsetDrift: Vector3 = .zero, sensitivityDrift: Vector3 = .zero, gain: Vector3 = .zero, crossAxis: Matrix3 = Matrix3(rows: .zero, .zero, .zero),
                    nonlinearity: Vector3 = .zero,
                    temperature: Double = SimulatedTemperature.reference, temperatureOffsetLSB: Double = 0,
                    temperatureNoiseCelsius: Double = 0,
                    selfTestResponse: Vector3 = typicalSelfTestResponse, revisionID: UInt8 = 0x01,
                    partID: UInt8 = ADXL355Register.expectedPartID, seed: UInt64 = 0x5EED_AD11_355A_CCE1,
                    fault: SimulatedFault = .none) {
            self.address = address
            self.scene = scene
            self.vibration = vibration
            self.nonlinearity = nonlinearity
            self.fault = fault
            self.noiseDensity = noiseDensity
            self.offset = offset
            self.offsetDrift = offsetDrift
            self.sensitivityDrift = sensitivityDrift
            self.gain = gain
            self.crossAxis = crossAxis
            self.temperature = .constant(temperature)
            self.temperatureOffsetLSB = temperatureOffsetLSB
            self.temperatureNoiseCelsius = temperatureNoiseCelsius
            self.selfTestResponse = selfTestResponse
            self.revisionID = revisionID
            self.partID = partID
            self.seed = seed
        }

        /// The typical error bounds each random part is drawn within, uniformly.
        public enum TypicalErrors {
            /// Zero-g offset, ±25 mg on every axis (datasheet typical, from memory: not checked
            /// against the PDF).
            public static let offsetG = 0.025
            /// Offset drift, ±0.02 mg/°C (the typical figure; the maximum is
            /// 0.15 mg/°C, Analog Devices' EVAL-ADXL355-PMDZ guide).
            public static let offsetDriftGPerDegree = 0.02e-3
            /// Sensitivity, ±1 %: Plumb's assumption of a typical spread. The datasheet's limits
            /// are ±8 % (235,520…276,480 LSB/g at ±2.048 g, as published drivers quote it).
            public static let gain = 0.01
            /// Cross-axis sensitivity, ±1 % per term.
            public static let crossAxis = 0.01
        }

        /// A part drawn at random within ``TypicalErrors``: a different chip for every `seed`,
        /// the same chip for the same seed; the noise seed comes from it too. Its temperature
        /// coefficients come from the datasheet's typical drift (``ADXL355/drift``: offset
        /// ±0.02 mg/°C, sensitivity ±0.01 %/°C) on a stream of their own (``RandomDrift``), and
        /// its temperature sensor has the datasheet-grade noise.
        public static func randomTypicalPart(seed: UInt64, scene: SimulatedScene = .level) -> Self {
            var generator = SplitMix64(seed: seed ^ 0x355A_D11C_0FFE_E001)
            func uniform(_ bound: Double) -> Double { (2 * generator.nextUnit() - 1) * bound }
            let bounds = TypicalErrors.self
            let offset = Vector3(x: uniform(bounds.offsetG), y: uniform(bounds.offsetG), z: uniform(bounds.offsetG))
            let gain = Vector3(x: uniform(bounds.gain), y: uniform(bounds.gain), z: uniform(bounds.gain))
            let crossAxis = SimulatedADXL345.Configuration.randomCrossAxis(bound: bounds.crossAxis, seed: generator.next())
            // The offset drift was once drawn here; the three draws stay, unused, so that the
            // noise seed after them, and so every existing seed's noise, is unchanged.
            for _ in 0..<3 { _ = uniform(bounds.offsetDriftGPerDegree) }
            let drift = RandomDrift.draw(seed: seed, offsetBound: ADXL355.drift.offsetTypical,
                                         sensitivityBound: ADXL355.drift.sensitivityTypical)
            return Self(scene: scene, offset: offset, offsetDrift: drift.offset, sensitivityDrift: drift.sensitivity,
                        gain: gain, crossAxis: crossAxis,
                        temperatureNoiseCelsius: ADXL355.temperatureSensor.temperatureNoiseCelsius,
                        seed: generator.next())
        }

        /// raw ≈ sensitivity · true + offset: `diag(1 + gain)` with the cross-axis terms off it.
        public var sensitivity: Matrix3 {
            Matrix3(rows: Vector3(x: 1 + gain.x, y: crossAxis[0, 1], z: crossAxis[0, 2]),
                    Vector3(x: crossAxis[1, 0], y: 1 + gain.y, z: crossAxis[1, 2]),
                    Vector3(x: crossAxis[2, 0], y: crossAxis[2, 1], z: 1 + gain.z))
        }
    }
}
extension SimulatedADXL355.Configuration: SimulatedPartConfiguration {}
