#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Accelerometers
import Calibrating
import Geometry
import Level
import Persistence
import Sampling
import Settings
import SimulatedADXL345
import Thermal

/// The temperature benchmark on one part: calibrate it on the bench at two
/// temperatures with the real tumble, learn its drift in place over a day, and read it through
/// the agent's pipeline, temperature and all, over a 0 → 40 °C ramp and a 22 ± 8 °C day.
///
/// Everything the agent does with temperature is done here the agent's way: the die sensor is
/// read by the sampler once a second and every batch's value goes into a ``TemperatureTracker``
/// (the agent's `TemperatureState`), or, on the ADXL345, which has no sensor, a simulated
/// `mqtt:` thermometer publishes into it; each tumble's `temperature_c` is what Plumb knew
/// during it; the tumbles merge with ``CalibrationRecord/merging(_:)``; the learning is a
/// ``DriftLearning`` fed as `feedDriftLearning` feeds it, and applied with
/// ``CalibrationRecord/withLearnedDrift(_:)``.
public struct TemperatureBenchmark {
    public let chip: BenchChip
    public let options: TemperatureOptions
    public let seed: UInt64

    /// A random typical part of `model` (its drift drawn from the datasheet's typical figures).
    public init(seed: UInt64, model: BenchChipModel, options: TemperatureOptions = TemperatureOptions()) {
        self.init(chip: BenchChip(model: model, seed: seed), seed: seed, options: options)
    }

    /// Any chip.
    public init(chip: BenchChip, seed: UInt64 = 0, options: TemperatureOptions = TemperatureOptions()) {
        self.chip = chip
        self.seed = seed
        self.options = options
    }

    /// Every figure for this part.
    public func run() throws -> TemperaturePartFigures {
        try TemperatureRunState(chip: chip, options: options, seed: seed).run()
    }
}

/// The mutable state of one part's run: the tracker, the time fed up to, the pipelines.
private final class TemperatureRunState {
    let chip: BenchChip
    let options: TemperatureOptions
    let seed: UInt64
    /// The agent's operating point for the chip: its rate nearest the default 100 Hz and its noise.
    let point: OperatingPoint
    /// Whether the die sensor is the source (`sensor.temperature: chip`); else the thermometer.
    let readsChip: Bool
    var tracker = TemperatureTracker()
    /// The latest time the tracker was fed a value.
    var fedUntil = -Double.infinity
    var figures: TemperaturePartFigures

    init(chip: BenchChip, options: TemperatureOptions, seed: UInt64) {
        self.chip = chip
        self.options = options
        self.seed = seed
        point = chip.driver.chip.operatingPoint(rateHz: ChipBenchmark.agentSettings.sampleRateHz)
        readsChip = chip.driver.chip.temperature != nil
        figures = TemperaturePartFigures(seed: seed)
    }

    var samplesPerBlock: Int { SampleBatch.samplesPerBlock(rateHz: chip.rateHz) }

    /// The agent's pipeline settings for `record`, as `AgentCore.pipelineSettings` builds them.
    func settings(_ record: CalibrationRecord) -> PipelineSettings {
        let thermal = ThermalCompensation(record: record, chip: chip.driver.chip, rangeG: chip.rangeG, operatingPoint: point)
        return ChipBenchmark.agentSettings.pipelineSettings(calibration: record.calibration, chip: point, thermal: thermal)
    }

    // MARK: The temperature source

    /// The thermometer's `index`-th message (at `index` × its interval): the true temperature
    /// then, plus its noise, quantised, a fixed function of the seed so every run is the same.
    func thermometer(_ index: Int) -> (time: Double, celsius: Double) {
        let time = Double(index) * options.thermometerIntervalSeconds
        var generator = SplitMix64(seed: seed ^ 0x7E3A_3E70_0000_0000 ^ UInt64(bitPattern: Int64(index)) &* 0x9E37_79B9_7F4A_7C15)
        // Box–Muller: one normal from two uniforms.
        let u1 = max(generator.nextUnit(), .leastNormalMagnitude), u2 = generator.nextUnit()
        let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        let value = chip.simulator.dieTemperature(at: time) + options.thermometerNoiseCelsius * normal
        let step = options.thermometerStepCelsius
        return (time, step > 0 ? (value / step).rounded() * step : value)
    }

    /// The thermometer's messages after `after` up to `through`, seconds.
    func messages(after: Double, through: Double) -> [(time: Double, celsius: Double)] {
        let interval = options.thermometerIntervalSeconds
        guard through > after, interval > 0 else { return [] }
        let first = Int((after / interval).rounded(.down)) + 1, last = Int((through / interval).rounded(.down))
        guard first <= last else { return [] }
        return (first...last).map(thermometer)
    }

    func accept(_ celsius: Double, at time: Double) {
        // A value the tracker refuses is what the agent ignores too (none do here).
        try? tracker.accept(celsius: celsius, at: time)
        fedUntil = max(fedUntil, time)
    }

