import Geometry
import I2C

extension ADXL345 {
    /// Samples averaged for each self-test mean; the datasheet asks for at least 10.
    static let selfTestSamples = 20
    /// Output settling after a change of configuration or of the self-test force.
    static let selfTestSettleSeconds = 0.1

    /// Runs the datasheet's self-test: ±16 g full resolution at 100 Hz in normal power, the mean
    /// of 20 samples with the force off and 20 with it on, and `on − off` per axis against the
    /// limits scaled to `supplyVoltage` (2.0–3.6 V; a Pi's 3V3 rail is 3.3).
    ///
    /// The running configuration is restored afterwards, or the chip is left in standby if it was.
    public func selfTest(supplyVoltage: Double = 3.3) throws(SensorError) -> SelfTestReport {
        guard let limits = ADXL345SelfTestLimits.limits(atSupply: supplyVoltage) else {
            throw .invalidSetting("the ADXL345's self-test limits are characterised from 2.0 V to 3.6 V; "
                                  + "\(supplyVoltage) V is outside. A Raspberry Pi's 3V3 pin is 3.3.")
        }
        let previous = configuration
        var test = ADXL345Configuration()
        test.range = .g16
        test.fullResolution = true
        test.rate = OutputDataRate(hertz: 100)!
        test.lowPower = false

        let result: Result<SelfTestReport, SensorError>
        do {
            try configure(test)
            let off = try settledMean(format: test.format)
            test.selfTest = true
            try write(ADXL345Register.dataFormat, test.dataFormat)
            let on = try settledMean(format: test.format)
            let axes = zip(limits, [(off.x, on.x), (off.y, on.y), (off.z, on.z)]).map { limit, means in
                SelfTestReport.Axis(name: limit.name, off: means.0, on: means.1,
                                    minimum: limit.minimum, maximum: limit.maximum)
            }
            result = .success(SelfTestReport(model: Self.model, supplyVoltage: supplyVoltage,
                                             samplesPerMean: Self.selfTestSamples, axes: axes,
                                             conditions: "±16 g full resolution, 100 Hz; LSB of 3.9 mg (256/g)"))
        } catch {
            result = .failure(error)
        }
        // Never leave the force on: restore what ran before, whatever happened above.
        do {
            if let previous { try configure(previous) } else { try stop() }
        } catch {
            if case .success = result { throw error }
        }
        return try result.get()
    }

    /// Lets the output settle, then returns the mean of ``selfTestSamples`` samples in LSB.
    private func settledMean(format: ADXL345SampleFormat) throws(SensorError) -> Vector3 {
        let period = 1 / 100.0
        clock.sleep(seconds: Self.selfTestSettleSeconds + period + Self.wakeUpMargin)
        var discard: [Vector3] = []
        _ = try drain(into: &discard)

        var samples: [Vector3] = []
        let deadline = clock.now() + Double(Self.selfTestSamples) * period * 5 + 0.5
        while samples.count < Self.selfTestSamples {
            guard clock.now() < deadline else {
                throw .noData(model: Self.model, seconds: Double(Self.selfTestSamples) * period * 5 + 0.5, bus: bus.name)
            }
            clock.sleep(seconds: Double(Self.selfTestSamples - samples.count) * period)
            _ = try drain(into: &samples)
        }
        let used = samples.prefix(Self.selfTestSamples)
        let sum = used.reduce(Vector3.zero, +)
        return sum / Double(used.count) * format.countsPerG
    }
}
