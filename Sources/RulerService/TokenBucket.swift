/// Requests per second with bursts; time is passed in (seconds, monotonic).
///
/// The bucket starts full. Each admitted request takes one token (and a costly one more, with
/// ``charge(_:at:)``); tokens come back at
/// ``ratePerSecond`` up to ``burst``. Time going backwards adds nothing, so a clock step can't
/// mint tokens.
public struct TokenBucket: Sendable {
    /// Tokens added per second; 0 (also for a negative or NaN rate) never refills.
    public let ratePerSecond: Double
    /// The most tokens the bucket holds; at least 1 (a smaller or NaN burst is taken as 1), so
    /// a bucket can always admit something.
    public let burst: Double
    private var tokens: Double
    private var last: Double?

    /// A full bucket of `burst` tokens, refilled at `ratePerSecond`.
    public init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond.isNaN ? 0 : max(0, ratePerSecond)
        self.burst = burst.isNaN ? 1 : max(1, burst)
        tokens = self.burst
    }

    /// Takes a token at time `now` (seconds); false, taking nothing, when the bucket is empty.
    public mutating func take(at now: Double) -> Bool {
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Charges `cost` more tokens at `now` for work already done (a large reply), going into
    /// debt if need be: later requests are refused until the debt is refilled. The debt is
    /// capped at ten seconds of refill, so one expensive request can't lock the service out for
    /// long. A non-finite or negative cost charges nothing.
    public mutating func charge(_ cost: Double, at now: Double) {
        refill(at: now)
        guard cost.isFinite, cost > 0 else { return }
        tokens = max(tokens - cost, -10 * ratePerSecond)
    }

    private mutating func refill(at now: Double) {
        guard now.isFinite else { return }
        if let last, now > last {
            tokens = min(burst, tokens + (now - last) * ratePerSecond)
        }
        if last.map({ now > $0 }) ?? true { last = now }
    }
}
