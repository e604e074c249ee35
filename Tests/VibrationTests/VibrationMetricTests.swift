import Foundation
import Geometry
import Testing
import Vibration
import VibrationVocabulary

@Suite("Vibration figures against closed-form signals")
struct VibrationMetricTests {
    @Test("A sine of known velocity: velocity within 1 %, RMS a/√2, peak a, crest √2, dominant within a tenth of a bin",
          arguments: [(800.0, 50.0), (800, 47.3), (800, 151.7), (100, 20), (100, 31.4), (3200, 600.2)])
    func sine(rate: Double, frequency: Double) throws {
        let tone = Tone(axis: .z, velocityRMS: 4.5, frequency: frequency, phase: 0.3)
        let figures = try onlyWindow(signal(rate: rate, seconds: 1, tones: [tone]), rate: rate)
        let z = figures.z
        #expect(relativeError(z.velocityRMS, 4.5) < 0.01, "velocity \(z.velocityRMS)")
        #expect(relativeError(z.accelerationRMS, tone.amplitudeG / 2.squareRoot()) < 0.01)
        #expect(relativeError(z.peak, tone.amplitudeG) < 0.01)
        #expect(relativeError(z.crestFactor, 2.squareRoot()) < 0.01)
        #expect(abs(z.dominantHz - frequency) < 0.1 * figures.binWidthHz, "dominant \(z.dominantHz)")
        let peak = try #require(z.peaks.first)
        #expect(z.peaks.count == 1)
        #expect(abs(peak.frequencyHz - frequency) < 0.1 * figures.binWidthHz)
        #expect(relativeError(peak.velocityRMS, 4.5) < 0.01)
        #expect(relativeError(peak.accelerationRMS, tone.amplitudeG / 2.squareRoot()) < 0.01)
        // The quiet axes are exactly still: no noise was added.
        #expect(figures.x == .still && figures.y == .still)
        #expect(figures.overall.velocityRMS == z.velocityRMS)
        #expect(figures.severityAxis == .z && figures.severityVelocity == z.velocityRMS)
    }

    @Test("The window's description: band, resolution, samples, its end at the last sample's time")
    func description() throws {
        let analyzer = try VibrationAnalyzer(rateHz: 800, windowSeconds: 1)
        let windows = analyzer.add(signal(rate: 800, seconds: 1), endingAt: 41)
        let window = try #require(windows.first)
        #expect(window.band == VelocityBand(low: 10, high: 312.5))
        #expect(window.binWidthHz == 1 && window.samples == 800 && window.windowSeconds == 1)
        #expect(window.rateHz == 800 && window.time == 41 && window.startTime == 40)
        #expect(window.skippedSamples == 0)
        #expect(analyzer.windowsCompleted == 1)
    }

    @Test("A square wave has a crest factor of 1")
    func squareWave() throws {
        let figures = try onlyWindow(signal(rate: 800, seconds: 1) { time in
            Vector3(x: 0, y: 0, z: sin(2 * Double.pi * 40 * time + 0.1) >= 0 ? 0.1 : -0.1)
        }, rate: 800)
        #expect(abs(figures.z.crestFactor - 1) < 0.01)
        #expect(relativeError(figures.z.accelerationRMS, 0.1) < 0.01)
        #expect(abs(figures.z.dominantHz - 40) < 0.1)
    }

