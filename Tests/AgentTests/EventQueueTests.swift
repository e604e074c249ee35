@testable import Agent
import Contract
import Testing

/// The queue of events held while the broker is away, as a value, without the actor.
@Suite("Event queue")
struct EventQueueTests {
    struct Dropped: Error {}

    static func event(_ index: Int) -> AgentEvent {
        AgentEvent(type: .levelEntered, encoded: ["index": .integer(index)])
    }

    static func index(_ event: AgentEvent) -> Int? {
        if case .integer(let index) = event.details["index"] { index } else { nil }
    }

    @Test func aFlushSendsOldestFirstAndEmptiesTheQueue() {
        var queue = EventQueue(capacity: 10)
        for index in 0..<3 { queue.append(Self.event(index)) }
        var sent: [Int?] = []
        queue.flush { sent.append(Self.index($0)) }
        #expect(sent == [0, 1, 2])
        #expect(queue.count == 0)
        #expect(queue.dropped == 0)
    }

    @Test func aFullQueueDropsTheOldestAndCountsThem() {
        var queue = EventQueue(capacity: 3)
        for index in 0..<5 { queue.append(Self.event(index)) }
        #expect(queue.pending.map(Self.index) == [2, 3, 4], "the newest matter most")
        #expect(queue.count == 3)
        #expect(queue.dropped == 2)
    }

    @Test func aSendThatFailsKeepsThatEventAndTheRestInOrder() {
        var queue = EventQueue(capacity: 10)
        for index in 0..<4 { queue.append(Self.event(index)) }
        var sent: [Int?] = []
        queue.flush { event in
            guard sent.count < 2 else { throw Dropped() }
            sent.append(Self.index(event))
        }
        #expect(sent == [0, 1])
        #expect(queue.pending.map(Self.index) == [2, 3], "the connection dropped: the rest waits")
        queue.flush { sent.append(Self.index($0)) }
        #expect(sent == [0, 1, 2, 3])
        #expect(queue.count == 0)
    }

    @Test func theAgentKeepsTwoHundred() {
        #expect(EventQueue().pending.isEmpty)
        var queue = EventQueue()
        for index in 0..<201 { queue.append(Self.event(index)) }
        #expect(queue.count == 200)
        #expect(queue.dropped == 1)
    }
}
