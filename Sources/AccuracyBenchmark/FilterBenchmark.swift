#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Accelerometers
import Geometry
import Level
import Sampling
import Settings
import SimulatedADXL345

/// The vibration benchmark of the `filter` setting (docs/development/benchmarks.md, "Benchmarks"): a simulated ADXL345
/// shaken on every axis, read by the real driver and sampler into the agent's ``LevelPipeline``
/// with each ``GravityFilter``, in simulated time.
///
/// One case is a rate, a vibration (or none) and a filter. Its chip is ideal but for the
/// datasheet's noise, so every error here is the filter's: vibration let through, or lag.
public struct FilterBenchmark: Sendable {
    /// What each case runs; the defaults are what `make bench` runs.
    public struct Options: Sendable {
        /// The vibration's peak acceleration on every axis, in g.
        public var amplitude = 0.2
        /// Simulated seconds sitting at the tolerance: the error, 1σ and transition figures.
        public var sittingSeconds = 600.0
        /// Seconds at the start of a run that no figure counts: the window and the low-pass
        /// filling.
        public var warmUpSeconds = 5.0
        /// Steps of 1° per case for the settling figure, each at another point of a block.
        public var settlingSteps = 9
        /// Seconds after each step that the reading must stay within the band; the settled
        /// reading is the mean of the last half of them.
        public var settlingHorizon = 6.0
        /// The settling band, in degrees.
        public var settlingBand = 0.05
        /// Seed of the chip's noise.
        public var seed: UInt64 = 0x0F11_7E25

        public init() {}
    }

    /// One case's figures.
    public struct Figures: Sendable {
        public var rateHz: Double
        /// The vibration's frequency, in Hz; nil for none.
        public var frequencyHz: Double?
        public var filter: GravityFilter
        /// The mean of the tilt readings less the true tilt, in degrees: the systematic error.
        public var tiltError = 0.0
        /// The largest |tilt reading − true tilt| of any reading, in degrees: for contrast.
        public var worstTiltError = 0.0
        /// 1σ of consecutive, non-overlapping 1 s readings, the worse of roll and pitch, in degrees.
        public var sigma = 0.0
        /// Level entered or left per minute, sitting exactly at the tolerance.
        public var transitionsPerMinute = 0.0
        /// Seconds from a 1° step to the reading staying within the band: the median of the steps,
        /// and the slowest. The horizon when a step never settled.
        public var settling = 0.0
        public var slowestSettling = 0.0
        /// Simulated seconds the case ran for.
        public var simulatedSeconds = 0.0

        public init(rateHz: Double, frequencyHz: Double?, filter: GravityFilter) {
            self.rateHz = rateHz
            self.frequencyHz = frequencyHz
            self.filter = filter
        }

        /// Whether the targets are met: error ≤ 0.05°, 1σ ≤ 0.02°, ≤ 2 transitions a
        /// minute.
        public var meetsTargets: Bool {
            abs(tiltError) <= FilterBenchmark.errorTarget && sigma <= FilterBenchmark.sigmaTarget
                && transitionsPerMinute <= FilterBenchmark.transitionTarget
        }
    }

    /// The targets: tilt error, 1σ of 1 s means (degrees), level transitions a minute.
    public static let errorTarget = 0.05
    public static let sigmaTarget = 0.02
    public static let transitionTarget = 2.0

    public let options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The agent's live settings at their defaults, at `rateHz`.
    public static func agentSettings(rateHz: Double) -> LiveSettings {
        var settings = LiveSettings()
        settings.sampleRateHz = rateHz
        return settings
    }

    /// The agent's pipeline at `rateHz` with `filter`, reading raw (an ideal chip needs no
    /// calibration).
    public static func pipelineSettings(rateHz: Double, filter: GravityFilter) -> PipelineSettings {
        var settings = agentSettings(rateHz: rateHz).pipelineSettings(
            calibration: .identity, chip: ADXL345.description.operatingPoint(rateHz: rateHz))
        settings.filter = filter
        return settings
    }

