import Geometry
import GeometryTesting
import Level
import Testing

private let sigma100 = TestChipNoise.rms(odrHz: 100)

/// `stable` as the pipeline judges it (``Stability``): the chip's noise figures, the hold's
/// hysteresis and anchor, and how a step and a refill show. Blocks are drawn here from known
/// noise, so each test knows which side of a limit it is on.
@Suite("Stability")
struct StabilityTests {
    /// Blocks of `samples` samples whose spread is `spread` × the chip's noise and whose means
    /// scatter by `meanScatter` × a still block mean's, around `center(i)`: vibration faster than
    /// a block raises the first and leaves the second.
    static func blocks(_ count: Int, samples: Int = 10, spread: Double = 1, meanScatter: Double = 1,
                       random: inout SplitMix64, center: (Int) -> Vector3 = { _ in Vector3(x: 0.01, y: -0.02, z: 0.999) })
        -> [SampleBatch] {
        blocks(count, samples: samples, spread: { _ in spread }, meanScatter: meanScatter, random: &random, center: center)
    }

    /// The same with each block's spread its own, `spread(i)` × the chip's noise.
    static func blocks(_ count: Int, samples: Int = 10, spread: (Int) -> Double, meanScatter: Double = 1,
                       random: inout SplitMix64, center: (Int) -> Vector3 = { _ in Vector3(x: 0.01, y: -0.02, z: 0.999) })
        -> [SampleBatch] {
        (0..<count).map { index in
            let scatter = sigma100 * (meanScatter / Double(samples).squareRoot())
            return .steady(center(index) + random.gaussian(sigma: scatter), spread: sigma100 * spread(index), count: samples,
                           time: Double(index) / 10, rateHz: 100)
        }
    }

    static func pipeline(window: Int = 10) -> LevelPipeline {
        LevelPipeline(settings: LevelPipelineTests.settings(window: window))
    }

    static func states(_ pipeline: inout LevelPipeline, _ blocks: [SampleBatch]) -> [Stillness] {
        blocks.compactMap { pipeline.add($0)?.stillness }
    }

    @Test("Stability's factors: three times the noise, looser by half once held, never tighter")
    func factors() {
        let stability = Stability(expectedNoise: sigma100)
        #expect(stability.expectedNoise == sigma100 && stability.noiseFactor == 3 && stability.releaseFactor == 1.5)
        #expect(Stability(expectedNoise: sigma100, releaseFactor: 0.5).releaseFactor == 1, "never tighter once held")
        let point = OperatingPoint(rateHz: 100, expectedNoise: sigma100)
        #expect(point.stability == stability)
    }

    @Test("Still noise settles while the window fills, is stable once it is full, and stays")
    func still() {
        var random = SplitMix64(seed: 31)
        var pipeline = Self.pipeline()
        let states = Self.states(&pipeline, Self.blocks(300, random: &random))
        #expect(states.prefix(9).allSatisfy { $0 == .settling })
        #expect(states.dropFirst(9).allSatisfy { $0 == .stable })
    }

    @Test("Vibration (five times the noise) is moving, never stable, even while the window fills")
    func vibration() {
        var random = SplitMix64(seed: 33)
        var pipeline = Self.pipeline()
        #expect(Self.states(&pipeline, Self.blocks(50, spread: 5, meanScatter: 5, random: &random)).allSatisfy { $0 == .moving })
    }

