import Accelerometers
import Geometry
import I2C
import Level

/// Counters for `health` and benchmarks.
public struct SamplerStatistics: Sendable, Hashable {
    /// Samples delivered.
    public var samples = 0
    /// Drains that found the chip's buffer full: samples may have been lost before them.
    public var overruns = 0
    /// Samples clipped at the range limit.
    public var clipped = 0
    /// Times the sampler woke to drain the chip.
    public var wakeUps = 0

    public init() {}

    /// Counts added up, for totals across restarts of the chip.
    public static func + (a: Self, b: Self) -> Self {
        var sum = a
        sum.samples += b.samples
        sum.overruns += b.overruns
        sum.clipped += b.clipped
        sum.wakeUps += b.wakeUps
        return sum
    }
}

/// Paces reads of an ``Accelerometer``'s buffer and hands the raw samples on in batches
/// (``SampleBatch``), which the ``LevelPipeline`` and the vibration analysis measure.
///
/// It sleeps about one watermark's worth of samples between drains, so a 800 Hz stream costs
/// tens of wake-ups a second, not hundreds. The chip is drained into a buffer the sampler keeps
/// and reuses; each batch's samples are copied out of it once, into the batch's own array, and
/// nothing copies them after that (see ``SampleBatch``). Not thread-safe: one task owns a sampler.
public final class Sampler {
    /// The chip being read.
    public let chip: any Accelerometer
    /// The clock used to pace drains.
    public let clock: any PacingClock
    /// What the chip runs with, once started.
    /// What the last ``start(_:)`` probe read: the model and identification register.
    public private(set) var identity: ChipIdentity?
    public private(set) var settings: SamplingSettings?
    /// Counters since start.
    public private(set) var statistics = SamplerStatistics()

    /// The drain buffer: samples drained and not yet batched start at `pendingStart`.
    private var pending: [Vector3] = []
    private var pendingStart = 0
    /// Indices into `pending` where samples were lost before (a drain that found the buffer full).
    private var gaps: [Int] = []
    /// When the chip was last drained: the next drain waits for a watermark's worth since.
    private var lastDrain = -Double.infinity
    /// When the last drain that brought samples returned, on ``clock``: the newest sample in
    /// `pending` arrived then.
    private var newestArrival = 0.0
    /// The die temperature as last read, and when; nil for a chip without a sensor.
    private var dieCelsius: Double?
    private var dieReadAt = -Double.infinity

    /// How often the die temperature is read, in seconds: it changes over minutes, and each read
    /// is one short bus transaction beside the drains.
    public static let temperatureIntervalSeconds = 1.0

    public init(chip: any Accelerometer, clock: any PacingClock = MonotonicPacingClock()) {
        self.chip = chip
        self.clock = clock
    }

    /// Probes and starts the chip.
    @discardableResult
    public func start(_ request: SamplingRequest) throws(SensorError) -> SamplingSettings {
        identity = try chip.probe()
        let settings = try chip.start(request)
        self.settings = settings
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        gaps.removeAll()
        lastDrain = -.infinity
        newestArrival = clock.now()
        dieCelsius = nil
        dieReadAt = -.infinity
        // The first sample arrives about one period plus 1.1 ms after Measure.
        clock.sleep(seconds: 1 / settings.rateHz + 0.0011)
        return settings
    }

    /// Blocks until `count` samples have arrived, and returns them as a batch: the oldest
    /// `count` samples not yet batched, raw, in one new array (the one copy out of the drain
    /// buffer), stamped with the time of their newest sample and the chip's rate.
    ///
    /// The time is when the drain that brought the newest sample returned, less one sample
    /// period for each sample drained after it: samples left over for the next batch arrived
    /// later than this batch's last.
    ///
    /// - Throws: ``SensorError`` on a bus failure, or `.noData` when the chip delivers nothing for
    ///   much longer than its rate implies (it lost power and fell back to standby, say).
    public func nextBatch(samples count: Int) throws(SensorError) -> SampleBatch {
        guard let settings else {
            throw .invalidSetting("the sampler was not started; call start(_:) first.")
        }
        let wanted = max(1, count)
        let period = 1 / settings.rateHz
        // Generous: several buffer-fulls of silence, and never under half a second.
        let silenceLimit = max(0.5, Double(settings.bufferCapacity) * period * 3)
        var lastProgress = clock.now()
        while pending.count - pendingStart < wanted {
            // A whole watermark since the last drain, even when fewer are missing or the last
            // reading ended moments ago: a drain costs a bus transaction however few it reads.
            clock.sleep(seconds: lastDrain + Double(settings.watermark) * period - clock.now())
            let before = pending.count
            let report = try chip.drain(into: &pending)
            lastDrain = clock.now()
            statistics.wakeUps += 1
            statistics.samples += report.count
            statistics.clipped += report.clipped
            if report.overrun {
                statistics.overruns += 1
                // The lost samples came before the first one this drain brought.
                gaps.append(before)
            }
            let now = clock.now()
            if pending.count > before {
                lastProgress = now
                // The samples the driver left in the chip arrived after the newest one drained.
                newestArrival = now - Double(report.remaining) * period
            } else if now - lastProgress > silenceLimit {
                throw .noData(model: type(of: chip).model, seconds: now - lastProgress, bus: chip.bus.name)
            }
        }
        try readDieTemperatureIfDue()
        let end = pendingStart + wanted
        let samples = Array(pending[pendingStart..<end])
        let time = newestArrival - Double(pending.count - end) * period
        // The last loss inside this batch: what follows it is contiguous to the batch's end.
        let gapIndex = gaps.last { $0 < end }.map { $0 - pendingStart }
        gaps.removeAll { $0 < end }
        pendingStart = end
        compact()
        return SampleBatch(samples: samples, time: time, rateHz: settings.rateHz, gapIndex: gapIndex,
                           dieCelsius: dieCelsius)
    }

    /// Reads the die temperature once ``temperatureIntervalSeconds`` have passed since the last
    /// read, for a chip with a sensor.
    ///
    /// - Throws: the bus's ``SensorError``: the sensor shares the bus, so a failing read is the
    ///   chip failing.
    private func readDieTemperatureIfDue() throws(SensorError) {
        guard chip.chip.temperature != nil else { return }
        let now = clock.now()
        guard now - dieReadAt >= Self.temperatureIntervalSeconds else { return }
        dieReadAt = now
        dieCelsius = try chip.dieTemperature()
    }

    /// Drops consumed samples once they dominate the buffer, so it never grows without bound.
    private func compact() {
        if pendingStart >= 1024 || pendingStart == pending.count {
            pending.removeFirst(pendingStart)
            for index in gaps.indices { gaps[index] -= pendingStart }
            pendingStart = 0
        }
    }
}