    @Test("Two tones are both reported, and the band's velocity is √(v1² + v2²)",
          arguments: [(50.0, 120.0), (50, 55), (50, 53.4), (200, 43.7)])
    func twoTones(first: Double, second: Double) throws {
        let tones = [Tone(axis: .z, velocityRMS: 4.5, frequency: first), Tone(axis: .z, velocityRMS: 2, frequency: second, phase: 1)]
        let figures = try onlyWindow(signal(rate: 800, seconds: 1, tones: tones), rate: 800)
        let z = figures.z
        #expect(relativeError(z.velocityRMS, (4.5 * 4.5 + 2 * 2).squareRoot()) < 0.01)
        #expect(z.peaks.count == 2)
        for tone in tones {
            let peak = try #require(z.peaks.min { abs($0.frequencyHz - tone.frequency) < abs($1.frequencyHz - tone.frequency) })
            #expect(abs(peak.frequencyHz - tone.frequency) < 0.5, "\(peak.frequencyHz) for \(tone.frequency)")
            // Tones under five bins apart share their main lobes' bins: each one's own velocity
            // is then only roughly its own.
            let allowance = abs(second - first) < 5 ? 0.5 : 0.01
            #expect(relativeError(peak.velocityRMS, tone.velocityRMS) < allowance, "\(peak.velocityRMS) for \(tone.frequency)")
        }
        // Dominant is the stronger acceleration, which is not always the stronger velocity.
        let stronger = tones.max { $0.amplitudeG < $1.amplitudeG }!
        #expect(abs(z.dominantHz - stronger.frequency) < 0.5)
        #expect(z.peaks.first.map { abs($0.frequencyHz - stronger.frequency) < 0.5 } == true)
    }

    @Test("Gravity, a tilt and a linear drift do not count as vibration")
    func driftIgnored() throws {
        let tone = Tone(axis: .y, velocityRMS: 3, frequency: 60)
        let still = try onlyWindow(signal(rate: 800, seconds: 1, tones: [tone]), rate: 800)
        let drifting = try onlyWindow(signal(rate: 800, seconds: 1, gravity: Vector3(x: 0.17, y: -0.26, z: 0.95), tones: [tone],
                                             drift: Vector3(x: 0.02, y: -0.05, z: 0.01), start: 1000), rate: 800)
        #expect(relativeError(drifting.y.velocityRMS, still.y.velocityRMS) < 1e-6)
        #expect(relativeError(drifting.y.accelerationRMS, still.y.accelerationRMS) < 1e-6)
        #expect(drifting.x.accelerationRMS < 1e-9 && drifting.z.accelerationRMS < 1e-9)
        #expect(drifting.x.velocityRMS < 1e-9 && drifting.x.peaks.isEmpty)
    }

    @Test("A drift alone, without any vibration, reads nothing")
    func pureDrift() throws {
        let figures = try onlyWindow(signal(rate: 100, seconds: 2, drift: Vector3(x: 0.1, y: 0, z: -0.3)), rate: 100, seconds: 2)
        #expect(figures.overall.accelerationRMS < 1e-9 && figures.overall.velocityRMS < 1e-9)
        #expect(figures.overall.crestFactor.isFinite && figures.overall.peaks.isEmpty)
    }

    @Test("A tone three bins or more below 10 Hz or above the band adds under 1 % of its velocity, though it dominates",
          arguments: [4.0, 6.6, 316.0, 360, 395])
    func outsideBand(frequency: Double) throws {
        let tone = Tone(axis: .x, velocityRMS: 20, frequency: frequency)
        let figures = try onlyWindow(signal(rate: 800, seconds: 1, tones: [tone]), rate: 800)
        #expect(figures.x.velocityRMS < 0.01 * 20, "velocity \(figures.x.velocityRMS)")
        #expect(abs(figures.x.dominantHz - frequency) < 0.1)
        // The tone's own velocity is still reported with its peak; at a few hertz, 1/f changes
        // across the main lobe and the lobe's velocity is rougher.
        let peak = try #require(figures.x.peaks.first)
        #expect(relativeError(peak.velocityRMS, 20) < (frequency < 10 ? 0.05 : 0.01), "\(peak.velocityRMS)")
    }

    @Test("A tone near a band edge counts partly: the main lobe's bins inside", arguments: [7.5, 10, 312.5])
    func atEdges(frequency: Double) throws {
        let figures = try onlyWindow(signal(rate: 800, seconds: 1, tones: [Tone(axis: .x, velocityRMS: 2, frequency: frequency)]),
                                     rate: 800)
        #expect(figures.x.velocityRMS > 0 && figures.x.velocityRMS < 2)
        if frequency == 10 || frequency == 312.5 {
            // On the edge, half the lobe is inside: about 1/√2 of the velocity.
            #expect(abs(figures.x.velocityRMS / 2 - 0.5.squareRoot()) < 0.05, "\(figures.x.velocityRMS)")
        }
    }

