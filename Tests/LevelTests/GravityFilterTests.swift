import Geometry
import GeometryTesting
import Level
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `filter` setting, stage by stage: the low-pass's response against its closed form, what
/// each filter makes of vibration, a knock and a step, and what the window, the standard error
/// and stillness see under each. Samples are made here, so each test knows its truth.
@Suite("Gravity filter")
struct GravityFilterTests {
    /// Batches of 0.1 s at `rateHz` of `gravity(t)`, plus `amplitude` g at `frequency` Hz on
    /// every axis (a third of a cycle apart, as the simulator's vibration) and white noise of
    /// `noise` g rms per axis.
    static func batches(seconds: Double, rateHz: Double, gravity: (Double) -> Vector3, amplitude: Double = 0,
                        frequency: Double = 50, noise: Vector3 = .zero, seed: UInt64 = 1) -> [SampleBatch] {
        var random = SplitMix64(seed: seed)
        let perBatch = max(1, Int((rateHz / 10).rounded()))
        let count = Int((seconds * rateHz / Double(perBatch)).rounded())
        return (0..<count).map { batch in
            let samples = (0..<perBatch).map { index -> Vector3 in
                let t = Double(batch * perBatch + index) / rateHz
                let phase = 2 * Double.pi * frequency * t
                let third = 2 * Double.pi / 3
                let vibration = Vector3(x: sin(phase), y: sin(phase + third), z: sin(phase + 2 * third)) * amplitude
                return gravity(t) + vibration + random.gaussian(sigma: noise)
            }
            return SampleBatch(samples: samples, time: Double((batch + 1) * perBatch - 1) / rateHz, rateHz: rateHz)
        }
    }

    static func settings(_ filter: GravityFilter, rateHz: Double = 100, window: Int = 10,
                         calibration: Calibration = .identity) -> PipelineSettings {
        PipelineSettings(calibration: calibration, filter: filter, windowBlocks: window, mount: .flat,
                         thresholds: LevelThresholds(tolerance: deg(0.1), hysteresis: deg(0.02), alarmThreshold: deg(5), dwell: 3),
                         stability: TestChipNoise.stability(odrHz: rateHz))
    }

    static let tilted = Attitude.gravity(roll: deg(0.3), pitch: deg(-0.2))

    /// Measurements of `batches` through a fresh pipeline.
    static func measure(_ batches: [SampleBatch], _ settings: PipelineSettings) -> [Measurement] {
        var pipeline = LevelPipeline(settings: settings)
        return batches.compactMap { pipeline.add($0) }
    }

    // MARK: The filter's setting

    @Test("The setting's values are mean, median and lowpass, and mean is the default")
    func rawValues() {
        #expect(GravityFilter.allCases.map(\.rawValue) == ["mean", "median", "lowpass"])
        let defaults = PipelineSettings(calibration: .identity, windowBlocks: 10, mount: .flat,
                                        thresholds: .instant(tolerance: deg(0.1)), stability: TestChipNoise.stability(odrHz: 100))
        #expect(defaults.filter == .mean)
    }

    // MARK: The low-pass's response

    @Test("Exactly 1 at DC, 1/√2 at the cutoff, 0 at Nyquist, and the Butterworth closed form in between",
          arguments: [100.0, 800.0, 3200.0])
    func response(rateHz: Double) throws {
        let filter = try #require(LowpassFilter(rateHz: rateHz))
        #expect(filter.cutoffHz == 2)
        expectClose(filter.gain(atHz: 0), 1, tolerance: 1e-12, "DC")
        expectClose(filter.gain(atHz: 2), 1 / 2.0.squareRoot(), tolerance: 1e-9, "−3 dB at the cutoff")
        #expect(filter.gain(atHz: rateHz / 2) < 1e-9, "the bilinear zeros at Nyquist")
        for hertz in [0.5, 1, 3, 5, 10, 25, 47, 49.3] where hertz < rateHz / 2 {
            let closed = filter.designGain(atHz: hertz)
            #expect(abs(filter.gain(atHz: hertz) / closed - 1) < 1e-6, "\(hertz) Hz: \(filter.gain(atHz: hertz)) vs \(closed)")
        }
    }

