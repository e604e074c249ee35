import Contract
import PlumbSync
#if canImport(Glibc)
import Glibc
#endif

/// Answers the control socket's requests. The agent's control service implements it.
public protocol ControlHandler: Sendable {
    /// Answers `request` on `connection` (``ControlConnection/send(_:)``). The connection's next
    /// request is read once this returns, so a client has one request in hand at a time and a
    /// flood of them waits in its own socket buffer; a stream (`watch`) goes on in a task of its
    /// own, after this returns, while ``ControlConnection/isOpen``.
    func handle(_ request: ControlRequest, on connection: ControlConnection) async
    /// The client went away (or was dropped): end what it started.
    func closed(_ connection: ControlConnection) async
}

/// One client of the control socket, as the handler sees it: replies go out through it.
public final class ControlConnection: Sendable {
    /// Unique for the server's life.
    public let id: Int
    /// The peer's user and group ids (SO_PEERCRED), for the log.
    public let peerUID: UInt32
    public let peerPID: Int32

    struct Outgoing {
        var bytes: [UInt8] = []
        var isOpen = true
        var overflowed = false
        var inFlight = false
        var finishing = false
    }
    let outgoing = Locked(Outgoing())
    private let wake: @Sendable () -> Void
    /// Replies not yet read by a slow client; more drops it (a `watch` nobody reads).
    let outgoingLimit: Int

    init(id: Int, peerUID: UInt32, peerPID: Int32, outgoingLimit: Int, wake: @escaping @Sendable () -> Void) {
        self.id = id
        self.peerUID = peerUID
        self.peerPID = peerPID
        self.outgoingLimit = outgoingLimit
        self.wake = wake
    }

    /// Queues one reply line. Never blocks; a client that reads none of them is dropped once
    /// ``outgoingLimit`` bytes wait.
    public func send(_ message: JSONValue) {
        let line = message.bytes + [0x0A]
        let queued = outgoing.withLock { state -> Bool in
            guard state.isOpen, !state.overflowed else { return false }
            if state.bytes.count + line.count > outgoingLimit {
                state.overflowed = true
            } else {
                state.bytes += line
            }
            return true
        }
        if queued { wake() }
    }

    /// Closes the connection once what is queued has gone out.
    public func finish() {
        outgoing.withLock { $0.finishing = true }
        wake()
    }

    /// Whether the client is still there.
    public var isOpen: Bool { outgoing.withLock { $0.isOpen && !$0.overflowed } }
}

/// The control socket: a Unix stream socket, mode 0660 (the unit's group `plumb` may use it),
/// served by one thread that polls every client, so no client, hung, slow or flooding, holds up
/// another or the agent.
///
/// Limits (``Limits``): 16 clients at once (one more is told `busy` and closed); a request line
/// of at most ``ControlProtocol/maximumLineBytes``; a first request within 10 s of connecting;
/// replies waiting for a client at most 1 MiB.
public final class ControlServer: Sendable {
    public let path: String

    /// What one client may hold of the agent.
    public struct Limits: Sendable {
        /// Clients at once; one more is told `busy` and closed.
        public var maximumClients = 16
        /// Seconds from connecting to the first complete request line.
        public var firstRequestTimeout = 10.0
        /// Bytes of replies waiting for a client that does not read them.
        public var outgoingLimit = 1 << 20

        public init() {}
    }
    public let limits: Limits
    private let handler: any ControlHandler
    private let log: @Sendable (String) -> Void
    /// The wake pipe: [read, write]. A byte in it makes the poll look again (a reply queued, a
    /// request answered, a stop).
    private let wakePipe: (Int32, Int32)
    private let listener: Int32
    private let stopping = Locked(false)

