#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex.
///
/// Plumb uses this rather than `Synchronization.Mutex` because ThreadSanitizer reports false
/// positives on `Mutex` on Linux, and the test suite runs under TSan. Keep critical sections short
/// and never call into a C library that takes its own lock (libmosquitto) while holding one.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only ever read or written inside `withLock`, which holds
    // `mutex` for the whole access, so no two threads can touch it at once.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Wraps `value`; from here on reach it only through ``withLock(_:)``.
    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: do not call `withLock` on the
    /// same instance from inside `body`.
    @discardableResult
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