    /// The scene: held at `roll`/`pitch`, shaken by ``Options/amplitude`` at `frequencyHz` on
    /// every axis (`SimulatedScene.vibration`), or still without a frequency.
    func scene(roll: Angle, pitch: Angle, frequencyHz: Double?) -> SimulatedScene {
        guard let frequencyHz else { return .still(roll: roll, pitch: pitch) }
        return .vibration(roll: roll, pitch: pitch, amplitude: options.amplitude, frequency: frequencyHz)
    }

    /// Every figure of one case.
    public func run(rateHz: Double, frequencyHz: Double?, filter: GravityFilter) throws -> Figures {
        var figures = Figures(rateHz: rateHz, frequencyHz: frequencyHz, filter: filter)
        let chip = BenchChip(configuration: SimulatedADXL345.Configuration(seed: options.seed))
        let start = chip.clock.now()
        try sit(chip, rateHz: rateHz, frequencyHz: frequencyHz, filter: filter, into: &figures)
        var times: [Double] = []
        for step in 0..<max(1, options.settlingSteps) {
            times.append(try settle(chip, rateHz: rateHz, frequencyHz: frequencyHz, filter: filter,
                                    phase: ChipBenchmark.phase(options.seed &+ UInt64(step))))
        }
        times.sort()
        figures.settling = times[times.count / 2]
        figures.slowestSettling = times[times.count - 1]
        figures.simulatedSeconds = chip.clock.now() - start
        return figures
    }

    /// Starts the sampler on `chip` at `rateHz` and ±16 g, the agent's range.
    private func sampler(_ chip: BenchChip, rateHz: Double) throws(SensorError) -> Sampler {
        let sampler = Sampler(chip: chip.driver, clock: chip.clock)
        try sampler.start(SamplingRequest(rateHz: rateHz, rangeG: chip.rangeG))
        return sampler
    }

    /// Sits at exactly the level tolerance (half of it in roll and pitch each, so both axes'
    /// vibration counts) for ``Options/sittingSeconds``: the tilt error, 1σ and transitions.
    private func sit(_ chip: BenchChip, rateHz: Double, frequencyHz: Double?, filter: GravityFilter,
                     into figures: inout Figures) throws {
        let settings = Self.pipelineSettings(rateHz: rateHz, filter: filter)
        let tolerance = settings.thresholds.tolerance
        // Roll and pitch of equal size whose tilt is exactly the tolerance.
        let half = Angle(radians: atan(tan(tolerance.radians) / 2.0.squareRoot()))
        let truth = Attitude(gravity: Attitude.gravity(roll: half, pitch: half))
        chip.simulator.setScene(scene(roll: half, pitch: half, frequencyHz: frequencyHz))
        let sampler = try sampler(chip, rateHz: rateHz)
        defer { try? chip.driver.stop() }
        var pipeline = LevelPipeline(settings: settings)
        let perBlock = SampleBatch.samplesPerBlock(rateHz: rateHz)
        let blocks = Int((options.sittingSeconds * rateHz / Double(perBlock)).rounded())
        let warmUp = Int((options.warmUpSeconds * rateHz / Double(perBlock)).rounded())
        var errors: [Double] = [], rolls: [Double] = [], pitches: [Double] = []
        var transitions = 0
        for index in 0..<(warmUp + blocks) {
            guard let measurement = pipeline.add(try sampler.nextBatch(samples: perBlock)), index >= warmUp else {
                continue
            }
            errors.append(measurement.attitude.tilt.degrees - truth.tilt.degrees)
            transitions += measurement.events.filter { $0 == .levelEntered || $0 == .levelLeft }.count
            // Consecutive, non-overlapping windows: one reading a window length.
            if (index - warmUp) % settings.windowBlocks == settings.windowBlocks - 1 {
                rolls.append(measurement.attitude.roll.degrees)
                pitches.append(measurement.attitude.pitch.degrees)
            }
        }
        figures.tiltError = errors.mean
        figures.worstTiltError = errors.map(abs).max() ?? .nan
        figures.sigma = max(ChipBenchmark.standardDeviation(rolls), ChipBenchmark.standardDeviation(pitches))
        figures.transitionsPerMinute = Double(transitions) / (options.sittingSeconds / 60)
    }