    /// Creates the socket at `path` (replacing a stale one) and starts serving it.
    ///
    /// - Throws: ``ControlFailure`` (`chip` code unused; `malformed` never): the path is too long,
    ///   its directory is missing or not writable, or another agent serves it.
    public init(path: String, handler: any ControlHandler, limits: Limits = Limits(),
                log: @escaping @Sendable (String) -> Void) throws(ControlServerError) {
        self.path = path
        self.limits = limits
        self.handler = handler
        self.log = log
        guard path.utf8.count < 108 else { throw ControlServerError("the path \(path) is longer than a Unix socket's 107 bytes; choose a shorter control.socket.") }
        if Self.isServed(path) {
            throw ControlServerError("another agent already serves \(path); stop it, or give this one its own control.socket.")
        }
        // Only a stale socket is replaced: control.socket naming another file must not delete it.
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else {
                throw ControlServerError("\(path) exists and is not a socket; set control.socket to a path of its own.")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ControlServerError("cannot make a Unix socket: \(Self.errorText()).") }
        var address = Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let text = Self.errorText()
            close(descriptor)
            throw ControlServerError("cannot create \(path): \(text). Its directory must exist and be the agent's to write"
                + " (the unit's RuntimeDirectory=plumb makes /run/plumb); or set control.socket to another path, or to off.")
        }
        // 0660: the owner (plumb) and its group; umask 0027 would leave the group without write.
        chmod(path, 0o660)
        guard listen(descriptor, 16) == 0 else {
            let text = Self.errorText()
            close(descriptor)
            unlink(path)
            throw ControlServerError("cannot listen on \(path): \(text).")
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0, pipeEnds.allSatisfy(Self.makeNonBlocking) else {
            close(descriptor)
            unlink(path)
            throw ControlServerError("cannot make the control socket's wake pipe: \(Self.errorText()).")
        }
        listener = descriptor
        wakePipe = (pipeEnds[0], pipeEnds[1])
        let loop = ServerLoop(server: self)
        guard detachThread(name: "plumb-control", { loop.run() }) else {
            close(descriptor)
            unlink(path)
            throw ControlServerError("cannot start the control socket's thread.")
        }
    }

    /// Stops serving: every client is closed and the socket file removed. Returns at once.
    public func stop() {
        stopping.withLock { $0 = true }
        wakeUp()
    }

    fileprivate var isStopping: Bool { stopping.withLock { $0 } }

