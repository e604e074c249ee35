import PlumbDomain
import Testing

private let sigma100 = ADXL345Noise.expectedRMS(odrHz: 100)

private func detector(samplesPerBlock: Int = 50, blocksToSettle: Int = 2, maxDrift: Vector3? = nil) -> StillnessDetector {
    StillnessDetector(configuration: .init(expectedNoise: sigma100, samplesPerBlock: samplesPerBlock, maxDrift: maxDrift,
                                           blocksToSettle: blocksToSettle))
}

/// Feeds `blocks` blocks of samples `center(i) + noise·scale`, returning the state after each.
private func feed(
    _ detector: inout StillnessDetector, blocks: Int, noiseScale: Double = 1, random: inout SplitMix64,
    center: (Int) -> Vector3 = { _ in Vector3(x: 0.01, y: -0.02, z: 0.999) }
) -> [Stillness] {
    var states: [Stillness] = []
    let n = detector.configuration.samplesPerBlock
    for block in 0..<blocks {
        for i in 0..<n {
            let finished = detector.add(center(block * n + i) + random.gaussian(sigma: sigma100 * noiseScale))
            #expect((finished != nil) == (i == n - 1))
        }
        states.append(detector.state)
    }
    return states
}

@Suite("Stillness")
struct StillnessTests {
    @Test("ADXL345 noise: 0.75 / 0.75 / 1.1 LSB at 1/256 g up to 100 Hz, √2 more per doubling above")
    func noise() throws {
        expectClose(sigma100, Vector3(x: 0.75 / 256, y: 0.75 / 256, z: 1.1 / 256), tolerance: 1e-18)
        #expect(ADXL345Noise.expectedRMS(odrHz: 12.5) == sigma100)
        #expect(ADXL345Noise.expectedRMS(odrHz: 0.1) == sigma100)
        expectClose(ADXL345Noise.expectedRMS(odrHz: 200), sigma100 * 2.0.squareRoot(), tolerance: 1e-15)
        expectClose(ADXL345Noise.expectedRMS(odrHz: 800), sigma100 * 8.0.squareRoot(), tolerance: 1e-15)
        expectClose(ADXL345Noise.expectedRMS(odrHz: 3200), sigma100 * 32.0.squareRoot(), tolerance: 1e-15)
        #expect(ADXL345Noise.expectedRMS(odrHz: 10_000) == ADXL345Noise.expectedRMS(odrHz: 3200))
        #expect(ADXL345Noise.expectedRMS(odrHz: .nan) == ADXL345Noise.expectedRMS(odrHz: 3200))
        #expect(ADXL345Noise.expectedRMS(odrHz: -5) == sigma100)
        #expect(ADXL345Noise.odrHz(rateCode: 10) == 100)
        #expect(ADXL345Noise.odrHz(rateCode: 15) == 3200)
        #expect(ADXL345Noise.odrHz(rateCode: 0) == 3200.0 / 32768)
        #expect(ADXL345Noise.odrHz(rateCode: 16) == nil && ADXL345Noise.odrHz(rateCode: -1) == nil)
        let config = StillnessDetector.Configuration.adxl345(odrHz: 100)
        #expect(config.samplesPerBlock == 50 && config.expectedNoise == sigma100 && config.noiseFactor == 3)
        #expect(StillnessDetector.Configuration.adxl345(odrHz: 0.1).samplesPerBlock == 2)
        // 4σ√(2/n) for n = 50 is 0.8 σ.
        expectClose(config.maxDrift, sigma100 * 0.8, tolerance: 1e-15)
    }

    @Test("Still noise at the chip's level: settling, then stable after two passing blocks, and it stays")
    func still() {
        var random = SplitMix64(state: 31)
        var still = detector()
        #expect(still.state == .settling && still.lastBlock == nil)
        let states = feed(&still, blocks: 200, random: &random)
        // The first block has no drift to judge, the second is the first pass, the third settles it.
        #expect(Array(states.prefix(3)) == [.settling, .settling, .stable])
        #expect(states.dropFirst(2).allSatisfy { $0 == .stable })
        #expect(still.isStable && still.anchor != nil)
    }

    @Test("blocksToSettle is honoured")
    func settleCount() {
        var random = SplitMix64(state: 32)
        var still = detector(blocksToSettle: 4)
        #expect(feed(&still, blocks: 6, random: &random) == [.settling, .settling, .settling, .settling, .stable, .stable])
    }