    @Test("50 Hz is attenuated far below 0.05° of tilt: under 3·10⁻⁶ at 800 Hz, nothing at 100 Hz (Nyquist)")
    func attenuationAt50Hz() throws {
        let at800 = try #require(LowpassFilter(rateHz: 800))
        // 1/√(1 + (tan(π·50/800) / tan(π·2/800))⁸): the ratio is 25.3, so 25.3⁻⁴.
        let ratio = tan(Double.pi * 50 / 800) / tan(Double.pi * 2 / 800)
        expectClose(ratio, 25.33, tolerance: 0.01)
        expectClose(at800.gain(atHz: 50), 1 / (1 + pow(ratio, 8)).squareRoot(), tolerance: 1e-12)
        #expect(at800.gain(atHz: 50) < 3e-6, "−110 dB: 0.2 g leaves 0.5 µg, 3·10⁻⁵°")
        let at100 = try #require(LowpassFilter(rateHz: 100))
        #expect(at100.gain(atHz: 50) < 1e-9)
        #expect(at100.gain(atHz: 49.3) < 1e-10, "near the Nyquist zeros: 49.3 Hz at 100 Hz")
        #expect(at100.gain(atHz: 40) < 2e-7, "60 Hz, which 100 Hz samples as 40 Hz")
    }

    @Test("A sampled low-pass needs its cutoff below Nyquist")
    func impossibleCutoffs() {
        #expect(LowpassFilter(cutoffHz: 2, rateHz: 4) == nil)
        #expect(LowpassFilter(cutoffHz: 0, rateHz: 100) == nil)
        #expect(LowpassFilter(cutoffHz: 2, rateHz: .nan) == nil)
        #expect(LowpassFilter(cutoffHz: 2, rateHz: 6.25) != nil, "the ADXL345's slowest useful rate")
    }

    @Test("Seeded, a constant input comes out unchanged from the first sample; unseeded it would start at 0")
    func seeding() throws {
        var filter = try #require(LowpassFilter(rateHz: 800))
        let value = Vector3(x: 0.01, y: -0.02, z: 0.9997)
        filter.seed(value)
        // Rounding circulates in the state (the poles are within 1 % of z = 1) but stays at
        // picometres per g.
        for _ in 0..<80_000 {
            expectClose(filter.filter(value), value, tolerance: 1e-11)
        }
        var cold = try #require(LowpassFilter(rateHz: 800))
        cold.seed(.zero)
        #expect(cold.filter(value).magnitude < 0.01, "from zero the first sample reads near 0 g")
    }

    @Test("Settling of the 4th-order Butterworth: 0.55 s within 5 %, 0.79 s within 2 %, at any rate",
          arguments: [100.0, 800.0])
    func settlingTime(rateHz: Double) throws {
        let filter = try #require(LowpassFilter(rateHz: rateHz))
        expectClose(filter.settlingTime(band: 0.05), 0.55, tolerance: 0.02)
        expectClose(filter.settlingTime(band: 0.02), 0.79, tolerance: 0.02)
    }

    // MARK: Noise figures

    @Test("Raw blocks carry σ, σ/√n and independent means")
    func rawNoise() {
        let raw = BlockNoise.raw(samples: 16)
        #expect(raw.sample == 1 && raw.block == 0.25 && raw.withinBlock == 1 && raw.correlations.isEmpty && !raw.isFiltered)
    }

