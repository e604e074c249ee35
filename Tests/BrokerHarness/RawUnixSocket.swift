import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw client of a Unix stream socket, for the clients no `plumb` command would be: half a
/// line and silence, garbage, a flood, a reader who never reads.
///
/// Used by one test at a time, never from two threads at once.
public final class RawUnixSocket: @unchecked Sendable {
    // @unchecked: `input` is touched only by the test that owns the socket, one call at a time.
    public let descriptor: Int32
    private var input: [UInt8] = []

    /// Connects to `path`; `nonBlocking` makes ``write(_:)`` send what fits and return (a flood).
    public init(_ path: String, nonBlocking: Bool = false) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .ECONNREFUSED)
        }
        if nonBlocking { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
    }

    deinit { Glibc.close(descriptor) }

    /// Ends both directions: the server sees the client go.
    public func close() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line, or nil at the end of the stream or after `timeout` seconds (scaled by
    /// ``TestTimeScale``). Polls and sleeps between polls on the harness's threads
    /// (``HarnessExecutor``): a blocked pool thread would starve the server under test, and a
    /// sleep on a starved pool would end long after its deadline. The socket is read once more
    /// after the deadline, so what arrived during the last sleep counts.
    public func line(timeout: Double = 5) async -> String? {
        let deadline = Date().addingTimeInterval(TestTimeScale.scaled(timeout))
        return await withTaskExecutorPreference(HarnessExecutor.shared) {
            while true {
                if let line = takeLine() { return line }
                let expired = Date() >= deadline
                switch readAvailable() {
                case .data: continue
                case .endOfStream: return nil
                case .nothing:
                    if expired { return nil }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }
    }

    private enum ReadOutcome { case data, nothing, endOfStream }

    /// Reads what the socket holds now, without waiting.
    private func readAvailable() -> ReadOutcome {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) > 0 else { return .nothing }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return .endOfStream }
        input += chunk[0..<count]
        return .data
    }

    private func takeLine() -> String? {
        guard let newline = input.firstIndex(of: 0x0A) else { return nil }
        let line = String(decoding: input[..<newline], as: UTF8.self)
        input.removeSubrange(...newline)
        return line
    }
}
