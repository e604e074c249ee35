import Accelerometers
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
import I2C
#endif
import Geometry
import Level
import PlumbSync
import Sampling

/// What the sampling thread reports to the agent.
public enum SamplingUpdate: Sendable {
    /// About a tenth of a second of raw samples, device frame (``SampleBatch``), with the
    /// counters since the service started (summed across restarts of the chip). The batch's
    /// array is the one copy the samples made out of the sampler's drain buffer; hand the same
    /// batch to every stage that reads it, and none copies them again.
    case batch(SampleBatch, statistics: SamplerStatistics)
    /// The sensor failed; the service retries by itself after `retryIn` seconds.
    case fault(message: String, retryIn: Double)
    /// The sensor answers again after a fault, reconfigured.
    case recovered(SamplingSettings)
    /// The sensor runs with these settings (at start, and after a rate change).
    case started(SamplingSettings)
    /// Sampling resumed, restarted with these settings, after a job ran on the chip
    /// (``SamplingService/runOnChip(timeout:_:)``): nothing from before it may be averaged with
    /// what comes after.
    case resumed(SamplingSettings)
    /// How register reads reach the chip: after the first batch, and whenever it changes (an
    /// adapter that refuses batched reads is found at the first drain).
    case busMode(I2CMode)
    /// The chip opened, at every open: its facts and where it answers.
    case chip(ChipFound)
}

/// The chip the sampling thread opened and probed: what the agent reports and calibrates.
public struct ChipFound: Sendable, Hashable {
    /// Its facts (the variant's, for a family one driver reads).
    public var description: ChipDescription
    /// The bus's name (`/dev/i2c-1`, `simulated`) and the chip's address on it.
    public var bus: String
    public var address: I2CAddress
    /// What its first identification register read.
    public var deviceID: UInt8?
    /// The probe's warning, naming the value read (a clone's ID); nil for a genuine part.
    public var warning: String?

    public init(description: ChipDescription, bus: String, address: I2CAddress, deviceID: UInt8?, warning: String?) {
        self.description = description
        self.bus = bus
        self.address = address
        self.deviceID = deviceID
        self.warning = warning
    }
}

/// Owns the chip on a thread of its own, because its bus calls block; everything else in the
/// agent is async. It never exits on a sensor failure: it reports the fault, waits with backoff
/// (0.5 s doubling to 30 s), probes and reconfigures the chip, and carries on.
public final class SamplingService: Sendable {
    private let makeChip: @Sendable () throws -> any Accelerometer
    private let clock: any PacingClock
    let control: Locked<Control>
    /// Signalled by ``stop(waitingUpTo:)`` to cut a fault's backoff wait short.
    private let wake = DispatchSemaphore(value: 0)

    struct Control {
        var rateHz: Double
        /// nil: the chip's default range (``ChipDescription/defaultRangeG``).
        var rangeG: Int?
        var started = false
        var stopped = false
        var finished = false
        var i2cErrors = 0
        /// Whether the chip is configured and being read (not starting, not in a fault's backoff).
        var sampling = false
        /// A job waiting for the sampling thread to run it between two blocks.
        var job: ChipJob?
        /// Whether the thread is running a job now.
        var jobRunning = false
        /// Callers of ``stop(waitingUpTo:)`` waiting for the thread to end, by id.
        var stopWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0
    }

    /// - Parameter makeChip: builds the driver; called again after every fault, so a bus that
    ///   disappeared and came back is reopened.
    public init(rateHz: Double, rangeG: Int?, clock: any PacingClock = MonotonicPacingClock(),
                makeChip: @escaping @Sendable () throws -> any Accelerometer) {
        self.makeChip = makeChip
        self.clock = clock
        control = Locked(Control(rateHz: rateHz, rangeG: rangeG))
    }

    /// Bus and sensor errors since start.
    public var i2cErrors: Int { control.withLock { $0.i2cErrors } }

    /// Asks for a new output data rate; the loop restarts the chip at its next block.
    public func setRate(_ hertz: Double) {
        control.withLock { $0.rateHz = hertz }
    }