    @Test("Vibration (five times the noise) is never stable")
    func vibration() {
        var random = SplitMix64(state: 33)
        var shaken = detector()
        let states = feed(&shaken, blocks: 50, noiseScale: 5, random: &random)
        #expect(states.allSatisfy { $0 == .moving })
        #expect(shaken.lastBlock?.quiet == false)
    }

    @Test("A step of 20 mg (about 1°) ends the hold at once; it settles again at the new place")
    func step() throws {
        var random = SplitMix64(state: 34)
        var stepped = detector()
        let states = feed(&stepped, blocks: 20, random: &random) { i in
            Vector3(x: i >= 10 * 50 + 25 ? 0.03 : 0.01, y: -0.02, z: 0.999)
        }
        #expect(states[9] == .stable)
        #expect(states[10] == .moving && states[11] == .moving)  // the step's block, then its drift
        #expect(states[12] == .settling && states[13] == .stable)
        #expect(states[13...].allSatisfy { $0 == .stable })
        expectClose(try #require(stepped.anchor).x, 0.03, tolerance: 0.002)
    }

    @Test("A drift of 5 mg per block is never stable; a creep of 1 mg per block cannot hold for long")
    func drift() {
        var random = SplitMix64(state: 35)
        var drifting = detector()
        let fast = feed(&drifting, blocks: 40, random: &random) { i in Vector3(x: 0.1 * Double(i) / 1000, y: 0, z: 1) }
        #expect(fast.allSatisfy { $0 != .stable })
        #expect(drifting.lastBlock?.quiet == true && drifting.lastBlock?.steady == false)

        // 1 mg per block is within the block-to-block limit (2.3 mg), so it settles, but the
        // anchor gives out once it has crept 3.5 mg from where it settled.
        var creeping = detector()
        let slow = feed(&creeping, blocks: 60, random: &random) { i in Vector3(x: 0.02 * Double(i) / 1000, y: 0, z: 1) }
        var longest = 0, run = 0
        for state in slow {
            run = state == .stable ? run + 1 : 0
            longest = max(longest, run)
        }
        #expect(longest >= 1 && longest <= 6, "held for \(longest) blocks")
        #expect(slow.contains(.moving))
    }

    @Test("Hysteresis: noise of 3.75 σ keeps a stable hold but never starts one")
    func hysteresis() {
        var random = SplitMix64(state: 36)
        // Large blocks, so the sample deviation of each block is within a few per cent. More
        // noise also makes the block means wander more, so the drift limit is set wide (3 mg)
        // here to test the noise threshold alone.
        let wide = Vector3(x: 0.003, y: 0.003, z: 0.003)
        var fresh = detector(samplesPerBlock: 400, maxDrift: wide)
        #expect(feed(&fresh, blocks: 40, noiseScale: 3.75, random: &random).allSatisfy { $0 != .stable })

        var held = detector(samplesPerBlock: 400, maxDrift: wide)
        #expect(feed(&held, blocks: 5, random: &random).last == .stable)
        #expect(feed(&held, blocks: 40, noiseScale: 3.75, random: &random).allSatisfy { $0 == .stable })
        // Beyond the release threshold (4.5 σ) it lets go.
        #expect(feed(&held, blocks: 1, noiseScale: 6, random: &random) == [.moving])
    }

    @Test("Non-finite samples are ignored; reset forgets everything; add(contentsOf:) returns the last block")
    func housekeeping() {
        var random = SplitMix64(state: 37)
        var still = detector(samplesPerBlock: 10)
        for _ in 0..<9 { still.add(Vector3(x: 0, y: 0, z: 1) + random.gaussian(sigma: sigma100)) }
        #expect(still.add(Vector3(x: .nan, y: 0, z: 1)) == nil)
        #expect(still.add(Vector3(x: 0, y: .infinity, z: 1)) == nil)
        #expect(still.add(Vector3(x: 0, y: 0, z: 1)) != nil)
        let samples = (0..<35).map { _ in Vector3(x: 0, y: 0, z: 1) + random.gaussian(sigma: sigma100) }
        let last = still.add(contentsOf: samples)
        #expect(last != nil && still.lastBlock == last && still.isStable)
        still.reset()
        #expect(still.state == .settling && still.lastBlock == nil && still.anchor == nil)
        #expect(still == detector(samplesPerBlock: 10))
        // Configuration floors: blocks of at least 2, settle after at least 1, release at least 1×.
        let floored = StillnessDetector.Configuration(expectedNoise: sigma100, samplesPerBlock: 0, blocksToSettle: 0,
                                                      releaseFactor: 0.5)
        #expect(floored.samplesPerBlock == 2 && floored.blocksToSettle == 1 && floored.releaseFactor == 1)
    }
}
