import Geometry
import I2C

extension SimulatedADXL345 {
    /// Everything that makes one simulated part: where it answers, what it senses, how imperfect
    /// it is, and what is wrong with its wiring.
    ///
    /// The defaults are an ideal chip with the datasheet's noise, level and still, at 0x53: a
    /// scene at roll 3° reads 3°. Opt into errors with ``offset``, ``gain``,
    /// ``crossAxis``, ``nonlinearity``, ``offsetDrift``, ``sensitivityDrift``, ``typicalPart`` or ``randomTypicalPart(seed:scene:)``.
    public struct Configuration: Sendable {
        /// The 7-bit address the chip acknowledges; others NACK. Default 0x53 (SDO/ALT low).
        public var address: I2CAddress
        /// What the chip senses; change it at run time with ``SimulatedADXL345/setScene(_:)``.
        public var scene: SimulatedScene
        /// The vibration of the machine the chip is mounted on, on top of the scene; nil (default)
        /// for none. It stays when the scene changes; change it at run time with
        /// ``SimulatedADXL345/setVibration(_:)``. Its tones' phases and its noise come from
        /// ``seed``.
        public var vibration: MachineVibration?
        /// X and Y noise in LSB rms at 256 LSB/g and ODR ≤ 100 Hz; it grows √2 per doubling of
        /// the ODR above 100 Hz. Default 0.75 (datasheet). 0 makes the chip noiseless.
        public var noiseXY: Double
        /// Z noise in LSB rms at 256 LSB/g and ODR ≤ 100 Hz. nil (default) scales ``noiseXY`` by
        /// the datasheet's ratio 1.1 / 0.75, which gives 1.1 LSB.
        public var noiseZ: Double?
        /// Zero-g offset error per axis, in mg, added to the output. Typical parts: X/Y ±35,
        /// Z ±40. Default zero.
        public var offset: Vector3
        /// Sensitivity error per axis as a fraction: output = true × (1 + gain). Typical parts:
        /// ±0.01, and X/Y about +0.035 more at 3.3 V than at 2.5 V; this model does not derive
        /// that from ``supplyVoltage``, so include it here. Default zero.
        public var gain: Vector3
        /// Cross-axis sensitivity as fractions: element (i, j) is how much of the true force
        /// along axis j appears on output axis i, so output = (diag(1 + gain) + C) · true. The
        /// diagonal is ignored. Typical parts: ±0.01 per element (datasheet ±1 %), which also
        /// covers the chip sitting a fraction of a degree askew on its board. Default zero.
        public var crossAxis: Matrix3
        /// Nonlinearity per axis as a fraction of full scale, modelled as a cubic term: an axis
        /// sensing `a` g on a range of ±FS g reads `a + n · FS · (a / FS)³` (before gain), so
        /// the error is `n` of full scale at full scale and falls with the cube below it. The
        /// datasheet's ±0.5 % of full scale is a bound over the whole range; for a level, which
        /// only ever senses ±1 g, it is tiny: on Plumb's ±16 g range `n = 0.005` gives
        /// 0.005 · 16 / 16³ g ≈ 0.02 mg at 1 g (1.25 mg on ±2 g). Typical parts: ±0.005.
        /// Default zero.
        public var nonlinearity: Vector3
        /// Offset drift per axis, g/°C from 25 °C (``SimulatedPartConfiguration/offsetDrift``).
        /// Typical parts: X/Y ±0.4 mg/°C, Z ±1.2 mg/°C (``ADXL345/drift``). Default zero.
        public var offsetDrift: Vector3
        /// Sensitivity drift per axis, a fraction per °C from 25 °C
        /// (``SimulatedPartConfiguration/sensitivityDrift``). Default zero.
        public var sensitivityDrift: Vector3
        /// The die temperature over time; 25 °C by default. Change it at run time with
        /// ``SimulatedADXL345/setTemperature(_:)``.
        public var temperature: SimulatedTemperature
        /// Supply voltage VS in volts, 2.0…3.6 (clamped); scales the self-test response by the
        /// datasheet's Table 14. Default 3.3 V, the Pi's rail.
        public var supplyVoltage: Double
        /// The change self-test causes, per axis, in LSB at 256 LSB/g and VS = 2.5 V (datasheet
        /// limits X +50…+540, Y −540…−50, Z +75…+875). Default (+250, −250, +400), a healthy
        /// part. Set an axis to 0 to model a stuck proof mass.
        public var selfTestResponse: Vector3
        /// Seed of the noise, the chip's and the machine's, and of the machine's tone phases; the
        /// same seed and the same sample times give the same output.
        public var seed: UInt64
        /// What is wrong with the connection; change it at run time with
        /// ``SimulatedADXL345/setFault(_:)``.
        public var fault: Fault