    /// Ends the loop after its current batch (a tenth of a second at most, 0.16 s at 6.25 Hz)
    /// and waits up to `timeout` seconds for the chip to be put in standby.
    ///
    /// Async, and woken by the thread as it ends: it never holds a thread of the cooperative
    /// pool, which on a two-core Pi is half of it, while the chip finishes its block.
    public func stop(waitingUpTo timeout: Double = 0.5) async {
        control.withLock { $0.stopped = true }
        wake.signal()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let id = control.withLock { (control) -> Int? in
                guard control.started, !control.finished else { return nil }
                control.nextWaiterID += 1
                control.stopWaiters[control.nextWaiterID] = waiter
                return control.nextWaiterID
            }
            guard let id else { return waiter.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [control] in
                control.withLock { $0.stopWaiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Starts the sampling thread; updates arrive on the returned stream until ``stop()``.
    public func start() -> AsyncStream<SamplingUpdate> {
        let (stream, continuation) = AsyncStream<SamplingUpdate>.makeStream(bufferingPolicy: .bufferingNewest(256))
        control.withLock { $0.started = true }
        let started = detachThread(name: "plumb-sampling") { [self] in
            run(continuation)
            let (waiters, job) = control.withLock { (control) -> ([CheckedContinuation<Void, Never>], ChipJob?) in
                control.finished = true
                control.sampling = false
                defer {
                    control.stopWaiters.removeAll()
                    control.job = nil
                }
                return (Array(control.stopWaiters.values), control.job)
            }
            continuation.finish()
            for waiter in waiters { waiter.resume() }
            job?.refuse(.notSampling)
        }
        if !started {
            control.withLock { $0.finished = true }
            continuation.yield(.fault(message: "could not start the sampling thread (out of memory or threads?)", retryIn: 0))
            continuation.finish()
        }
        return stream
    }

    private func run(_ continuation: AsyncStream<SamplingUpdate>.Continuation) {
        var backoff = 0.5
        var faulted = false
        // Counters of the samplers that came before: each restart of the chip starts a new one.
        var carried = SamplerStatistics()
        var reportedMode: I2CMode?
        while !control.withLock({ $0.stopped }) {
            let (rate, configuredRange) = control.withLock { ($0.rateHz, $0.rangeG) }
            var chip: (any Accelerometer)?
            var sampler: Sampler?
            do {
                let opened = try makeChip()
                chip = opened
                let current = Sampler(chip: opened, clock: clock)
                sampler = current
                let range = configuredRange ?? opened.chip.defaultRangeG
                let settings = try current.start(SamplingRequest(rateHz: rate, rangeG: range))
                continuation.yield(.chip(ChipFound(description: opened.chip, bus: opened.bus.name, address: opened.address,
                                                   deviceID: current.identity?.deviceID, warning: opened.warning)))
                continuation.yield(faulted ? .recovered(settings) : .started(settings))
                faulted = false
                backoff = 0.5
                let perBlock = SampleBatch.samplesPerBlock(rateHz: settings.rateHz)
                control.withLock { $0.sampling = true }
                while true {
                    let (stopped, wantedRate) = control.withLock { ($0.stopped, $0.rateHz) }
                    if stopped || wantedRate != rate { break }
                    if let job = control.withLock({ $0.takeJob() }) {
                        // Between two blocks: the job has the chip to itself, then the chip is
                        // started afresh, so no sample from before it (or of its own) is averaged.
                        job.run(opened)
                        control.withLock { $0.jobRunning = false }
                        continuation.yield(.resumed(try current.start(SamplingRequest(rateHz: rate, rangeG: range))))
                        continue
                    }
                    let batch = try current.nextBatch(samples: perBlock)
                    continuation.yield(.batch(batch, statistics: carried + current.statistics))
                    let mode = opened.bus.mode
                    if mode != reportedMode {
                        reportedMode = mode
                        continuation.yield(.busMode(mode))
                    }
                }
                control.withLock { $0.sampling = false }
                carried = carried + current.statistics
                try? opened.stop()
            } catch {
                control.withLock {
                    $0.sampling = false
                    $0.jobRunning = false
                }
                if let sampler { carried = carried + sampler.statistics }
                try? chip?.stop()
                control.withLock { $0.i2cErrors += 1 }
                faulted = true
                continuation.yield(.fault(message: "\(error)", retryIn: backoff))
                sleepUnlessStopped(backoff)
                backoff = min(30, backoff * 2)
            }
        }
    }

    /// Waits out a fault's backoff, or until ``stop(waitingUpTo:)`` signals.
    private func sleepUnlessStopped(_ seconds: Double) {
        guard !control.withLock({ $0.stopped }) else { return }
        _ = wake.wait(timeout: .now() + seconds)
    }
}