    @Test("A tone inside the band, two bins from either edge, counts in full", arguments: [12.0, 310.5])
    func insideEdges(frequency: Double) throws {
        let figures = try onlyWindow(signal(rate: 800, seconds: 1, tones: [Tone(axis: .x, velocityRMS: 2, frequency: frequency)]),
                                     rate: 800)
        #expect(relativeError(figures.x.velocityRMS, 2) < 0.01)
    }

    @Test("White noise: its RMS, the closed-form velocity of flat noise over the band, and no peaks")
    func noiseOnly() throws {
        var noise = Noise(seed: 7)
        let sigma = 0.01
        let rate = 800.0
        let samples = signal(rate: rate, seconds: 4) { _ in noise.vector(sigma: sigma) }
        let analyzer = try VibrationAnalyzer(rateHz: rate, windowSeconds: 1)
        let windows = analyzer.add(samples, endingAt: 4)
        #expect(windows.count == 4)
        // Flat noise puts σ²/(rate/2) in each hertz; over the band, velocity² = that × ∫ df / (2πf)².
        let band = VelocityBand(rateHz: rate)!
        let metres = sigma * 9.80665 / (2 * Double.pi)
        let expected = 1000 * metres * ((1 / band.low - 1 / band.high) / (rate / 2)).squareRoot()
        let velocities = windows.map(\.x.velocityRMS)
        let mean = velocities.reduce(0, +) / Double(velocities.count)
        #expect(relativeError(mean, expected) < 0.15, "velocity \(mean), expected \(expected)")
        for window in windows {
            #expect(relativeError(window.x.accelerationRMS, sigma) < 0.06)
            #expect(relativeError(window.overall.accelerationRMS, sigma * 3.squareRoot()) < 0.06)
            #expect(window.overall.peaks.isEmpty && window.x.peaks.isEmpty)
            #expect(window.x.crestFactor > 2.5 && window.x.crestFactor < 5, "\(window.x.crestFactor) \(window.x.peak) \(window.x.accelerationRMS)")
        }
    }

    @Test("The overall figures: root-sum-square RMS, the vector's peak, the zone on the largest axis")
    func overall() throws {
        let tones = [Tone(axis: .x, velocityRMS: 3, frequency: 50), Tone(axis: .z, velocityRMS: 4, frequency: 80)]
        let figures = try onlyWindow(signal(rate: 800, seconds: 1, tones: tones), rate: 800)
        #expect(relativeError(figures.overall.velocityRMS, 5) < 0.01)
        let rss = (figures.x.accelerationRMS * figures.x.accelerationRMS + figures.z.accelerationRMS * figures.z.accelerationRMS)
            .squareRoot()
        #expect(relativeError(figures.overall.accelerationRMS, rss) < 1e-12)
        #expect(figures.overall.peak <= figures.x.peak + figures.z.peak)
        #expect(figures.overall.peak >= max(figures.x.peak, figures.z.peak))
        #expect(relativeError(figures.overall.crestFactor, figures.overall.peak / figures.overall.accelerationRMS) < 1e-12)
        #expect(abs(figures.overall.dominantHz - 80) < 0.5)
        #expect(figures.overall.peaks.count == 2)
        #expect(figures.severityAxis == .z)
        #expect(relativeError(figures.severityVelocity, 4) < 0.01)
        // 4 mm/s is zone C for class I; the overall 5 mm/s would have said D.
        #expect(figures.zone(.classI) == .c)
        #expect(figures.runningLevel(.millimetresPerSecond) == figures.overall.velocityRMS)
        #expect(figures.runningLevel(.gravities) == figures.overall.accelerationRMS)
    }
}
