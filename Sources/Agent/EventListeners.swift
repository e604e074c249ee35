/// Who else hears the agent's events, beside `P/event`: the control socket's connections, each
/// forwarding the calibration events to its `plumb calibrate`. Called on the agent's actor, in
/// the order the events happen, whether or not the broker is connected; a listener must return
/// at once (hand the event on, never block).
struct EventListeners: Sendable {
    private var listeners: [Int: @Sendable (AgentEvent) -> Void] = [:]
    private var nextID = 1

    var isEmpty: Bool { listeners.isEmpty }

    /// Adds `listener`; returns its id for ``remove(_:)``.
    mutating func add(_ listener: @escaping @Sendable (AgentEvent) -> Void) -> Int {
        let id = nextID
        nextID += 1
        listeners[id] = listener
        return id
    }

    mutating func remove(_ id: Int) {
        listeners[id] = nil
    }

    /// Hands `event` to every listener, oldest listener first.
    func tell(_ event: AgentEvent) {
        for id in listeners.keys.sorted() { listeners[id]?(event) }
    }
}