    /// Feeds the tracker across the jump up to `time`: the source's values of the last
    /// ``TemperatureOptions/trackerLeadSeconds``; the die sensor read through the driver with the
    /// chip measuring (``TemperatureOptions/leadReadIntervalSeconds``), or the thermometer's
    /// messages as they come (the chip stays in standby).
    func feedAcrossJump(until time: Double) throws {
        let from = max(fedUntil, time - options.trackerLeadSeconds)
        if readsChip {
            let interval = options.leadReadIntervalSeconds
            var t = from + interval
            guard t < time else { return chip.clock.advance(to: time) }
            chip.clock.advance(to: from)
            // Measuring, so the sensor converts; the reading restarts the chip, so nothing in its
            // FIFO from now is ever read.
            _ = try chip.driver.start(chip.request)
            defer { try? chip.driver.stop() }
            while t < time {
                chip.clock.advance(to: t)
                if let celsius = try chip.driver.dieTemperature() { accept(celsius, at: t) }
                t += interval
            }
        } else {
            for message in messages(after: from, through: time) { accept(message.celsius, at: message.time) }
        }
        chip.clock.advance(to: time)
    }

    /// What the agent takes with a batch: its die temperature (every batch carries the last read),
    /// or the thermometer's messages that arrived meanwhile.
    func feed(_ batch: SampleBatch) {
        if readsChip {
            if let celsius = batch.dieCelsius { accept(celsius, at: batch.time) }
        } else {
            for message in messages(after: fedUntil, through: batch.time) { accept(message.celsius, at: message.time) }
        }
    }

    // MARK: Calibration on the bench

    /// The six-point tumble with the part held at `celsius`, its `temperature_c` what Plumb knew:
    /// the die sensor's mean over the session, or the thermometer's messages during it.
    func tumble(at celsius: Double) throws -> CalibrationRecord {
        chip.simulator.setTemperature(celsius)
        let start = chip.clock.now()
        let tumble = try chip.calibrateSixPointReadingTemperature()
        var record = tumble.record
        let known: Double?
        if readsChip {
            known = tumble.meanCelsius
        } else {
            // The messages during the tumble (at least one: six 6 s faces outlast the interval),
            // as the agent averages the tracker's values over a tumble.
            let heard = messages(after: start, through: chip.clock.now())
            known = heard.isEmpty ? nil : heard.map(\.celsius).reduce(0, +) / Double(heard.count)
        }
        // As the agent records it (AgentCore+SixPoint): two decimals.
        record.temperatureC = known.map { $0.rounded(toDecimals: 2) }
        if let known { figures.tumbleCelsius.append(known) }
        return record
    }

    // MARK: Readings

    /// What one reading point gave one compensation.
    struct PointResult {
        var samples: [CoverageSample] = []
        var gravitySum = Vector3.zero
    }

    /// Reads ``TemperatureOptions/readingSeconds`` at `time` in `pose` through a fresh pipeline
    /// per entry of `compensations` (the agent restarts its window after a pause), and hands
    /// every measurement to `each` (for the learning).
    func read(at time: Double, pose: SimulatedPose, compensations: [(TemperatureCompensation, PipelineSettings)],
              each: (Int, Measurement, TemperatureReading) -> Void = { _, _, _ in }) throws -> [PointResult] {
        try feedAcrossJump(until: time)
        var pipelines = compensations.map { LevelPipeline(settings: $0.1) }
        var results = Array(repeating: PointResult(), count: compensations.count)
        let sampler = try chip.startSampling(in: pose)
        defer { try? chip.driver.stop() }
        let windowBlocks = compensations.first?.1.windowBlocks ?? 1
        let readings = max(1, Int((options.readingSeconds / ChipBenchmark.agentSettings.averageWindowS).rounded()))
        let truth = pose.gravity
        for block in 1...(readings * windowBlocks) {
            let batch = try sampler.nextBatch(samples: samplesPerBlock)
            feed(batch)
            let temperature = tracker.reading(at: batch.time)
            for index in pipelines.indices {
                guard let measurement = pipelines[index].add(batch, temperature: temperature) else { continue }
                each(index, measurement, temperature)
                // Non-overlapping 1 s readings: one each time the window has filled afresh.
                guard block % windowBlocks == 0 else { continue }
                let error = Self.angle(measurement.levelGravity, truth)
                results[index].samples.append(CoverageSample(error: error, bound: measurement.uncertainty.bound.degrees,
                                                             dominant: measurement.uncertainty.dominant))
                results[index].gravitySum += measurement.levelGravity
            }
        }
        return results
    }

    /// The angle between two directions, degrees: the tilt error (the budget's bound is of it).
    static func angle(_ a: Vector3, _ b: Vector3) -> Double {
        atan2(a.cross(b).magnitude, a.dot(b)) * 180 / Double.pi
    }