    @Sendable fileprivate func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wakePipe.1, &byte, 1)
    }

    /// Whether a live agent answers at `path` (a stale socket file refuses the connection).
    static func isServed(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func errorText() -> String { String(cString: strerror(errno)) }

    /// O_NONBLOCK and FD_CLOEXEC on `descriptor`.
    static func makeNonBlocking(_ descriptor: Int32) -> Bool {
        fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0 && fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
    }

    /// `struct ucred` of SO_PEERCRED (pid_t, uid_t, gid_t), which Glibc's module hides behind _GNU_SOURCE.
    struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// The poll loop. Its state is the server thread's alone; what handlers reach is behind each
    /// connection's lock.
    private final class ServerLoop: @unchecked Sendable {
        // @unchecked: `clients` and `nextID` are touched by the server thread only (run() and
        // what it calls); the class crosses to that thread once, at detachThread.
        let server: ControlServer
        struct Client {
            let descriptor: Int32
            let connection: ControlConnection
            var input: [UInt8] = []
            let connectedAt: Double
            var requests = 0
            var closeWhenFlushed = false
        }
        var clients: [Client] = []
        var nextID = 1

        init(server: ControlServer) { self.server = server }

        func run() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !server.isStopping {
                var fds = [pollfd(fd: server.listener, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: server.wakePipe.0, events: Int16(POLLIN), revents: 0)]
                for client in clients {
                    let state = client.connection.outgoing.withLock { $0 }
                    var events: Int16 = 0
                    if !state.inFlight && !client.closeWhenFlushed { events |= Int16(POLLIN) }
                    if !state.bytes.isEmpty { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: client.descriptor, events: events, revents: 0))
                }
                let ready = poll(&fds, nfds_t(fds.count), 1000)
                if ready < 0 && errno != EINTR { break }
                if fds[1].revents != 0 { while read(server.wakePipe.0, &buffer, buffer.count) > 0 {} }
                var index = 0
                for fd in fds.dropFirst(2) {
                    serve(&clients[index], events: fd.revents, buffer: &buffer)
                    index += 1
                }
                for index in clients.indices { dispatchNextLine(&clients[index]) }
                dropFinished()
                if fds[0].revents & Int16(POLLIN) != 0 { accept() }
            }
            for client in clients { drop(client) }
            clients.removeAll()
            close(server.listener)
            unlink(server.path)
            close(server.wakePipe.0)
            close(server.wakePipe.1)
        }

        func accept() {
            while true {
                // accept4 and struct ucred are GNU extensions Swift's Glibc module leaves out.
                let descriptor = Glibc.accept(server.listener, nil, nil)
                guard descriptor >= 0 else { return }
                guard ControlServer.makeNonBlocking(descriptor) else {
                    close(descriptor)
                    continue
                }
                var credentials = PeerCredentials()
                var length = socklen_t(MemoryLayout<PeerCredentials>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
                guard clients.count < server.limits.maximumClients else {
                    let refusal = ControlFailure(.busy, "the agent serves \(server.limits.maximumClients) commands at"
                        + " once already; try again when one has finished.").json.bytes + [0x0A]
                    _ = refusal.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(descriptor)
                    server.log("control socket: refused a client (pid \(credentials.pid)): \(server.limits.maximumClients) already")
                    continue
                }
                let connection = ControlConnection(id: nextID, peerUID: credentials.uid, peerPID: credentials.pid,
                                                   outgoingLimit: server.limits.outgoingLimit, wake: server.wakeUp)
                nextID += 1
                clients.append(Client(descriptor: descriptor, connection: connection, connectedAt: monotonicSeconds()))
            }
        }

        func serve(_ client: inout Client, events: Int16, buffer: inout [UInt8]) {
            if events & Int16(POLLOUT) != 0 { flush(&client) }
            if events & Int16(POLLIN) != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    client.input += buffer[0..<count]
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    client.connection.outgoing.withLock { $0.isOpen = false }
                    return
                }
            }
            if events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && events & Int16(POLLIN) == 0 {
                client.connection.outgoing.withLock { $0.isOpen = false }
            }
            if client.requests == 0 && monotonicSeconds() - client.connectedAt > server.limits.firstRequestTimeout {
                client.connection.send(ControlFailure(.malformed, "no request within \(Int(server.limits.firstRequestTimeout)) s"
                    + " of connecting; send one JSON object per line, such as {\"request\": \"hello\"}.").json)
                client.closeWhenFlushed = true
                client.requests = 1
            }
        }

        func flush(_ client: inout Client) {
            let pending = client.connection.outgoing.withLock { $0.bytes }
            guard !pending.isEmpty else { return }
            let sent = pending.withUnsafeBytes { send(client.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                client.connection.outgoing.withLock { $0.bytes.removeFirst(sent) }
            } else if sent < 0 && errno != EAGAIN && errno != EINTR {
                client.connection.outgoing.withLock { $0.isOpen = false }
            }
        }

        /// Hands the client's next complete line to the handler, unless one is in hand.
        func dispatchNextLine(_ client: inout Client) {
            let connection = client.connection
            guard !client.closeWhenFlushed, connection.isOpen, !connection.outgoing.withLock({ $0.inFlight }) else { return }
            guard let newline = client.input.firstIndex(of: 0x0A) else {
                if client.input.count > ControlProtocol.maximumLineBytes {
                    connection.send(ControlFailure(.tooLong, "a request line is at most \(ControlProtocol.maximumLineBytes)"
                        + " bytes; this one is longer. Send one JSON object per line.").json)
                    client.closeWhenFlushed = true
                    client.input.removeAll()
                }
                return
            }
            let line = client.input[..<newline]
            client.input.removeSubrange(...newline)
            client.requests += 1
            guard line.count <= ControlProtocol.maximumLineBytes else {
                connection.send(ControlFailure(.tooLong, "a request line is at most \(ControlProtocol.maximumLineBytes) bytes;"
                    + " this one is \(line.count).").json)
                return
            }
            // Parsed here, on the server thread, holding no lock (Jansson is C).
            let request: ControlRequest
            do { request = try ControlRequest(line: Array(line)) } catch {
                connection.send(error.json)
                return
            }
            connection.outgoing.withLock { $0.inFlight = true }
            let handler = server.handler
            let wake = server.wakeUp
            Task {
                await handler.handle(request, on: connection)
                connection.outgoing.withLock { $0.inFlight = false }
                wake()
            }
        }

        func dropFinished() {
            clients.removeAll { client in
                let state = client.connection.outgoing.withLock { $0 }
                let done = !state.isOpen || state.overflowed
                    || ((client.closeWhenFlushed || state.finishing) && state.bytes.isEmpty && !state.inFlight)
                if done { drop(client) }
                return done
            }
        }

        func drop(_ client: Client) {
            let connection = client.connection
            let overflowed = connection.outgoing.withLock { state -> Bool in
                state.isOpen = false
                return state.overflowed
            }
            if overflowed {
                server.log("control socket: dropped a client (pid \(connection.peerPID)) that read none of"
                    + " \(server.limits.outgoingLimit) bytes of replies")
            }
            close(client.descriptor)
            let handler = server.handler
            Task { await handler.closed(connection) }
        }
    }
}

/// The control socket could not be served; the message says what to do.
public struct ControlServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// CLOCK_MONOTONIC, in seconds.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
