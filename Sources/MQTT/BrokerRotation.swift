/// Which broker of an ordered list to use, and when to look back at the first: the failover
/// policy of ``MosquittoClient``, as a value with no I/O so it can be tested on its own.
///
/// - A failed attempt or a lost connection moves to the next broker, wrapping round to the first
///   (with one broker: that one again). The caller waits its backoff before the attempt.
/// - While connected to any broker but the first, ``failbackDue(at:)`` turns true
///   ``failbackInterval`` after the connection was made, and again that long after each check
///   (``checkedFirst(at:)``), so the first broker is checked at most every interval.
/// - When a check finds the first broker answering, ``failBack()`` makes it the next attempt.
public struct BrokerRotation: Sendable, Equatable {
    /// How many brokers there are, at least one.
    public let count: Int
    /// The shortest time between two checks of the first broker.
    public let failbackInterval: Duration
    /// The index of the broker to connect to (or connected to) now.
    public private(set) var current = 0
    /// When the last check of the first broker was made, or the connection to a later broker
    /// was; nil while not connected to a later broker.
    private var lastCheck: ContinuousClock.Instant?

    /// - Parameters:
    ///   - count: the number of brokers; values below one count as one.
    ///   - failbackInterval: see ``failbackInterval``.
    public init(count: Int, failbackInterval: Duration) {
        self.count = max(1, count)
        self.failbackInterval = failbackInterval
    }

    /// Whether ``current`` is the first, preferred broker.
    public var isOnFirst: Bool { current == 0 }

    /// The attempt on ``current`` failed, or its connection was lost: the next broker is next.
    public mutating func advance() {
        current = (current + 1) % count
        lastCheck = nil
    }

    /// A connection to ``current`` was made at `now`.
    public mutating func connected(at now: ContinuousClock.Instant) {
        lastCheck = isOnFirst ? nil : now
    }

    /// Whether to check the first broker now: connected elsewhere, and ``failbackInterval``
    /// since that connection or since the last check.
    public func failbackDue(at now: ContinuousClock.Instant) -> Bool {
        guard !isOnFirst, let lastCheck else { return false }
        return now - lastCheck >= failbackInterval
    }

    /// A check of the first broker began at `now` (whatever it finds): the next is an interval on.
    public mutating func checkedFirst(at now: ContinuousClock.Instant) {
        guard !isOnFirst else { return }
        lastCheck = now
    }

    /// The first broker answered: leave ``current`` and connect to the first next.
    public mutating func failBack() {
        current = 0
        lastCheck = nil
    }
}
