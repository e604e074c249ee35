#if canImport(Glibc)
import Glibc
#endif

/// Time for code that waits on hardware: a monotonic reading and a sleep.
///
/// Drivers and sampling loops take one so tests can run them against a simulated chip on a manual
/// clock, where sleeping advances the simulation instead of wasting wall time.
public protocol PacingClock: Sendable {
    /// Monotonic seconds from an arbitrary origin.
    func now() -> Double
    /// Blocks the calling thread for about `seconds`.
    func sleep(seconds: Double)
}

/// `CLOCK_MONOTONIC` and `nanosleep`: the clock for real hardware and real-time simulation.
public struct MonotonicPacingClock: PacingClock {
    public init() {}

    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public func sleep(seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        // Resume after signals so a wake-up interval is honoured; shutdown is handled by callers.
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
