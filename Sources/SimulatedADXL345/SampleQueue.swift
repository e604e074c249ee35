import Accelerometers

/// The unread entries, oldest first: the 32-level FIFO plus the entry waiting in the data
/// registers, hence 33. The oldest entry is the one the data registers show.
struct SampleQueue {
    /// 32 FIFO levels plus the output registers (datasheet: up to 33 entries can be read).
    static let capacity = ADXL345Register.fifoCapacity + 1

    private var storage = [RawSample](repeating: .zero, count: SampleQueue.capacity)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == Self.capacity }

    /// The oldest unread entry.
    var first: RawSample? { isEmpty ? nil : storage[head] }
    /// The newest unread entry.
    var last: RawSample? { isEmpty ? nil : storage[(head + count - 1) % Self.capacity] }

    /// Adds `sample` as the newest entry; callers make room first, so a full queue is a bug and
    /// drops the sample rather than corrupting the order.
    mutating func append(_ sample: RawSample) {
        assert(!isFull, "append to a full SampleQueue")
        guard !isFull else { return }
        storage[(head + count) % Self.capacity] = sample
        count += 1
    }

    /// Removes and returns the oldest entry.
    mutating func removeFirst() -> RawSample? {
        guard let sample = first else { return nil }
        head = (head + 1) % Self.capacity
        count -= 1
        return sample
    }

    /// Removes the `n` oldest entries (all of them when there are fewer).
    mutating func removeFirst(_ n: Int) {
        let removed = min(max(n, 0), count)
        head = (head + removed) % Self.capacity
        count -= removed
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }
}