        /// The address of an ADXL345 with SDO/ALT tied low.
        public static let defaultAddress = I2CAddress(0x53)!
        /// Datasheet noise on X and Y, LSB rms at ODR ≤ 100 Hz.
        public static let datasheetNoiseXY = 0.75
        /// Datasheet noise on Z, LSB rms at ODR ≤ 100 Hz.
        public static let datasheetNoiseZ = 1.1
        /// A healthy part's self-test response at 2.5 V, LSB, well inside the datasheet limits.
        public static let typicalSelfTestResponse = Vector3(x: 250, y: -250, z: 400)

        /// A configuration; every parameter has the default described on its property.
        public init(
            address: I2CAddress = Configuration.defaultAddress,
            scene: SimulatedScene = .level,
            vibration: MachineVibration? = nil,
            noiseXY: Double = Configuration.datasheetNoiseXY,
            noiseZ: Double? = nil,
            offset: Vector3 = .zero,
            gain: Vector3 = .zero,
            crossAxis: Matrix3 = .zero,
            nonlinearity: Vector3 = .zero,
            offsetDrift: Vector3 = .zero,
            sensitivityDrift: Vector3 = .zero,
            temperature: Double = SimulatedTemperature.reference,
            supplyVoltage: Double = 3.3,
            selfTestResponse: Vector3 = Configuration.typicalSelfTestResponse,
            seed: UInt64 = 0x5EED_AD11_345A_CCE1,
            fault: Fault = .none
        ) {
            self.address = address
            self.scene = scene
            self.vibration = vibration
            self.noiseXY = noiseXY
            self.noiseZ = noiseZ
            self.offset = offset
            self.gain = gain
            self.crossAxis = crossAxis
            self.nonlinearity = nonlinearity
            self.offsetDrift = offsetDrift
            self.sensitivityDrift = sensitivityDrift
            self.temperature = .constant(temperature)
            self.supplyVoltage = supplyVoltage
            self.selfTestResponse = selfTestResponse
            self.seed = seed
            self.fault = fault
        }

        /// A part at the datasheet's typical error magnitudes, powered at 3.3 V: offsets
        /// (+35, −35, +40) mg and gains (+4.5 %, +2.5 %, −1 %), that is ±1 % plus the X/Y rise at
        /// 3.3 V. Calibration code should take these out; a level without it reads them in.
        public static func typicalPart(scene: SimulatedScene = .level, seed: UInt64 = 0x5EED_AD11_345A_CCE1) -> Self {
            Self(
                scene: scene,
                offset: Vector3(x: 35, y: -35, z: 40),
                gain: Vector3(x: 0.045, y: 0.025, z: -0.01),
                seed: seed)
        }

        /// Z noise in LSB rms at ODR ≤ 100 Hz, with the default applied.
        var effectiveNoiseZ: Double {
            noiseZ ?? noiseXY * (Self.datasheetNoiseZ / Self.datasheetNoiseXY)
        }
    }
}

/// The datasheet's Table 14: self-test output scale factors against VS, relative to 2.5 V.
///
/// Kept apart from the driver's own copy of the table on purpose, so a slip in either shows up as
/// a failing self-test rather than agreeing with itself.
enum SelfTestSupplyScaling {
    private static let rows: [(volts: Double, xy: Double, z: Double)] = [
        (2.00, 0.64, 0.80),
        (2.50, 1.00, 1.00),
        (3.30, 1.77, 1.47),
        (3.60, 2.11, 1.69),
    ]

    /// (X/Y factor, Z factor) at `volts`, linear between rows and clamped to 2.0…3.6 V.
    static func factors(atSupply volts: Double) -> (xy: Double, z: Double) {
        let first = rows[0], last = rows[rows.count - 1]
        guard volts.isFinite, volts > first.volts else { return (first.xy, first.z) }
        guard volts < last.volts else { return (last.xy, last.z) }
        var lower = first
        for upper in rows.dropFirst() {
            if volts <= upper.volts {
                let t = (volts - lower.volts) / (upper.volts - lower.volts)
                return (lower.xy + t * (upper.xy - lower.xy), lower.z + t * (upper.z - lower.z))
            }
            lower = upper
        }
        return (last.xy, last.z)
    }
}
