/// A first-in, first-out queue that holds at most ``capacity`` elements and, when full, drops the
/// oldest to make room, counting what it dropped.
///
/// Made for events held while a broker is away: the newest matter most, and memory must not grow
/// without bound however long the outage. A ring buffer: appending and popping are O(1)
/// amortised, and storage grows only as far as `capacity`, never beyond. A collection in queue
/// order, oldest first: index 0 is the next ``popFirst()``.
public struct BoundedQueue<Element: Sendable>: Sendable {
    /// The most elements held; never negative. A capacity of 0 holds nothing, so every append
    /// counts as dropped.
    public let capacity: Int
    /// Elements dropped to make room since the queue was created, cumulative: neither
    /// ``popFirst()`` nor ``removeAll()`` resets it.
    public private(set) var dropped = 0

    /// The ring. Grows by doubling until it reaches `capacity`, then elements wrap around.
    private var storage: [Element?] = []
    /// The storage slot of the oldest element.
    private var head = 0
    /// The elements held, at most ``capacity``.
    public private(set) var count = 0

    /// An empty queue holding at most `capacity` elements (a negative capacity counts as 0).
    public init(capacity: Int) {
        self.capacity = Swift.max(0, capacity)
    }

    /// Adds `element` at the end. When the queue is full, the oldest element is dropped first and
    /// ``dropped`` goes up by one.
    public mutating func append(_ element: Element) {
        guard capacity > 0 else {
            dropped += 1
            return
        }
        if count == capacity {
            storage[head] = element
            head = slot(after: head)
            dropped += 1
            return
        }
        if count == storage.count { grow() }
        storage[slot(count)] = element
        count += 1
    }

    /// Adds every element of `elements` in order, as repeated ``append(_:)``.
    public mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// Removes and returns the oldest element, or nil when empty.
    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = slot(after: head)
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Removes every element and frees the storage. ``dropped`` is kept: nothing was dropped to
    /// make room.
    public mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }

    private func slot(_ offset: Int) -> Int {
        (head + offset) % storage.count
    }

    private func slot(after index: Int) -> Int {
        index + 1 == storage.count ? 0 : index + 1
    }

    /// Doubles the ring (up to `capacity`), laying the elements out from slot 0 in order.
    private mutating func grow() {
        let newSize = Swift.min(capacity, Swift.max(4, storage.count * 2))
        var grown = [Element?](repeating: nil, count: newSize)
        for offset in 0..<count {
            grown[offset] = storage[slot(offset)]
        }
        storage = grown
        head = 0
    }
}

extension BoundedQueue: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The element `position` places from the oldest (0 is the oldest). `position` must be in
    /// `0..<count`.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "BoundedQueue index \(position) out of 0..<\(count)")
        // Every slot within `count` of the head holds an element.
        return storage[slot(position)]!
    }
}

extension BoundedQueue: Equatable where Element: Equatable {
    /// Equal when capacity, drop count and the elements in order are equal; how the ring happens
    /// to be laid out does not matter.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.capacity == rhs.capacity && lhs.dropped == rhs.dropped && lhs.elementsEqual(rhs)
    }
}

extension BoundedQueue: CustomStringConvertible {
    public var description: String {
        "BoundedQueue(\(count)/\(capacity), dropped \(dropped): \(Array(self)))"
    }
}
