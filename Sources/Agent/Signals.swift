import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The Unix signals the agent acts on.
public enum AgentSignal: Sendable {
    /// SIGTERM or SIGINT: publish `offline`, disconnect, exit 0.
    case stop
    /// SIGHUP: reload the config file.
    case reload
}

/// Unix signals as an AsyncSequence (the swift-service-lifecycle shape): handlers run on a
/// dispatch queue, never in signal context.
public enum SignalSource {
    /// Starts watching SIGTERM, SIGINT and SIGHUP. Their default actions are disabled for the
    /// process, and they are unblocked in case the parent spawned us with them blocked.
    public static func signals() -> AsyncStream<AgentSignal> {
        let (stream, continuation) = AsyncStream<AgentSignal>.makeStream()
        let queue = DispatchQueue(label: "plumb.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, meaning) in [(SIGTERM, AgentSignal.stop), (SIGINT, .stop), (SIGHUP, .reload)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(meaning) }
            source.resume()
            sources.append(source)
        }
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        let retained = SignalSources(sources)
        continuation.onTermination = { _ in retained.cancel() }
        return stream
    }
}

/// Keeps the dispatch sources alive as long as the stream.
private final class SignalSources: @unchecked Sendable {
    // @unchecked Sendable: the array is never mutated after init, and DispatchSource's cancel()
    // is documented thread-safe, which is the only call made on it.
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