    @Test("The low-pass's noise figures match white noise run through it", arguments: [100.0, 800.0])
    func lowpassNoiseMatchesSimulation(rateHz: Double) throws {
        var filter = try #require(LowpassFilter(rateHz: rateHz))
        let n = Int(rateHz / 10)
        let figures = BlockNoise.lowpass(filter, samples: n)
        var random = SplitMix64(seed: 11)
        filter.seed(.zero)
        var samples = GravityAverage(), means: [Double] = []
        var block = GravityAverage()
        for index in 0..<(4000 * n) {
            let output = filter.filter(random.gaussian(sigma: Vector3(x: 1, y: 1, z: 1)))
            if index < 100 * n { continue }
            samples.add(output)
            block.add(output)
            if block.count == n {
                means.append(block.mean!.x)
                block.reset()
            }
        }
        expectClose(samples.standardDeviation!.x, figures.sample, tolerance: figures.sample * 0.03, "a sample")
        let meanOfMeans = means.reduce(0, +) / Double(means.count)
        let variance = means.map { ($0 - meanOfMeans) * ($0 - meanOfMeans) }.reduce(0, +) / Double(means.count - 1)
        expectClose(variance.squareRoot(), figures.block, tolerance: figures.block * 0.05, "a block mean")
        let lag1 = zip(means, means.dropFirst()).map { ($0 - meanOfMeans) * ($1 - meanOfMeans) }.reduce(0, +)
            / Double(means.count - 1) / variance
        expectClose(lag1, figures.correlations[0], tolerance: 0.05, "neighbouring block means")
        // About a fifth of the noise at 100 Hz is left in a sample, and block means correlate.
        #expect(figures.sample < 0.21 * (100 / rateHz).squareRoot() && figures.correlations[0] > 0.6)
    }

    @Test("Under lowpass the standard error is honest: the scatter of 1 s readings, not the smaller naive figure")
    func lowpassStandardError() throws {
        let noise = TestChipNoise.rms(odrHz: 100)
        let batches = Self.batches(seconds: 1000, rateHz: 100, gravity: { _ in Self.tilted }, noise: noise, seed: 12)
        let measurements = Self.measure(batches, Self.settings(.lowpass))
        // Readings a whole window apart, past the start.
        let readings = stride(from: 20, to: measurements.count, by: 10).map { measurements[$0] }
        let xs = readings.map(\.deviceGravity.x)
        let mean = xs.reduce(0, +) / Double(xs.count)
        let scatter = (xs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(xs.count - 1)).squareRoot()
        let reported = readings.map(\.standardError.x).reduce(0, +) / Double(readings.count)
        expectClose(reported, scatter, tolerance: scatter * 0.2, "reported \(reported), scatter \(scatter)")
    }

    // MARK: Vibration

    @Test("No tone aliases into the low-passed reading; the mean lets 49.3 Hz through",
          arguments: [(100.0, 47.0), (100, 49.3), (100, 50), (100, 60), (800, 47), (800, 49.3), (800, 50), (800, 60)])
    func noAliasing(rateHz: Double, frequency: Double) {
        let truth = Attitude(gravity: Self.tilted)
        let batches = Self.batches(seconds: 6, rateHz: rateHz, gravity: { _ in Self.tilted }, amplitude: 0.2,
                                   frequency: frequency)
        let lowpass = Self.measure(batches, Self.settings(.lowpass, rateHz: rateHz)).dropFirst(30)
        let worst = lowpass.map { abs($0.attitude.tilt.degrees - truth.tilt.degrees) }.max() ?? .nan
        #expect(worst < 0.002, "\(frequency) Hz at \(rateHz) Hz: \(worst)°")
        if frequency == 49.3 {
            // Noise-free, the mean's 1 s window leaves 0.16° at 100 Hz and 0.045° at 800 Hz.
            let mean = Self.measure(batches, Self.settings(.mean, rateHz: rateHz)).dropFirst(30)
            let meanWorst = mean.map { abs($0.attitude.tilt.degrees - truth.tilt.degrees) }.max() ?? .nan
            #expect(meanWorst > 0.04, "the mean at 49.3 Hz: \(meanWorst)°")
        }
    }