    /// Seconds from one 1° step of roll, its edge at `phase` (0…1) of a block, to the reading
    /// staying within the band of the angle it settles at, to the end of the horizon; the whole
    /// horizon when it never does. The vibration runs on through the step, phase and all: only
    /// the attitude changes.
    private func settle(_ chip: BenchChip, rateHz: Double, frequencyHz: Double?, filter: GravityFilter,
                        phase: Double) throws -> Double {
        let settings = Self.pipelineSettings(rateHz: rateHz, filter: filter)
        chip.simulator.setScene(scene(roll: .zero, pitch: .zero, frequencyHz: frequencyHz))
        let sampler = try sampler(chip, rateHz: rateHz)
        defer { try? chip.driver.stop() }
        var pipeline = LevelPipeline(settings: settings)
        let perBlock = SampleBatch.samplesPerBlock(rateHz: rateHz)
        let block = Double(perBlock) / rateHz
        // Steady first: the window full, the low-pass long past its start.
        let steady = Int((options.warmUpSeconds / block).rounded())
        for _ in 0..<steady { pipeline.add(try sampler.nextBatch(samples: perBlock)) }
        // The edge between two samples, `phase` of a block on from where the sampler is.
        chip.clock.advance(by: block * phase)
        let stepTime = chip.clock.now()
        chip.simulator.setScene(scene(roll: Angle(degrees: 1), pitch: .zero, frequencyHz: frequencyHz))
        var readings: [(time: Double, attitude: Attitude)] = []
        while (readings.last?.time ?? stepTime) - stepTime < options.settlingHorizon {
            guard let measurement = pipeline.add(try sampler.nextBatch(samples: perBlock)),
                  measurement.time >= stepTime else { continue }
            readings.append((measurement.time, measurement.attitude))
        }
        let settled = readings.filter { $0.time - stepTime >= options.settlingHorizon / 2 }
        let final = (roll: settled.map(\.attitude.roll.degrees).mean, pitch: settled.map(\.attitude.pitch.degrees).mean)
        let errors = readings.map {
            (time: $0.time, error: max(abs($0.attitude.roll.degrees - final.roll), abs($0.attitude.pitch.degrees - final.pitch)))
        }
        return ChipBenchmark.settlingTime(errors, stepTime: stepTime, band: options.settlingBand)
    }

    /// The pipeline's own cost per sample with `filter`, in seconds of CPU: `seconds` of samples at
    /// `rateHz` under the vibration, drained first, then timed through ``LevelPipeline/add(_:)``
    /// alone (the simulator's cost of making them is not the agent's).
    public func pipelineCost(rateHz: Double, frequencyHz: Double?, filter: GravityFilter, seconds: Double,
                             clock: any PacingClock = MonotonicPacingClock()) throws -> Double {
        let chip = BenchChip(configuration: SimulatedADXL345.Configuration(seed: options.seed))
        chip.simulator.setScene(scene(roll: Angle(degrees: 0.07), pitch: Angle(degrees: 0.07), frequencyHz: frequencyHz))
        let sampler = try sampler(chip, rateHz: rateHz)
        defer { try? chip.driver.stop() }
        let perBlock = SampleBatch.samplesPerBlock(rateHz: rateHz)
        let batches = try (0..<Int((seconds * rateHz / Double(perBlock)).rounded())).map { _ in
            try sampler.nextBatch(samples: perBlock)
        }
        var pipeline = LevelPipeline(settings: Self.pipelineSettings(rateHz: rateHz, filter: filter))
        // The first batch designs the filter and works out its noise figures, once: not timed.
        pipeline.add(batches[0])
        let begin = clock.now()
        var sink = 0.0
        for batch in batches.dropFirst() {
            sink += pipeline.add(batch)?.attitude.tilt.radians ?? 0
        }
        let elapsed = clock.now() - begin
        return sink.isNaN ? .nan : elapsed / Double((batches.count - 1) * perBlock)
    }
}
