import Accelerometers
import Geometry
import Level
import Sampling
import Settings
import SimulatedADXL345

/// The two figures that watch the agent's pipeline over time: repeatability and settling. Both use
/// the agent's own settings, 1 s window included, since they are about the readings it publishes.
extension ChipBenchmark {
    /// 1σ of consecutive, non-overlapping 1 s means at the chip's rate (100 Hz; 125 on the ADXL355) with the chip still and level: the
    /// agent's reading taken once per window length. The worse of roll and pitch, in degrees.
    public func repeatability(_ calibration: Calibration) throws -> Double {
        let settings = Self.agentPipeline(calibration)
        let sampler = try chip.startSampling(in: .level)
        defer { try? chip.driver.stop() }
        var pipeline = LevelPipeline(settings: chip.judged(settings))
        let windows = max(2, Int((options.repeatabilitySeconds / Self.agentSettings.averageWindowS).rounded()))
        var rolls: [Double] = [], pitches: [Double] = []
        for _ in 0..<windows {
            var latest: Measurement?
            for _ in 0..<settings.windowBlocks {
                latest = pipeline.add(try sampler.nextBatch(samples: samplesPerBlock))
            }
            guard let attitude = latest?.attitude else { continue }
            rolls.append(attitude.roll.degrees)
            pitches.append(attitude.pitch.degrees)
        }
        return max(Self.standardDeviation(rolls), Self.standardDeviation(pitches))
    }

    /// Seconds from a 1° step of roll to the agent's reading staying within the band of the
    /// angle it settles at: the median over ``AccuracyOptions/settlingSteps`` steps, each at
    /// another point of a block.
    ///
    /// The median, because the band (0.05°) is only about 3σ of a 1 s reading's noise: the worst
    /// of a single step per chip measures the noise's tail as much as the response. The noise is
    /// the repeatability row's business; this row is about how fast the reading follows.
    /// Returns the median and, for contrast, the slowest step.
    public func settling(_ calibration: Calibration) throws -> (median: Double, slowest: Double) {
        var times: [Double] = []
        for step in 0..<max(1, options.settlingSteps) {
            times.append(try settlingOnce(calibration, phase: Self.phase(seed &* 31 &+ UInt64(step))))
        }
        times.sort()
        return (times[times.count / 2], times[times.count - 1])
    }

    /// Seconds from one 1° step of roll, its edge at `phase` (0…1) of a block, to the agent's
    /// reading staying within the band of the angle it settles at, to the end of
    /// ``AccuracyOptions/settlingHorizon``.
    ///
    /// The band is around the final reading (the mean of the readings whose window lies wholly
    /// after the step), not the true 1°: how far the final reading is from the truth is the
    /// accuracy rows' business, and a chip 0.04° off would otherwise count its calibration error
    /// and the reading's noise (0.017° at 1σ) as never settling.
    ///
    /// The step is the simulator's own square wave, its edge between two samples, as a real
    /// knock would fall; the sampler runs on undisturbed. The time runs to the reading's time
    /// stamp, when the agent has it.
    func settlingOnce(_ calibration: Calibration, phase: Double) throws -> Double {
        let settings = Self.agentPipeline(calibration)
        let sampler = try chip.startSampling(in: .level)
        defer { try? chip.driver.stop() }
        var pipeline = LevelPipeline(settings: chip.judged(settings))
        let block = Double(samplesPerBlock) / chip.rateHz
        let window = Double(settings.windowBlocks) * block
        // Two windows at 0° first, so the window is full and steady before the step.
        for _ in 0..<(2 * settings.windowBlocks) {
            pipeline.add(try sampler.nextBatch(samples: samplesPerBlock))
        }
        // `square` is level during even periods and stepped during odd ones: with the period
        // set to the step's time, the first edge is the step and the next is far beyond the run.
        let stepTime = chip.clock.now() + block * (1 + phase)
        chip.simulator.setScene(.square(roll: .zero, pitch: .zero, step: Angle(degrees: 1), period: stepTime))
        var readings: [(time: Double, attitude: Attitude)] = []
        while (readings.last?.time ?? stepTime) - stepTime < window + options.settlingHorizon {
            guard let measurement = pipeline.add(try sampler.nextBatch(samples: samplesPerBlock)),
                  measurement.time >= stepTime else { continue }
            readings.append((measurement.time, measurement.attitude))
        }
        // A block beyond the window, so no block that straddles the step is in the final value.
        let settled = readings.filter { $0.time - stepTime >= window + block }
        let final = (roll: settled.map(\.attitude.roll.degrees).mean, pitch: settled.map(\.attitude.pitch.degrees).mean)
        let errors = readings.map {
            (time: $0.time, error: max(abs($0.attitude.roll.degrees - final.roll), abs($0.attitude.pitch.degrees - final.pitch)))
        }
        return Self.settlingTime(errors, stepTime: stepTime, band: options.settlingBand)
    }

    /// The time from `stepTime` to the first reading from which every later one is within
    /// `band`; the whole span when the last one is outside it.
    static func settlingTime(_ readings: [(time: Double, error: Double)], stepTime: Double, band: Double) -> Double {
        guard let lastOutside = readings.lastIndex(where: { $0.error > band }) else {
            return max(0, (readings.first?.time ?? stepTime) - stepTime)
        }
        let settled = readings.index(after: lastOutside)
        return (settled < readings.endIndex ? readings[settled].time : readings[lastOutside].time) - stepTime
    }

    /// A fraction of a block, 0…1, the same for the same seed.
    static func phase(_ seed: UInt64) -> Double {
        // SplitMix64's finaliser: spreads consecutive seeds over the whole range.
        var z = seed &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }

    /// The sample standard deviation; 0 for fewer than two values.
    static func standardDeviation(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let mean = values.mean
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (squares / Double(values.count - 1)).squareRoot()
    }
}

extension [Double] {
    /// The arithmetic mean; NaN when empty.
    var mean: Double { reduce(0, +) / Double(count) }
}