    @Test("Shaken at 0.2 g but still, the low-passed reading is stable; the mean's is not", arguments: [100.0, 800.0])
    func stableWhileRunning(rateHz: Double) {
        let noise = TestChipNoise.rms(odrHz: rateHz)
        let batches = Self.batches(seconds: 20, rateHz: rateHz, gravity: { _ in Self.tilted }, amplitude: 0.2,
                                   frequency: 49.3, noise: noise, seed: 13)
        let lowpass = Self.measure(batches, Self.settings(.lowpass, rateHz: rateHz))
        #expect(lowpass.dropFirst(30).allSatisfy { $0.isStable })
        let mean = Self.measure(batches, Self.settings(.mean, rateHz: rateHz))
        #expect(!mean.contains { $0.isStable }, "0.2 g of vibration is 0.14 g rms in the raw samples")
    }

    // MARK: Steps

    /// Seconds from a 1° step of roll at `stepTime` to the reading staying within 0.05° of 1°.
    static func settling(_ measurements: [Measurement], stepTime: Double) -> Double {
        let last = measurements.lastIndex { abs($0.attitude.roll.degrees - 1) > 0.05 } ?? 0
        return measurements[min(measurements.count - 1, last + 1)].time - stepTime
    }

    @Test("A step restarts the low-passed window as it does the mean's: within 0.05° in under 0.8 s, vibrating or not",
          arguments: [(100.0, 0.0), (100, 0.2), (800, 0.0), (800, 0.2)])
    func lowpassStep(rateHz: Double, amplitude: Double) {
        let stepTime = 5.03
        let batches = Self.batches(seconds: 10, rateHz: rateHz, gravity: { t in
            Attitude.gravity(roll: deg(t >= stepTime ? 1 : 0), pitch: .zero)
        }, amplitude: amplitude, frequency: 49.3)
        let measurements = Self.measure(batches, Self.settings(.lowpass, rateHz: rateHz))
        let settled = Self.settling(measurements, stepTime: stepTime)
        #expect(settled < 0.8, "settled after \(settled) s")
        // The block that showed the step restarted the window and reads moving.
        #expect(measurements.contains { $0.time > stepTime && $0.stillness == .moving })
    }

