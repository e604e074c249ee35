import Foundation

/// Threads of the test harness's own, outside Swift's cooperative pool.
///
/// Swift Testing runs the whole suite's tests in parallel on the cooperative pool, which has one
/// thread per core: two on our CI machine. A test that waits for a subprocess, a broker's start
/// or Home Assistant's Python holds one of them for seconds, and two such tests stall every other
/// test's tasks. A subscriber whose intake task is stalled sees nothing, so a wall-clock time-out
/// fails a test whose agent was working all along: that was the flaky reversal-over-MQTT test.
///
/// Two remedies, both here: the harness's time-keeping work (a subscriber's intake, a wait's
/// polling) runs on ``HarnessExecutor/shared`` instead, and blocking work goes through
/// ``offThePool(_:)`` so it never holds a pool thread.
public final class HarnessExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched with `condition` locked; the worker threads
    // are started once in init and share nothing else.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// The executor the harness's subscribers and waits use: four threads, so one slow predicate
    /// delays nobody else's intake.
    public static let shared = HarnessExecutor(threads: 4, name: "plumb-test-harness")

    /// Starts `threads` worker threads named `name`; they live as long as the test process.
    public init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs `body` on a thread of its own and awaits it, so a blocking wait (a subprocess, a
/// `usleep` loop) never holds one of the cooperative pool's threads.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// ``offThePool(_:)`` for a body that cannot throw.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: body())
        }
    }
}