    @Test("A step of 20 mg (about 1°) ends the hold at once; it settles while the window refills, then holds anew")
    func step() throws {
        var random = SplitMix64(seed: 34)
        var pipeline = Self.pipeline()
        let states = Self.states(&pipeline, Self.blocks(40, random: &random) { i in
            Vector3(x: i >= 20 ? 0.03 : 0.01, y: -0.02, z: 0.999)
        })
        #expect(states[19] == .stable)
        #expect(states[20] == .moving, "the step's block")
        // The block after the step restarts the window once more (the step's may straddle it),
        // so ten blocks refill it.
        #expect(states[21...29].allSatisfy { $0 == .settling })
        #expect(states[30...].allSatisfy { $0 == .stable })
        expectClose(try #require(pipeline.latest).deviceGravity.x, 0.03, tolerance: 0.002)
    }

    @Test("A creep too slow for one window to show settles, but the anchor ends each hold after about 6 mg")
    func creep() {
        var random = SplitMix64(seed: 35)
        var pipeline = Self.pipeline()
        // 0.3 mg a block (0.17°/s): the block means of a window scatter by about 1.3 mg, within
        // the 2.8 mg that starts a hold; the window's mean leaves the anchor's 5.9 mg after
        // about 20 blocks.
        let states = Self.states(&pipeline, Self.blocks(300, random: &random) { i in
            Vector3(x: 0.0003 * Double(i), y: 0, z: 1)
        })
        var longest = 0, run = 0
        for state in states {
            run = state == .stable ? run + 1 : 0
            longest = max(longest, run)
        }
        #expect(longest >= 10 && longest <= 30, "held for \(longest) blocks")
        #expect(states.filter { $0 == .moving }.count >= 8, "each hold ends")
    }

    @Test("Hysteresis: noise of 3.75 σ keeps a hold but never starts one; beyond 4.5 σ it lets go")
    func hysteresis() {
        var random = SplitMix64(seed: 36)
        // Large blocks, so the window's pooled noise is within a few per cent of the truth.
        var fresh = Self.pipeline()
        let noisy = Self.states(&fresh, Self.blocks(100, samples: 100, spread: 3.75, random: &random))
        #expect(noisy.allSatisfy { $0 == .moving })

        var held = Self.pipeline()
        #expect(Self.states(&held, Self.blocks(10, samples: 100, random: &random)).last == .stable)
        #expect(Self.states(&held, Self.blocks(100, samples: 100, spread: 3.75, random: &random)).allSatisfy { $0 == .stable })
        #expect(Self.states(&held, Self.blocks(10, samples: 100, spread: 6, random: &random)).contains(.moving))
    }

    @Test("Noise hovering at the limit makes `stable` change at most once, not at every block")
    func noChatter() {
        var random = SplitMix64(seed: 37)
        var pipeline = Self.pipeline()
        // A window of ten 10-sample blocks with spread s and still means pools to
        // √((90 s² + 9 σ²) / 99), 3σ for s = 3.13σ. Each block's spread 3.13σ ± 5 %: the pooled
        // noise wanders back and forth across the 3σ that starts a hold, but never near the
        // 4.5σ that ends one.
        var spreads = SplitMix64(seed: 137)
        let wobble = (0..<500).map { _ in 3.13 * (1 + 0.05 * spreads.gaussian()) }
        let blocks = Self.blocks(500, spread: { wobble[$0] }, random: &random)
        let stable = blocks.compactMap { pipeline.add($0)?.isStable }
        let changes = zip(stable, stable.dropFirst()).filter { $0 != $1 }.count
        #expect(stable.contains(true))
        #expect(changes <= 1, "stable changed \(changes) times")
    }

    @Test("A one-block window (plumb read) holds on still noise; the same settings again keep the hold")
    func oneBlockWindowAndReevaluation() {
        var random = SplitMix64(seed: 38)
        var single = Self.pipeline(window: 1)
        #expect(Self.states(&single, Self.blocks(5000, samples: 100, random: &random)).allSatisfy { $0 == .stable })

        var pipeline = Self.pipeline()
        _ = Self.states(&pipeline, Self.blocks(20, random: &random))
        pipeline.reconfigure(pipeline.settings)
        #expect(pipeline.latest?.stillness == .stable)
        var longer = pipeline.settings
        longer.windowBlocks = 20
        pipeline.reconfigure(longer)
        #expect(pipeline.latest?.stillness == .settling, "a window that must fill further has not shown it is still")
    }
}
