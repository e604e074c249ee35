#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Accelerometers
import PlumbSync

/// The time base of a ``SimulatedADXL345``: its ODR clock, its scene and its faults all read it.
///
/// Implementations are thread-safe, cheap, and never call back into the simulator. The simulator
/// reads the clock just before taking its own lock, never under it; its chip's time is the latest
/// reading it has seen, so that two transactions can never see time run backwards
/// (``SimulatedChipCore``).
public protocol SimulationClock: Sendable {
    /// Monotonic seconds from an arbitrary origin. A reading lower than an earlier one is treated
    /// as the earlier one; a non-finite reading is ignored.
    func now() -> Double
}

/// `CLOCK_MONOTONIC`: the chip runs in real time, as on the hardware.
public struct MonotonicSimulationClock: SimulationClock {
    public init() {}

    /// Seconds since an arbitrary point (usually boot), from `clock_gettime(CLOCK_MONOTONIC)`.
    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// A clock that moves only when told to, so tests are exact and never wait.
///
/// Thread-safe. It also conforms to the driver's ``PacingClock``: a driver or sampling loop that
/// sleeps on it advances the simulated time instead of the wall clock.
public final class ManualSimulationClock: SimulationClock {
    private let time: Locked<Double>

    /// A clock reading `seconds` until it is advanced.
    public init(startingAt seconds: Double = 0) {
        time = Locked(seconds.isFinite ? seconds : 0)
    }

    /// The current time in seconds.
    public func now() -> Double {
        time.withLock { $0 }
    }

    /// Moves the clock forward by `seconds`. Negative or non-finite amounts are ignored: time
    /// never runs backwards.
    public func advance(by seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        time.withLock { $0 += seconds }
    }

    /// Moves the clock forward to `seconds`; ignored when that is not later than now.
    public func advance(to seconds: Double) {
        guard seconds.isFinite else { return }
        time.withLock { $0 = max($0, seconds) }
    }
}

extension ManualSimulationClock: PacingClock {
    /// Advances the clock by `seconds` and returns at once.
    public func sleep(seconds: Double) {
        advance(by: seconds)
    }
}
