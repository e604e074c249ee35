import Agent
import Geometry
import Testing

@Suite("BoundedQueue")
struct BoundedQueueTests {
    @Test("Elements come out oldest first")
    func fifo() {
        var queue = BoundedQueue<Int>(capacity: 10)
        #expect(queue.isEmpty)
        queue.append(contentsOf: 1...5)
        #expect(queue.count == 5)
        #expect(Array(queue) == [1, 2, 3, 4, 5])
        #expect(queue.first == 1)
        #expect(queue.last == 5)
        #expect(queue[2] == 3)
        #expect(queue.popFirst() == 1)
        #expect(queue.popFirst() == 2)
        #expect(Array(queue) == [3, 4, 5])
        #expect(queue.dropped == 0)
    }

    @Test("When full, appending drops the oldest and counts it")
    func dropsOldest() {
        var queue = BoundedQueue<Int>(capacity: 3)
        queue.append(contentsOf: 1...3)
        #expect(queue.dropped == 0)
        queue.append(4)
        #expect(Array(queue) == [2, 3, 4])
        #expect(queue.dropped == 1)
        queue.append(contentsOf: 5...10)
        #expect(Array(queue) == [8, 9, 10])
        #expect(queue.count == 3)
        #expect(queue.dropped == 7)
    }

    @Test("The drop count is cumulative: popping and clearing do not reset it")
    func droppedIsCumulative() {
        var queue = BoundedQueue<String>(capacity: 2)
        queue.append(contentsOf: ["a", "b", "c"])
        #expect(queue.popFirst() == "b")
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.dropped == 1)
        queue.append(contentsOf: ["d", "e", "f"])
        #expect(Array(queue) == ["e", "f"])
        #expect(queue.dropped == 2)
    }

    @Test("Popping an empty queue gives nil and changes nothing")
    func popEmpty() {
        var queue = BoundedQueue<Int>(capacity: 2)
        #expect(queue.popFirst() == nil)
        queue.append(1)
        #expect(queue.popFirst() == 1)
        #expect(queue.popFirst() == nil)
        #expect(queue.isEmpty)
        #expect(queue.first == nil)
    }

    @Test("The ring wraps around many times and keeps order", arguments: [1, 2, 3, 5, 8])
    func wrapsAround(capacity: Int) {
        var queue = BoundedQueue<Int>(capacity: capacity)
        var next = 0
        var expected: [Int] = []
        for round in 0..<50 {
            // Fill past capacity, then drain part of it: the head moves on every round.
            for _ in 0..<(capacity + round % 3) {
                queue.append(next)
                expected.append(next)
                next += 1
                if expected.count > capacity { expected.removeFirst() }
            }
            for _ in 0..<(round % (capacity + 1)) {
                #expect(queue.popFirst() == expected.first)
                if !expected.isEmpty { expected.removeFirst() }
            }
            #expect(Array(queue) == expected, "round \(round)")
        }
    }

    @Test("Random appends, pops and clears match a plain array model")
    func matchesModel() {
        var random = SplitMix64(seed: 7)
        for capacity in [1, 4, 7, 64] {
            var queue = BoundedQueue<Int>(capacity: capacity)
            var model: [Int] = []
            var dropped = 0
            for step in 0..<5_000 {
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<60:
                    queue.append(step)
                    model.append(step)
                    if model.count > capacity {
                        model.removeFirst()
                        dropped += 1
                    }
                case 60..<99:
                    #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
                default:
                    queue.removeAll()
                    model.removeAll()
                }
                #expect(queue.count == model.count)
                #expect(queue.dropped == dropped)
            }
            #expect(Array(queue) == model)
            #expect(queue.indices == model.indices)
            #expect(Array(queue.reversed()) == Array(model.reversed()))
        }
    }

    @Test("A capacity of zero keeps nothing and counts every append as dropped; a negative one is zero",
          arguments: [0, -3])
    func zeroCapacity(capacity: Int) {
        var queue = BoundedQueue<Int>(capacity: capacity)
        #expect(queue.capacity == 0)
        queue.append(contentsOf: 1...4)
        #expect(queue.isEmpty)
        #expect(queue.dropped == 4)
        #expect(queue.popFirst() == nil)
    }

    @Test("A huge capacity costs nothing until used")
    func lazyStorage() {
        var queue = BoundedQueue<Int>(capacity: Int.max)
        queue.append(contentsOf: 0..<1_000)
        #expect(queue.count == 1_000)
        #expect(queue.dropped == 0)
        #expect(Array(queue) == Array(0..<1_000))
    }

    @Test("Equal queues hold the same elements in the same order, however the ring is laid out")
    func equality() {
        var wrapped = BoundedQueue<Int>(capacity: 3)
        wrapped.append(contentsOf: [0, 1, 2])
        _ = wrapped.popFirst()
        _ = wrapped.popFirst()
        wrapped.append(contentsOf: [3, 4])
        var straight = BoundedQueue<Int>(capacity: 3)
        straight.append(contentsOf: [2, 3, 4])
        #expect(wrapped == straight)
        straight.append(5)
        var other = BoundedQueue<Int>(capacity: 3)
        other.append(contentsOf: [3, 4, 5])
        #expect(straight != other)  // same elements, but one dropped an element
        #expect(straight.description == "BoundedQueue(3/3, dropped 1: [3, 4, 5])")
    }
}
