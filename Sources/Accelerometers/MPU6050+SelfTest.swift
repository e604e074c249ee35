#if canImport(Glibc)
import Glibc
#endif
import Geometry
import I2C
import PlumbSync

/// The family's accelerometer self-test figures, per register map.
public enum MPU6050SelfTestLimits {
    /// MPU-6050 (RM-MPU-6000A Rev. 4.2, its self-test section, and PS-MPU-6000A Rev. 3.4 §6.2): the
    /// factory trim of a 5-bit code at ±8 g, in LSB, `4096 × 0.34 × (0.92 / 0.34)^((code − 1) / (2⁵ − 2))`,
    /// 0 for code 0. The response may differ from it by ±14 %.
    public static func mpu6050FactoryTrim(code: UInt8) -> Double {
        guard code != 0 else { return 0 }
        return 4096 * 0.34 * pow(0.92 / 0.34, (Double(code) - 1) / 30)
    }

    public static let mpu6050Tolerance = 0.14

    /// MPU-6500/9250 (AN-MPU-6500A-02, the MPU-6500 accelerometer self-test): the factory value of
    /// an 8-bit code at ±2 g, in LSB, `2620 × 1.01^(code − 1)`, 0 for code 0. A working part's
    /// response lies within 0.5…1.5 times it; with no factory value, within 225…675 mg.
    public static func mpu6500FactoryTrim(code: UInt8) -> Double {
        guard code != 0 else { return 0 }
        return 2620 * pow(1.01, Double(code) - 1)
    }

    public static let mpu6500Ratio = 0.5...1.5
    public static let mpu6500AbsoluteG = 0.225...0.675

    /// The (minimum, maximum) response in LSB at the self-test's range for a trim `code`.
    ///
    /// An MPU-6050 code 0 (no trim, as on some clones) is judged against what any code allows:
    /// FT(1) × 0.86 … FT(31) × 1.14, 0.29…1.05 g.
    public static func limits(code: UInt8, variant: MPU6050Variant) -> (minimum: Double, maximum: Double) {
        if variant.hasMPU6500RegisterMap {
            let trim = mpu6500FactoryTrim(code: code)
            guard trim > 0 else {
                return (mpu6500AbsoluteG.lowerBound * 16384, mpu6500AbsoluteG.upperBound * 16384)
            }
            return (trim * mpu6500Ratio.lowerBound, trim * mpu6500Ratio.upperBound)
        }
        let trim = mpu6050FactoryTrim(code: code)
        guard trim > 0 else {
            return (mpu6050FactoryTrim(code: 1) * (1 - mpu6050Tolerance),
                    mpu6050FactoryTrim(code: 31) * (1 + mpu6050Tolerance))
        }
        return (trim * (1 - mpu6050Tolerance), trim * (1 + mpu6050Tolerance))
    }

    /// The three accelerometer trim codes from the SELF_TEST registers (0x0D…0x10 on the
    /// MPU-6050, 0x0D…0x0F on the MPU-6500/9250).
    public static func codes(from registers: [UInt8], variant: MPU6050Variant) -> [UInt8] {
        if variant.hasMPU6500RegisterMap { return Array(registers.prefix(3)) }
        let low = registers[3]
        return [
            (registers[0] >> 5) << 2 | (low >> 4) & 0x03,
            (registers[1] >> 5) << 2 | (low >> 2) & 0x03,
            (registers[2] >> 5) << 2 | low & 0x03,
        ]
    }
}

extension MPU6050 {
    /// Output settling after a change of configuration or of the self-test force.
    static let selfTestSettleSeconds = 0.1

    /// Runs the register map's accelerometer self-test and restores the running configuration
    /// afterwards (or leaves the chip asleep if it was).
    ///
    /// - MPU-6050: ±8 g at 100 Hz, DLPF 44 Hz; the mean of 20 samples with XA_ST/YA_ST/ZA_ST off
    ///   and 20 with them on; `on − off` per axis against its factory trim ±14 %.
    /// - MPU-6500/9250: ±2 g at 1 kHz, A_DLPF 92 Hz; means of 200 samples (AN-MPU-6500A-02);
    ///   `on − off` within 0.5…1.5 times the factory value (225…675 mg without one).
    ///
    /// The report's figures are in LSB at the test's range: 4096 LSB/g on the MPU-6050, 16384
    /// LSB/g on the MPU-6500/9250. The limits do not depend on the supply; `supplyVoltage` is
    /// only recorded.
    public func selfTest(supplyVoltage: Double = 3.3) throws(SensorError) -> SelfTestReport {
        let variant = try knownVariant()
        let previous = configuration
        var test = MPU6050Configuration()
        let samples: Int
        if variant.hasMPU6500RegisterMap {
            test.range = .g2
            test.divider = 0
            test.lowPass = .hz94
            samples = 200
        } else {
            test.range = .g8
            test.divider = 9
            test.lowPass = .hz44
            samples = 20
        }
        test.watermark = max(1, min(Int(test.rateHz / 10), variant.fifoSamples / 2))

        // Never leave the force on: restore what ran before, whatever happens.
        return try runThenRestore({ () throws(SensorError) -> SelfTestReport in
            try configure(test)
            let trims = MPU6050SelfTestLimits.codes(
                from: try readBurst(MPU6050Register.selfTestX, count: 4), variant: variant)
            let off = try settledMean(of: samples, configuration: test)
            test.selfTest = true
            try write(MPU6050Register.accelConfig, test.accelConfig)
            running.withLock { $0?.configuration = test }
            let on = try settledMean(of: samples, configuration: test)
            let axes = zip(["x", "y", "z"], zip(trims, [(off.x, on.x), (off.y, on.y), (off.z, on.z)])).map { name, pair in
                let limits = MPU6050SelfTestLimits.limits(code: pair.0, variant: variant)
                return SelfTestReport.Axis(name: name, off: pair.1.0, on: pair.1.1, minimum: limits.minimum,
                                           maximum: limits.maximum)
            }
            let conditions = variant.hasMPU6500RegisterMap ? "±2 g, 1 kHz, A_DLPF 92 Hz; LSB of 61 µg (16 384/g)"
                : "±8 g, 100 Hz, DLPF 44 Hz; LSB of 0.244 mg (4096/g)"
            return SelfTestReport(model: variant.rawValue, supplyVoltage: supplyVoltage, samplesPerMean: samples, axes: axes,
                                  conditions: conditions)
        }, restore: { () throws(SensorError) in
            if let previous { try configure(previous) } else { try stop() }
        })
    }

    /// Lets the output settle, then returns the mean of `count` samples in LSB at the range.
    private func settledMean(of count: Int, configuration: MPU6050Configuration) throws(SensorError) -> Vector3 {
        let period = 1 / configuration.rateHz
        clock.sleep(seconds: Self.selfTestSettleSeconds)
        var discard: [Vector3] = []
        _ = try drain(into: &discard)

        var samples: [Vector3] = []
        let allowance = Double(count) * period * 5 + 0.5
        let deadline = clock.now() + allowance
        while samples.count < count {
            guard clock.now() < deadline else {
                throw .noData(model: Self.model, seconds: allowance, bus: bus.name)
            }
            clock.sleep(seconds: Double(min(count - samples.count, configuration.watermark)) * period)
            _ = try drain(into: &samples)
        }
        let used = samples.prefix(count)
        return used.reduce(Vector3.zero, +) / Double(used.count) * configuration.range.countsPerG
    }
}
