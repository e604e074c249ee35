import BrokerHarness
import Foundation
import MQTT
import Testing

/// Drains a client's single-consumer event stream in the background, so a test can wait for the
/// event it expects (with a timeout) and look at everything that happened.
final class EventCollector: @unchecked Sendable {
    // @unchecked Sendable: `events` and `cursor` are only touched with `lock` held.
    private let lock = NSLock()
    private var events: [MQTTEvent] = []
    private var finished = false
    /// Events before this index were already matched by `next`.
    private var cursor = 0

    init(_ client: any MQTTClient) {
        let stream = client.events
        // On the harness's threads: tests blocking the cooperative pool must not stall the intake.
        Task(executorPreference: HarnessExecutor.shared) { [self] in
            for await event in stream { lock.withLock { events.append(event) } }
            lock.withLock { finished = true }
        }
    }

    /// Everything received so far.
    var all: [MQTTEvent] { lock.withLock { events } }
    /// Whether the stream has finished.
    var isFinished: Bool { lock.withLock { finished } }

    /// Waits for the next event (after the previously matched one) that satisfies `predicate`.
    /// Records an issue and returns nil on timeout.
    @discardableResult
    func next(_ what: String, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation,
              where predicate: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(timeout)
        return await withTaskExecutorPreference(HarnessExecutor.shared) {
            while true {
                let found: MQTTEvent? = lock.withLock {
                    guard let index = events[cursor...].firstIndex(where: predicate) else { return nil }
                    cursor = index + 1
                    return events[index]
                }
                if let found { return found }
                if ContinuousClock.now > deadline {
                    Issue.record("no \(what) within \(timeout); events: \(all)", sourceLocation: sourceLocation)
                    return nil
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    // 20 s: the wait ends as soon as the event comes, and with the whole suite running on two
    // cores (process-spawning tests hold the cooperative pool's threads) a connect can take seconds.
    /// Waits for the next `.connected` event and returns its connection.
    @discardableResult
    func connected(timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation) async
        -> MQTTConnection? {
        let event = await next("connected event", timeout: timeout, sourceLocation: sourceLocation) {
            if case .connected = $0 { true } else { false }
        }
        guard case .connected(let connection) = event else { return nil }
        return connection
    }

    /// Waits for the next `.connectionFailed` event and returns its error.
    @discardableResult
    func connectionFailed(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async
        -> MQTTError? {
        let event = await next("connectionFailed event", timeout: timeout, sourceLocation: sourceLocation) {
            if case .connectionFailed = $0 { true } else { false }
        }
        guard case .connectionFailed(let error) = event else { return nil }
        return error
    }

    /// Waits for the next message on `topic`.
    @discardableResult
    func message(on topic: String, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation)
        async -> MQTTMessage? {
        let event = await next("message on \(topic)", timeout: timeout, sourceLocation: sourceLocation) {
            if case .message(let message) = $0 { message.topic == topic } else { false }
        }
        guard case .message(let message) = event else { return nil }
        return message
    }

    /// How many events so far satisfy `predicate`.
    func count(where predicate: (MQTTEvent) -> Bool) -> Int {
        all.filter(predicate).count
    }
}
