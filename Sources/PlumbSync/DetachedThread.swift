#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new detached POSIX thread. `name` is for debugging output only (Glibc's
/// module does not export pthread_setname_np).
///
/// For loops that block in system calls (the sensor's bus transfers): they must not occupy the
/// Swift concurrency pool's few threads. Without Foundation's `Thread`, so the agent can link
/// FoundationEssentials alone. Returns false if the thread could not be created.
@discardableResult
public func detachThread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { argument in
        let work = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
        work.body()
        return nil
    }, box)
    guard result == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}

private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
