#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// The rate pushed samples come at, when nobody said: how many arrived over how long, snapped to
/// the nearest power of two times 100 Hz (12.5, 25, 50, 100, … 3200), which the chip's
/// description then maps to its own nearest rate.
///
/// Stillness expects the chip's noise at its rate (it grows with the bandwidth) and blocks of a
/// tenth of a second, so ``SixPointTumble`` must know the rate. Snapping keeps the estimate from
/// wandering with the jitter of block arrival: neighbouring rates are a factor of two apart, far
/// beyond it.
struct TumbleRateEstimate: Hashable, Sendable {
    /// The span the estimate waits for, in seconds: a few blocks, so one late block cannot halve it.
    static let minimumSpan = 0.3

    /// When the first block arrived; its samples were taken before then and are not counted.
    private var firstTime: Double?
    private var lastTime: Double?
    /// Samples that arrived after the first block.
    private var count = 0

    /// Counts a block of `samples` that arrived at `time`, in seconds; a time that is not finite
    /// or goes back is ignored.
    mutating func add(samples: Int, at time: Double) {
        guard time.isFinite else { return }
        guard let firstTime else {
            firstTime = time
            lastTime = time
            return
        }
        guard let lastTime, time >= lastTime, time >= firstTime else { return }
        self.lastTime = time
        count += samples
    }

    /// The rate, in Hz; nil until ``minimumSpan`` of samples has arrived.
    var rateHz: Double? {
        guard let firstTime, let lastTime, lastTime - firstTime >= Self.minimumSpan, count > 0 else { return nil }
        return Self.snapped(Double(count) / (lastTime - firstTime))
    }

    /// The power of two times 100 Hz nearest to `rate` on a logarithmic scale, 12.5 to 3200 Hz.
    static func snapped(_ rate: Double) -> Double {
        let halvings = log2(3200 / rate).rounded()
        return 3200 / Double(1 << Int(min(max(halvings.isFinite ? halvings : 0, 0), 8)))
    }
}
