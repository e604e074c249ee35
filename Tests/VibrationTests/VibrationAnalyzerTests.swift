import Foundation
import Geometry
import Testing
import Vibration

@Suite("VibrationAnalyzer: windows, chunks, gaps and settings")
struct VibrationAnalyzerTests {
    private static let rate = 800.0

    private static func stream(seconds: Double) -> [Vector3] {
        var noise = Noise(seed: 11)
        return signal(rate: rate, seconds: seconds, tones: [
            Tone(axis: .x, velocityRMS: 1.5, frequency: 33), Tone(axis: .z, velocityRMS: 4.5, frequency: 50),
        ]) { _ in noise.vector(sigma: 0.008) }
    }

    /// Feeds `samples` in chunks of the given sizes (cycled), each ending at its last sample's time.
    private static func feed(_ analyzer: VibrationAnalyzer, _ samples: [Vector3], chunks: [Int]) -> [VibrationFigures] {
        var windows: [VibrationFigures] = []
        var start = 0
        var turn = 0
        while start < samples.count {
            let end = min(samples.count, start + chunks[turn % chunks.count])
            windows += analyzer.add(samples[start..<end], endingAt: Double(end - 1) / rate)
            start = end
            turn += 1
        }
        return windows
    }

    @Test("Windows do not overlap and are the same whatever the chunks", arguments: [[1], [7, 80, 13], [80], [799, 3], [5000]])
    func chunking(chunks: [Int]) throws {
        let samples = Self.stream(seconds: 5.3)
        let whole = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1).add(samples, endingAt: Double(samples.count - 1) / Self.rate)
        #expect(whole.count == 5)
        for (window, expected) in zip(whole, (1...5).map { Double($0 * 800 - 1) / Self.rate }) {
            #expect(abs(window.time - expected) < 1e-9)
        }
        let chunked = Self.feed(try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1), samples, chunks: chunks)
        #expect(sameWindows(chunked, whole))
        // A collection without contiguous storage gives the same windows.
        let lazy = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1)
            .add(samples.lazy.map { $0 }, endingAt: Double(samples.count - 1) / Self.rate)
        #expect(sameWindows(lazy, whole))
    }

    @Test("A hop shorter than the window ends a window every hop, each one the window of its last samples")
    func overlapping() throws {
        let samples = Self.stream(seconds: 3)
        let analyzer = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1, hopSeconds: 0.1)
        #expect(analyzer.hopSamples == 80 && analyzer.hopSeconds == 0.1)
        let windows = Self.feed(analyzer, samples, chunks: [37])
        #expect(windows.count == 21)
        // Every tenth is a disjoint window, identical to what a non-overlapping analyzer gives.
        let disjoint = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1).add(samples, endingAt: Double(samples.count - 1) / Self.rate)
        #expect(sameWindows([windows[0], windows[10], windows[20]], disjoint))
        // And any one of them is the window of the 800 samples before its end.
        let seventh = try onlyWindow(Array(samples[(7 * 80)..<(7 * 80 + 800)]), rate: Self.rate)
        #expect(windows[7].z == seventh.z && windows[7].x == seventh.x)
    }

    @Test("Corrupt samples are skipped and counted, and the figures stay finite and right")
    func corruptSamples() throws {
        var samples = Self.stream(seconds: 2)
        let clean = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1).add(samples, endingAt: 2)
        for index in [3, 400, 401, 1203] {
            samples[index] = Vector3(x: .nan, y: 0, z: .infinity)
        }
        samples.insert(Vector3(x: 0, y: 5000, z: 1), at: 900)
        let analyzer = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1)
        let windows = analyzer.add(samples, endingAt: 2)
        // 1601 samples, 5 bad: one window of 800 good ones, and 796 of the next.
        #expect(windows.count == 1)
        let window = try #require(windows.first)
        #expect(window.skippedSamples == 3)
        for axis in [window.overall, window.x, window.y, window.z] {
            for figure in [axis.velocityRMS, axis.accelerationRMS, axis.peak, axis.crestFactor, axis.dominantHz] {
                #expect(figure.isFinite)
            }
        }
        #expect(relativeError(window.z.velocityRMS, clean[0].z.velocityRMS) < 0.02)
        let rest = analyzer.add(Self.stream(seconds: 0.01), endingAt: 3)
        #expect(rest.count == 1 && rest.first?.skippedSamples == 2)
    }

    @Test("A chunk with a time that is not finite is skipped whole")
    func badTime() throws {
        let analyzer = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1)
        #expect(analyzer.add(Self.stream(seconds: 1), endingAt: .nan).isEmpty)
        let windows = analyzer.add(Self.stream(seconds: 1), endingAt: 9)
        #expect(windows.count == 1 && windows.first?.skippedSamples == 800)
    }

    @Test("After reset no window straddles the gap: the next holds only samples from after it")
    func resetDropsPartialWindow() throws {
        let samples = Self.stream(seconds: 1)
        let analyzer = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1)
        // A burst that would dominate any window containing it.
        #expect(analyzer.add(signal(rate: Self.rate, seconds: 0.6, tones: [Tone(axis: .z, velocityRMS: 80, frequency: 20)]),
                             endingAt: 0.6).isEmpty)
        analyzer.reset()
        let windows = analyzer.add(samples, endingAt: 5)
        let fresh = try onlyWindow(samples, rate: Self.rate)
        #expect(windows.count == 1)
        #expect(windows.first?.z == fresh.z)
        #expect(analyzer.windowsCompleted == 1)
    }

    @Test("Settings that cannot work are refused with what to choose", arguments: [
        (25.0, 1.0, nil as Double?, "faster than 25.6 Hz"),
        (-100, 1, nil, "positive output data rate"),
        (.nan, 1, nil, "positive output data rate"),
        (800, 0.2, nil, "0.5 s or more"),
        (800, .nan, nil, "0.5 s or more"),
        (800, 61, nil, "at most 60.0 s"),
        (3200, 30, nil, "at most 20.4 s"),
        (26, 0.5, nil, "too narrow"),
        (800, 1, 0, "one sample"),
        (800, 1, 1.5, "one sample"),
    ])
    func refusedSettings(rate: Double, window: Double, hop: Double?, advice: String) {
        #expect {
            try VibrationAnalyzer(rateHz: rate, windowSeconds: window, hopSeconds: hop)
        } throws: { error in
            String(describing: error).contains(advice)
        }
    }

    @Test("The slowest and fastest sensible settings work", arguments: [(50.0, 0.5), (100, 1), (800, 60), (3200, 20)])
    func acceptedSettings(rate: Double, window: Double) throws {
        let analyzer = try VibrationAnalyzer(rateHz: rate, windowSeconds: window)
        #expect(analyzer.windowSamples == Int((rate * window).rounded()))
        #expect(analyzer.binWidthHz == 1 / window)
    }

    @Test("Many analyzers made and used on many threads at once (FFTW's planner made thread-safe)")
    func concurrentAnalyzers() async throws {
        let samples = Self.stream(seconds: 1)
        let expected = try onlyWindow(samples, rate: Self.rate).z
        try await withThrowingTaskGroup(of: AxisFigures.self) { group in
            for index in 0..<32 {
                group.addTask {
                    // Different lengths make FFTW plan anew each time.
                    _ = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 0.5 + Double(index) / 64)
                    let analyzer = try VibrationAnalyzer(rateHz: Self.rate, windowSeconds: 1)
                    return try #require(analyzer.add(samples, endingAt: 1).first).z
                }
            }
            for try await figures in group {
                #expect(figures == expected)
            }
        }
    }
}
