import Accelerometers
import Geometry
import Level
import Sampling
import SimulatedADXL345
import Testing

/// The sampler's batches: every sample once, in order, raw, stamped with its newest sample's time.
@Suite("Sampler batches")
struct SamplerBatchTests {
    static let scene = SimulatedScene.vibration(roll: Angle(degrees: 1), pitch: .zero, amplitude: 0.2, frequency: 49.3)

    static func started(rateHz: Double) throws -> (Rig, Sampler) {
        let rig = Rig(.init(scene: scene))
        let sampler = Sampler(chip: rig.driver, clock: rig.clock)
        try sampler.start(SamplingRequest(rateHz: rateHz, rangeG: 16))
        return (rig, sampler)
    }

    @Test("Batches of 0.1 s hold exactly the samples one batch of their total holds, in order", arguments: [100.0, 800.0])
    func everySampleOnceInOrder(rateHz: Double) throws {
        let perBatch = Int(rateHz / 10)
        let (rig, small) = try Self.started(rateHz: rateHz)
        var batches: [SampleBatch] = []
        for _ in 0..<30 { batches.append(try small.nextBatch(samples: perBatch)) }
        let (_, large) = try Self.started(rateHz: rateHz)
        let whole = try large.nextBatch(samples: 30 * perBatch)
        #expect(batches.flatMap(\.samples) == whole.samples, "the same chip, the same samples")
        #expect(batches.allSatisfy { $0.samples.count == perBatch && $0.rateHz == rateHz })
        #expect(whole.samples.contains { abs($0.x) > 0.1 }, "raw: the vibration is in the samples")
        // Each batch ends a tenth of a second after the one before, and never after now.
        for (earlier, later) in zip(batches, batches.dropFirst()) {
            #expect(abs(later.time - earlier.time - 0.1) < 0.5 / rateHz + 1e-9, "\(earlier.time) → \(later.time)")
        }
        #expect(batches.last!.time <= rig.clock.now())
    }

    /// The chip's FIFO holds 32 samples: a drain a second late at 800 Hz finds it full, and
    /// what came before the 32 is lost. The batch says where, so a spectrum is not taken across it.
    @Test("A batch after an overrun says where samples were lost; batches without one say none")
    func aLossIsMarked() throws {
        let (rig, sampler) = try Self.started(rateHz: 800)
        let before = try sampler.nextBatch(samples: 80)
        #expect(before.gapIndex == nil)
        rig.clock.advance(by: 1)
        var marked: [SampleBatch] = []
        for _ in 0..<3 { marked.append(try sampler.nextBatch(samples: 80)) }
        let lost = try #require(marked.first { $0.gapIndex != nil }, "an overrun is marked: \(marked.map(\.gapIndex))")
        #expect((0..<80).contains(lost.gapIndex!))
        #expect(marked.filter { $0.gapIndex != nil }.count == 1, "one loss, one mark")
        #expect(sampler.statistics.overruns >= 1)
        #expect(try sampler.nextBatch(samples: 80).gapIndex == nil)
    }

    @Test("A batch's block is the mean and spread the sampler used to average into readings")
    func blockOfABatch() throws {
        let (_, sampler) = try Self.started(rateHz: 100)
        let batch = try sampler.nextBatch(samples: 10)
        let block = try #require(SampleBlock(batch))
        let average = GravityAverage(batch.samples)
        #expect(block.gravity == average.mean && block.spread == average.standardDeviation)
        #expect(block.samples == 10 && block.time == batch.time)
    }
}
