import Accelerometers
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PlumbDomain
import PlumbSync
import Sampling

/// What the sampling thread reports to the agent.
public enum SamplingUpdate: Sendable {
    /// A block mean of about a tenth of a second of samples, device frame, with the counters
    /// since the service started (summed across restarts of the chip).
    case reading(Reading, statistics: SamplerStatistics)
    /// The sensor failed; the service retries by itself after `retryIn` seconds.
    case fault(message: String, retryIn: Double)
    /// The sensor answers again after a fault, reconfigured.
    case recovered(SamplingSettings)
    /// The sensor runs with these settings (at start, and after a rate change).
    case started(SamplingSettings)
}

/// Owns the chip on a thread of its own, because its bus calls block; everything else in the
/// agent is async. It never exits on a sensor failure: it reports the fault, waits with backoff
/// (0.5 s doubling to 30 s), probes and reconfigures the chip, and carries on.
public final class SamplingService: Sendable {
    private let makeChip: @Sendable () throws -> any Accelerometer
    private let clock: any PacingClock
    private let control: Locked<Control>

    private struct Control {
        var rateHz: Double
        var rangeG: Int
        var stopped = false
        var finished = false
        var i2cErrors = 0
    }

    /// Block means are about this long: short enough for a responsive moving average, long
    /// enough that a wake-up drains a useful batch.
    static let blockSeconds = 0.1

    /// Samples in one block mean at `rateHz`: at least one, so low rates make longer blocks.
    public static func samplesPerBlock(rateHz: Double) -> Int {
        max(1, Int((rateHz * blockSeconds).rounded()))
    }

    /// - Parameter makeChip: builds the driver; called again after every fault, so a bus that
    ///   disappeared and came back is reopened.
    public init(rateHz: Double, rangeG: Int, clock: any PacingClock = MonotonicPacingClock(),
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

    /// Ends the loop after its current block and waits up to `timeout` seconds for the chip to be
    /// put in standby.
    public func stop(waitingUpTo timeout: Double = 0.5) {
        control.withLock { $0.stopped = true }
        let deadline = clock.now() + timeout
        while !control.withLock({ $0.finished }) && clock.now() < deadline {
            MonotonicPacingClock().sleep(seconds: 0.01)
        }
    }

    /// Starts the sampling thread; updates arrive on the returned stream until ``stop()``.
    public func start() -> AsyncStream<SamplingUpdate> {
        let (stream, continuation) = AsyncStream<SamplingUpdate>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let started = detachThread(name: "plumb-sampling") { [self] in
            run(continuation)
            control.withLock { $0.finished = true }
            continuation.finish()
        }
        if !started {
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
        while !control.withLock({ $0.stopped }) {
            let (rate, range) = control.withLock { ($0.rateHz, $0.rangeG) }
            var chip: (any Accelerometer)?
            var sampler: Sampler?
            do {
                let opened = try makeChip()
                chip = opened
                let current = Sampler(chip: opened, clock: clock)
                sampler = current
                let settings = try current.start(SamplingRequest(rateHz: rate, rangeG: range))
                continuation.yield(faulted ? .recovered(settings) : .started(settings))
                faulted = false
                backoff = 0.5
                let perBlock = Self.samplesPerBlock(rateHz: settings.rateHz)
                while true {
                    let (stopped, wantedRate) = control.withLock { ($0.stopped, $0.rateHz) }
                    if stopped || wantedRate != rate { break }
                    let reading = try current.nextReading(averaging: perBlock)
                    continuation.yield(.reading(reading, statistics: carried + current.statistics))
                }
                carried = carried + current.statistics
                try? opened.stop()
            } catch {
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

    /// Sleeps in short steps so a stop request is honoured within a tenth of a second.
    private func sleepUnlessStopped(_ seconds: Double) {
        let end = clock.now() + seconds
        while clock.now() < end && !control.withLock({ $0.stopped }) {
            clock.sleep(seconds: min(0.1, end - clock.now()))
        }
    }
}
