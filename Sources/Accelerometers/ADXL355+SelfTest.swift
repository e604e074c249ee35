import Geometry
import I2C
import PlumbSync

extension ADXL355 {
    /// Samples averaged for each self-test mean.
    static let selfTestSamples = 20
    /// Output settling after a change of the self-test force: the low-pass filter at 125 Hz
    /// settles within a few tens of milliseconds.
    static let selfTestSettleSeconds = 0.1
    /// The range the self-test runs at: ±8.192 g, so that Z's 1.5 g response on top of 1 g of
    /// gravity stays far inside the range.
    public static let selfTestRange = ADXL355Range.g8
    /// The units of the ``SelfTestReport`` this chip returns: LSB at ±8.192 g, 64 000 LSB/g
    /// (15.6 µg/LSB). Not the ADXL345's 256 LSB/g: divide by this for g.
    public static let selfTestCountsPerG = selfTestRange.countsPerG
    /// The supplies the chip's regulators take; the response does not depend on it inside.
    public static let supplyRange: ClosedRange<Double> = 2.25...3.6

    /// Runs the datasheet's self-test at ±8.192 g and 125 Hz: the mean of 20 samples with ST1
    /// (self-test mode) alone, and of 20 with ST1 and ST2 (the force), and `on − off` per axis
    /// against ``selfTestLimitsG``.
    ///
    /// The report's figures are in LSB of ``selfTestCountsPerG`` (64 000 LSB/g).
    /// `supplyVoltage` is checked against 2.25–3.6 V and recorded; the limits do not scale with
    /// it. The running configuration is restored afterwards, or the chip is left in standby.
    public func selfTest(supplyVoltage: Double = 3.3) throws(SensorError) -> SelfTestReport {
        guard Self.supplyRange.contains(supplyVoltage) else {
            throw .invalidSetting("the ADXL355 runs from 2.25 V to 3.6 V; \(supplyVoltage) V is outside. "
                                  + "A Raspberry Pi's 3V3 pin is 3.3.")
        }
        let previous = configuration
        var test = ADXL355Configuration()
        test.range = Self.selfTestRange
        test.rateCode = 5
        let limits = Self.selfTestLimitsG
        let scale = Self.selfTestCountsPerG
        let result: Result<SelfTestReport, SensorError>
        do {
            try configure(test)
            try write(ADXL355Register.selfTest, ADXL355Register.selfTestST1)
            let off = try settledMean(rateHz: test.rateHz) * scale
            try write(ADXL355Register.selfTest, ADXL355Register.selfTestST1 | ADXL355Register.selfTestST2)
            let on = try settledMean(rateHz: test.rateHz) * scale
            let axes = [("x", off.x, on.x, limits.minimum.x, limits.maximum.x),
                        ("y", off.y, on.y, limits.minimum.y, limits.maximum.y),
                        ("z", off.z, on.z, limits.minimum.z, limits.maximum.z)].map { name, off, on, low, high in
                SelfTestReport.Axis(name: name, off: off, on: on, minimum: low * scale, maximum: high * scale)
            }
            result = .success(SelfTestReport(model: Self.model, supplyVoltage: supplyVoltage,
                                             samplesPerMean: Self.selfTestSamples, axes: axes,
                                             conditions: "±8.192 g, 125 Hz; LSB of 15.6 µg (64 000/g)"))
        } catch {
            result = .failure(error)
        }
        // Never leave the force on: the reset in configure clears SELF_TEST, and stop() is
        // preceded by an explicit clear.
        do {
            if let previous {
                try configure(previous)
            } else {
                try write(ADXL355Register.selfTest, 0)
                try stop()
            }
        } catch {
            if case .success = result { throw error }
        }
        return try result.get()
    }

    /// Lets the output settle, discards what gathered, then returns the mean in g.
    private func settledMean(rateHz: Double) throws(SensorError) -> Vector3 {
        let period = 1 / rateHz
        clock.sleep(seconds: Self.selfTestSettleSeconds)
        var discard: [Vector3] = []
        _ = try drain(into: &discard)
        var samples: [Vector3] = []
        let limit = Double(Self.selfTestSamples) * period * 5 + 0.5
        let deadline = clock.now() + limit
        while samples.count < Self.selfTestSamples {
            guard clock.now() < deadline else {
                throw .noData(model: Self.model, seconds: limit, bus: bus.name)
            }
            clock.sleep(seconds: Double(Self.selfTestSamples - samples.count) * period)
            _ = try drain(into: &samples)
        }
        let used = samples.prefix(Self.selfTestSamples)
        return used.reduce(Vector3.zero, +) / Double(used.count)
    }
}