    @Test("Median: a knock moves one block, not the answer nor the hold; the mean restarts on it")
    func medianKnock() throws {
        let noise = TestChipNoise.rms(odrHz: 100)
        let still = Self.batches(seconds: 4, rateHz: 100, gravity: { _ in Self.tilted }, noise: noise, seed: 14)
        // One block knocked 50 mg sideways (about 3°), then still again.
        var knocked = still
        knocked[30] = SampleBatch(samples: still[30].samples.map { $0 + Vector3(x: 0.05, y: 0, z: 0) },
                                  time: still[30].time, rateHz: 100)
        let median = Self.measure(knocked, Self.settings(.median))
        let unknocked = Self.measure(still, Self.settings(.median))
        // At most one rank of the ten block means: a fraction of a block mean's 0.9 mg of noise.
        for index in 30...39 {
            expectClose(median[index].deviceGravity, unknocked[index].deviceGravity, tolerance: 0.0006, "block \(index)")
        }
        #expect(median[29...].allSatisfy { $0.isStable }, "one block out of ten does not end the hold")
        let mean = Self.measure(knocked, Self.settings(.mean))
        #expect(mean[30].deviceGravity.x - unknocked[30].deviceGravity.x > 0.04,
                "the mean's step restart takes the knock for the reading")
        #expect(!mean[30].isStable)
    }

    @Test("Median: a step is followed from its second block, at once after that")
    func medianStep() {
        let stepTime = 2.0
        let batches = Self.batches(seconds: 4, rateHz: 100, gravity: { t in
            Attitude.gravity(roll: deg(t >= stepTime ? 1 : 0), pitch: .zero)
        }, noise: TestChipNoise.rms(odrHz: 100), seed: 15)
        let measurements = Self.measure(batches, Self.settings(.median))
        // Block 20 is the step's first, 21 confirms it.
        #expect(abs(measurements[20].attitude.roll.degrees) < 0.05, "one moved block is a knock until the next")
        #expect(abs(measurements[21].attitude.roll.degrees - 1) < 0.2, "the block's noise is 0.05° at 1σ")
        #expect(measurements[21].stillness == .moving)
    }

    // MARK: Calibration, seeding, settings

    @Test("Low-pass then calibrate equals calibrate then low-pass (affine correction, unit DC gain)")
    func calibrateThenFilter() throws {
        let calibration = try Calibration(
            matrix: Geometry.Matrix3(rows: Vector3(x: 1.02, y: 0.01, z: 0), Vector3(x: -0.01, y: 0.98, z: 0.005),
                                        Vector3(x: 0, y: 0, z: 1.03)),
            offset: Vector3(x: 0.03, y: -0.02, z: 0.04))
        let raw = Self.batches(seconds: 8, rateHz: 800, gravity: { t in
            Attitude.gravity(roll: deg(t >= 4 ? 1.5 : 0.2), pitch: deg(-0.4))
        }, amplitude: 0.2, frequency: 49.3, noise: TestChipNoise.rms(odrHz: 800), seed: 16)
        let corrected = raw.map { SampleBatch(samples: $0.samples.map(calibration.apply), time: $0.time, rateHz: $0.rateHz) }
        let filteredFirst = Self.measure(raw, Self.settings(.lowpass, rateHz: 800, calibration: calibration))
        let calibratedFirst = Self.measure(corrected, Self.settings(.lowpass, rateHz: 800))
        #expect(filteredFirst.count == calibratedFirst.count)
        for (a, b) in zip(filteredFirst, calibratedFirst) {
            expectClose(a.deviceGravity, b.deviceGravity, tolerance: 1e-9)
            #expect(a.stillness == b.stillness)
        }
    }

    @Test("The low-pass starts from the first batch, and again after a reset, never from 0 g")
    func pipelineSeeding() throws {
        var pipeline = LevelPipeline(settings: Self.settings(.lowpass))
        let firstResult = pipeline.add(.steady(Self.tilted, count: 10, time: 0.1, rateHz: 100))
        let first = try #require(firstResult)
        expectClose(first.deviceGravity, Self.tilted, tolerance: 1e-12)
        pipeline.reset()
        let moved = Attitude.gravity(roll: deg(20), pitch: .zero)
        let afterResult = pipeline.add(.steady(moved, count: 10, time: 0.2, rateHz: 100))
        let after = try #require(afterResult)
        expectClose(after.deviceGravity, moved, tolerance: 1e-12, "nothing of the old state is left")
    }

    @Test("Changing the filter restarts the window and the filter")
    func reconfigureFilter() throws {
        var pipeline = LevelPipeline(settings: Self.settings(.mean))
        for batch in Self.batches(seconds: 2, rateHz: 100, gravity: { _ in Self.tilted }) { pipeline.add(batch) }
        #expect(pipeline.latest?.isStable == true)
        pipeline.reconfigure(Self.settings(.lowpass))
        #expect(pipeline.latest == nil, "blocks measured raw are not averaged with low-passed ones")
        let nextResult = pipeline.add(.steady(Self.tilted, count: 10, time: 3, rateHz: 100))
        let next = try #require(nextResult)
        #expect(next.stillness == .settling)
        expectClose(next.deviceGravity, Self.tilted, tolerance: 1e-12)
    }

    @Test("A batch at another rate restarts the window")
    func rateChange() throws {
        var pipeline = LevelPipeline(settings: Self.settings(.lowpass))
        for batch in Self.batches(seconds: 2, rateHz: 100, gravity: { _ in Self.tilted }) { pipeline.add(batch) }
        let moved = Attitude.gravity(roll: deg(2), pitch: .zero)
        let afterResult = pipeline.add(.steady(moved, count: 80, time: 3, rateHz: 800))
        let after = try #require(afterResult)
        expectClose(after.deviceGravity, moved, tolerance: 1e-12)
    }
}
