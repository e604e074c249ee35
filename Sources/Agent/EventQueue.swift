import Geometry

/// The events on their way to `P/event`: kept, oldest first, until the broker takes them.
///
/// Events are not retained on the broker, so one missed while it is away would be lost: the
/// queue holds them for the next connect, bounded so that a long outage cannot grow memory
/// (the newest matter most, so the oldest go first). A value type with no I/O: ``AgentCore``
/// hands it the sending.
struct EventQueue: Sendable {
    /// Events kept while the broker is away.
    static let capacity = 200

    private var queue: BoundedQueue<AgentEvent>

    /// An empty queue that keeps at most `capacity` events.
    init(capacity: Int = EventQueue.capacity) {
        queue = BoundedQueue(capacity: capacity)
    }

    /// Events waiting to be sent: `P/health`'s `queued_events`.
    var count: Int { queue.count }
    /// Events dropped to make room since the start: `P/health`'s `dropped_events`.
    var dropped: Int { queue.dropped }
    /// The waiting events, oldest first.
    var pending: [AgentEvent] { Array(queue) }

    /// Keeps `event` for the next ``flush(through:)``, dropping the oldest when full.
    mutating func append(_ event: AgentEvent) {
        queue.append(event)
    }

    /// Hands the waiting events to `send`, oldest first, forgetting each one it took. The first
    /// that `send` throws for stays, with all after it: the connection dropped, and they go at
    /// the next flush, still in order.
    mutating func flush(through send: (AgentEvent) throws -> Void) {
        while let event = queue.first {
            do {
                try send(event)
            } catch {
                return
            }
            _ = queue.popFirst()
        }
    }
}
