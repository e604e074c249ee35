import Accelerometers
import Geometry
import Thermal

extension SimulatedADXL345.Configuration {
    /// The datasheet's typical error magnitudes, each drawn uniformly within its bound.
    public enum TypicalErrors {
        /// Zero-g offset bound, mg: X/Y ±35, Z ±40.
        public static let offsetMilliG = Vector3(x: 35, y: 35, z: 40)
        /// Sensitivity bound, fraction: ±1 %.
        public static let gain = 0.01
        /// How much more sensitive X and Y are at 3.3 V than at 2.5 V, fraction: +3.5 %.
        public static let gainRiseXYAt3V3 = 0.035
        /// Cross-axis bound per element, fraction: ±1 %.
        public static let crossAxis = 0.01
        /// Nonlinearity bound, fraction of full scale: ±0.5 %.
        public static let nonlinearity = 0.005
    }

    /// A part drawn at random within the datasheet's typical errors, powered at 3.3 V: a different
    /// chip for every `seed`, the same chip for the same seed. Offsets X/Y ±35 mg and Z ±40 mg,
    /// gains ±1 % plus +3.5 % on X and Y, each cross-axis term ±1 %, nonlinearity ±0.5 % of full
    /// scale. Calibration tests and the accuracy benchmark check that a fit recovers them. Its
    /// temperature coefficients are drawn within the datasheet's typical drift (``ADXL345/drift``:
    /// offset X/Y ±0.4, Z ±1.2 mg/°C; sensitivity ±0.01 %/°C) from a stream of their own
    /// (``RandomDrift``), so every other error of a seed is what it was before drift was modelled.
    ///
    /// The noise seed is derived from `seed` too, so one number repeats a whole run.
    public static func randomTypicalPart(seed: UInt64, scene: SimulatedScene = .level) -> Self {
        var generator = SplitMix64(seed: seed ^ 0xC41B_2A7E_0F5E_ED01)
        func uniform(_ bound: Double) -> Double { (2 * generator.nextUnit() - 1) * bound }
        let bounds = TypicalErrors.self
        let offset = Vector3(x: uniform(bounds.offsetMilliG.x), y: uniform(bounds.offsetMilliG.y),
                             z: uniform(bounds.offsetMilliG.z))
        let gain = Vector3(x: uniform(bounds.gain) + bounds.gainRiseXYAt3V3,
                           y: uniform(bounds.gain) + bounds.gainRiseXYAt3V3, z: uniform(bounds.gain))
        let crossAxis = Matrix3(rows: Vector3(x: 0, y: uniform(bounds.crossAxis), z: uniform(bounds.crossAxis)),
                                Vector3(x: uniform(bounds.crossAxis), y: 0, z: uniform(bounds.crossAxis)),
                                Vector3(x: uniform(bounds.crossAxis), y: uniform(bounds.crossAxis), z: 0))
        let nonlinearity = Vector3(x: uniform(bounds.nonlinearity), y: uniform(bounds.nonlinearity),
                                   z: uniform(bounds.nonlinearity))
        let drift = RandomDrift.draw(seed: seed, offsetBound: ADXL345.drift.offsetTypical,
                                     sensitivityBound: ADXL345.drift.sensitivityTypical)
        return Self(scene: scene, offset: offset, gain: gain, crossAxis: crossAxis, nonlinearity: nonlinearity,
                    offsetDrift: drift.offset, sensitivityDrift: drift.sensitivity, seed: generator.next())
    }

    /// Off-diagonal terms drawn uniformly within ±`bound` (a fraction), from `seed`: the
    /// `--sim-cross-axis PCT` chip.
    public static func randomCrossAxis(bound: Double, seed: UInt64) -> Matrix3 {
        var generator = SplitMix64(seed: seed ^ 0x0C05_5A71_5000_0001)
        func uniform() -> Double { (2 * generator.nextUnit() - 1) * bound }
        return Matrix3(rows: Vector3(x: 0, y: uniform(), z: uniform()), Vector3(x: uniform(), y: 0, z: uniform()),
                       Vector3(x: uniform(), y: uniform(), z: 0))
    }

    /// The sensitivity the part has, `diag(1 + gain) + crossAxis` off the diagonal: raw ≈ A · true
    /// + offset near ±1 g, where the nonlinearity is negligible. What a tumble fit should find.
    public var sensitivity: Matrix3 {
        var rows = [[Double]](repeating: [0, 0, 0], count: 3)
        let gains = [gain.x, gain.y, gain.z]
        for i in 0..<3 {
            for j in 0..<3 {
                rows[i][j] = i == j ? 1 + gains[i] : crossAxis[i, j]
            }
        }
        return Matrix3(rows)!
    }
}
