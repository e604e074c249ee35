import Contract
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// The command line's end of the control socket: blocking, with a deadline on every wait.
public final class ControlClient {
    public let path: String
    private let descriptor: Int32
    private var input: [UInt8] = []

    /// Why no connection was made.
    public enum ConnectFailure: Error, Sendable, Equatable {
        /// No socket there, or a stale one nobody serves: no agent runs with this socket.
        case noAgent
        /// The socket is there, but this user may not use it (not in its group).
        case permissionDenied
        /// Anything else (errno text).
        case other(String)
    }

    /// Connects to the agent at `path`.
    public init(path: String) throws(ConnectFailure) {
        self.path = path
        guard path.utf8.count < 108 else { throw .other("the socket path is longer than 107 bytes") }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .other(String(cString: strerror(errno))) }
        var address = ControlServer.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let failure = errno
            close(descriptor)
            switch failure {
            case ENOENT, ECONNREFUSED, ENOTDIR: throw .noAgent
            case EACCES, EPERM: throw .permissionDenied
            default: throw .other(String(cString: strerror(failure)))
            }
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Sends one request line.
    ///
    /// - Throws: ``ControlFailure`` `chip`-free: the agent went away (`malformed` is never thrown here).
    public func send(_ request: ControlRequest) throws(ControlClientError) {
        let line = request.json.bytes + [0x0A]
        var offset = 0
        while offset < line.count {
            let sent = line[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else {
                if errno == EINTR { continue }
                throw .agentGone
            }
            offset += sent
        }
    }

    /// The next reply line, waiting at most `timeout` seconds (nil: without end).
    ///
    /// - Throws: ``ControlClientError``: `.timedOut`, `.agentGone` (the agent closed the socket),
    ///   `.malformed` for a line that is not one JSON object.
    public func receive(timeout: Double?) throws(ControlClientError) -> JSONValue {
        let deadline = timeout.map { monotonicSeconds() + $0 }
        while true {
            if let newline = input.firstIndex(of: 0x0A) {
                let line = Array(input[..<newline])
                input.removeSubrange(...newline)
                do { return try StrictJSON.parse(line, allowingScalars: false) } catch { throw .malformed(error.reason) }
            }
            let remaining = deadline.map { $0 - monotonicSeconds() }
            if let remaining, remaining <= 0 { throw .timedOut }
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = remaining.map { Int32(min(max($0 * 1000, 1), 1_000)) } ?? 1_000
            let ready = poll(&fds, 1, wait)
            if ready < 0 && errno != EINTR { throw .agentGone }
            guard ready > 0 else {
                if let interrupted = interruption, interrupted() { throw .interrupted }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .agentGone }
            input += chunk[0..<count]
            guard input.count <= StrictJSON.maximumBytes else { throw .malformed("a reply line over 1 MiB") }
        }
    }

    /// Asked while waiting: true ends the wait with `.interrupted` (Ctrl-C).
    public var interruption: (() -> Bool)?

    /// Sends `request` and returns its reply, or throws the agent's error reply as
    /// ``ControlClientError/refused(_:)``. Event lines that come first are skipped.
    public func ask(_ request: ControlRequest, timeout: Double) throws(ControlClientError) -> [String: JSONValue] {
        try send(request)
        let deadline = monotonicSeconds() + timeout
        while true {
            let reply = try receive(timeout: max(0.001, deadline - monotonicSeconds()))
            let fields = try Self.fields(of: reply)
            if case .string(ControlReply.event)? = fields["reply"] { continue }
            return fields
        }
    }

    /// The fields of a reply line; an error reply is thrown as ``ControlClientError/refused(_:)``.
    public static func fields(of reply: JSONValue) throws(ControlClientError) -> [String: JSONValue] {
        guard case .object(let fields) = reply, case .string(let name)? = fields["reply"] else {
            throw .malformed("a reply without \"reply\"")
        }
        if name == ControlReply.error {
            guard case .object(let error)? = fields["error"], case .string(let codeName)? = error["code"],
                  case .string(let message)? = error["message"] else { throw .malformed("an error reply without code and message") }
            throw .refused(ControlFailure(ControlFailure.Code(rawValue: codeName) ?? .chip, message))
        }
        return fields
    }
}

/// A conversation with the agent that failed.
public enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut
    case agentGone
    case interrupted
    case malformed(String)
    /// The agent answered with an error.
    case refused(ControlFailure)

    public var description: String {
        switch self {
        case .timedOut: "the agent did not answer in time; check it with systemctl status plumb."
        case .agentGone: "the agent closed the control socket (it stopped or restarted); run the command again."
        case .interrupted: "interrupted."
        case .malformed(let what): "the agent's reply was not understood (\(what)); is the agent the same version as this command?"
        case .refused(let failure): failure.message
        }
    }
}