    /// Keeps one point's results for each compensation on `run`.
    func keep(_ results: [PointResult], for compensations: [(TemperatureCompensation, PipelineSettings)], run: TemperatureRun,
              truth: Vector3) {
        for (index, (compensation, _)) in compensations.enumerated() {
            let result = results[index]
            guard !result.samples.isEmpty else { continue }
            let key = TemperaturePartFigures.Key(compensation, run)
            let meanError = Self.angle(result.gravitySum, truth)
            figures.worst[key] = max(figures.worst[key] ?? 0, meanError)
            figures.worstOneSecond[key] = max(figures.worstOneSecond[key] ?? 0, result.samples.map(\.error).max() ?? 0)
            figures.readings[key, default: []].append(contentsOf: result.samples)
        }
    }

    func pose(_ tilt: (roll: Double, pitch: Double)) -> SimulatedPose {
        SimulatedPose(roll: Angle(degrees: tilt.roll), pitch: Angle(degrees: tilt.pitch))
    }

    // MARK: The run

    func run() throws -> TemperaturePartFigures {
        let start = chip.clock.now()

        // 1. The bench: 15 and 30 °C merged, and the single 22 °C tumble.
        let benchTumbles = try options.benchCelsius.map(tumble(at:))
        var bench = benchTumbles[0]
        var merge: CalibrationMerge?
        for next in benchTumbles.dropFirst() {
            merge = bench.merging(next)
            bench = merge?.record ?? next
        }
        guard let merge, case .fitted = merge.outcome else {
            throw TemperatureBenchmarkError(
                description: "seed \(seed): the bench tumbles fitted no drift: \(merge?.message ?? "one tumble")")
        }
        figures.benchDrift = bench.drift
        let single = try tumble(at: options.singleCelsius)
        var records: [TemperatureCompensation: CalibrationRecord] = [.uncompensated: single, .bench: bench]

        // 2. The first day: learning in place from each calibration, the machine never moved.
        let period = options.cyclePeriodSeconds
        let cycleStart = chip.clock.now() + options.settleSeconds
        chip.simulator.setTemperatureProfile(.cycle(mean: options.cycleMeanCelsius, amplitude: options.cycleAmplitudeCelsius,
                                                    period: period, start: cycleStart))
        let learners: [(TemperatureCompensation, PipelineSettings)] = [(.learnedFromBench, settings(bench)),
                                                                       (.learnedFromSingle, settings(single))]
        var learnings = learners.map { _ in DriftLearning(startedAt: cycleStart) }
        let points = max(1, Int((period / options.cycleSpacingSeconds).rounded(.down)))
        let mounted = pose(options.learningPose)
        for index in 0..<points {
            _ = try read(at: cycleStart + Double(index) * options.cycleSpacingSeconds, pose: mounted,
                         compensations: learners) { which, measurement, temperature in
                // As feedDriftLearning: the raw reading, the correction in force undone.
                let settings = learners[which].1
                guard let raw = settings.thermal.raw(correctedTo: measurement.deviceGravity, by: settings.calibration,
                                                     temperature: temperature) else { return }
                _ = learnings[which].add(raw: raw, celsius: temperature.celsius, stable: measurement.isStable,
                                         at: measurement.time)
            }
        }
        for (index, (compensation, _)) in learners.enumerated() {
            let base = compensation == .learnedFromBench ? bench : single
            do {
                let model = try learnings[index].finish(at: chip.clock.now())
                let record = base.withLearnedDrift(model)
                records[compensation] = record
                figures.learned[compensation] = record.drift
            } catch {
                figures.learningFailures[compensation] = "\(error)"
            }
        }
        let measured = TemperatureCompensation.allCases.compactMap { compensation in
            records[compensation].map { (compensation, settings($0)) }
        }

        // 3. The second day, measured at the tilts in turn.
        let dayTwo = cycleStart + period
        for index in 0..<points {
            let tilt = options.tilts[index % options.tilts.count]
            let results = try read(at: dayTwo + Double(index) * options.cycleSpacingSeconds, pose: pose(tilt),
                                   compensations: measured)
            keep(results, for: measured, run: .cycle, truth: pose(tilt).gravity)
        }

        // 4. The ramp: held at its start, then a straight line to its end.
        let rampSet = max(chip.clock.now(), dayTwo + period)
        chip.clock.advance(to: rampSet)
        let ramp = AttitudeScript(steps: [
            .init(pose: .level, duration: options.settleSeconds, temperature: options.rampFromCelsius),
            .init(pose: .level, duration: options.rampSeconds, temperature: options.rampToCelsius),
        ])!
        chip.simulator.setTemperatureProfile(.scripted(ramp, start: rampSet, base: .constant(options.rampFromCelsius)))
        let rampStart = rampSet + options.settleSeconds
        let rampPoints = max(1, Int((options.rampSeconds / options.rampSpacingSeconds).rounded(.down)))
        for index in 0...rampPoints {
            let tilt = options.tilts[index % options.tilts.count]
            let results = try read(at: rampStart + Double(index) * options.rampSpacingSeconds, pose: pose(tilt),
                                   compensations: measured)
            keep(results, for: measured, run: .ramp, truth: pose(tilt).gravity)
        }
        figures.simulatedSeconds = chip.clock.now() - start
        return figures
    }
}
