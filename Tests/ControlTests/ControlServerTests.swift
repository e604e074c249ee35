import BrokerHarness
import Contract
import Control
import PlumbSync
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Answers `hello` and `read` at once; `selftest` never returns until released (a request that
/// takes long); counts closes.
final class EchoHandler: ControlHandler {
    let closes = Locked(0)
    let handled = Locked(0)
    let release = Locked(false)

    func handle(_ request: ControlRequest, on connection: ControlConnection) async {
        handled.withLock { $0 += 1 }
        switch request {
        case .selftest:
            while !release.withLock({ $0 }) && connection.isOpen { try? await Task.sleep(for: .milliseconds(10)) }
            connection.send(ControlReply.message(ControlReply.selftest))
        case .watch:
            // A stream nobody reads: 64 KiB lines until the connection is dropped.
            let line = ControlReply.message(ControlReply.reading, ["pad": .string(String(repeating: "x", count: 65536))])
            Task {
                while connection.isOpen {
                    connection.send(line)
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        default:
            connection.send(ControlReply.message(ControlReply.hello, ["echo": request.json]))
        }
    }

    func closed(_ connection: ControlConnection) async {
        closes.withLock { $0 += 1 }
    }
}

@Suite("The control socket's server: strict, and no client can stall it")
struct ControlServerTests {
    private func socketPath(_ name: String) -> String {
        let directory = "/tmp/plumb-control-\(getpid())-\(name)"
        mkdir(directory, 0o700)
        return directory + "/c.sock"
    }

    @Test("A malformed line gets an error reply, and the next request is answered")
    func malformedThenFine() async throws {
        let path = socketPath("malformed")
        let handler = EchoHandler()
        let server = try ControlServer(path: path, handler: handler, log: { _ in })
        defer { server.stop() }
        let client = try RawUnixSocket(path)
        client.write("{\"request\":\"read\",}\n")
        let error = try #require(await client.line())
        #expect(error.contains("\"reply\":\"error\"") && error.contains("\"code\":\"malformed\""))
        client.write("not json at all\n{\"request\":\"hello\"}\n")
        #expect(await client.line()?.contains("malformed") == true)
        #expect(await client.line()?.contains("\"reply\":\"hello\"") == true)
        #expect(handler.handled.withLock { $0 } == 1)
    }

    @Test("The socket is mode 0660; a stale socket file is replaced, a served one is refused")
    func socketFile() async throws {
        let path = socketPath("file")
        // A stale socket: bound, then its server gone.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(stale)
        let server = try ControlServer(path: path, handler: EchoHandler(), log: { _ in })
        defer { server.stop() }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o660)
        #expect(throws: ControlServerError.self) { try ControlServer(path: path, handler: EchoHandler(), log: { _ in }) }
        // A file that is not a socket is left alone, and refused.
        let file = socketPath("regular-file")
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ControlServerError.self) { try ControlServer(path: file, handler: EchoHandler(), log: { _ in }) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
    }

    @Test("A client that never sends a request is closed after the first-request timeout; others are served meanwhile")
    func hungClient() async throws {
        let path = socketPath("hung")
        var limits = ControlServer.Limits()
        limits.firstRequestTimeout = 3
        let handler = EchoHandler()
        let server = try ControlServer(path: path, handler: handler, limits: limits, log: { _ in })
        defer { server.stop() }
        let hung = try RawUnixSocket(path)
        hung.write("{\"request\":")  // half a line, then nothing
        let other = try RawUnixSocket(path)
        other.write("{\"request\":\"hello\"}\n")
        // Answered while the hung client still holds its connection (it is closed at 3 s).
        #expect(await other.line(timeout: 2.5)?.contains("hello") == true)
        let notice = await hung.line(timeout: 6)
        #expect(notice?.contains("no request within") == true)
        #expect(await hung.line(timeout: 2) == nil)
    }

    @Test("A request that takes long holds up its own connection only")
    func slowRequest() async throws {
        let path = socketPath("slow")
        let handler = EchoHandler()
        let server = try ControlServer(path: path, handler: handler, log: { _ in })
        defer { server.stop() }
        let slow = try RawUnixSocket(path)
        slow.write("{\"request\":\"selftest\"}\n{\"request\":\"hello\"}\n")
        let other = try RawUnixSocket(path)
        other.write("{\"request\":\"hello\"}\n")
        #expect(await other.line(timeout: 2)?.contains("hello") == true)
        // The slow client's second request waits behind its first: one in hand at a time.
        #expect(await slow.line(timeout: 0.3) == nil)
        handler.release.withLock { $0 = true }
        #expect(await slow.line()?.contains("selftest") == true)
        #expect(await slow.line()?.contains("hello") == true)
    }

    @Test("A flood of requests is answered one at a time, and a reader who never reads is dropped")
    func flood() async throws {
        let path = socketPath("flood")
        let handler = EchoHandler()
        let server = try ControlServer(path: path, handler: handler, log: { _ in })
        defer { server.stop() }
        let flooder = try RawUnixSocket(path, nonBlocking: true)
        flooder.write(String(repeating: "{\"request\":\"hello\"}\n", count: 20000))
        // A stream nobody reads: dropped once 1 MiB waits.
        let deaf = try RawUnixSocket(path)
        deaf.write("{\"request\":\"watch\"}\n")
        let other = try RawUnixSocket(path)
        for _ in 0..<20 {
            other.write("{\"request\":\"hello\"}\n")
            #expect(await other.line(timeout: 2)?.contains("hello") == true)
        }
        let deadline = Date().addingTimeInterval(10)
        while handler.closes.withLock({ $0 }) == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(handler.closes.withLock { $0 } >= 1)
    }

    @Test("A line over 64 KiB gets too_long and the connection is closed")
    func tooLong() async throws {
        let path = socketPath("long")
        let server = try ControlServer(path: path, handler: EchoHandler(), log: { _ in })
        defer { server.stop() }
        let client = try RawUnixSocket(path)
        client.write("{\"request\":\"" + String(repeating: "a", count: 70000))
        #expect(await client.line()?.contains("too_long") == true)
        #expect(await client.line(timeout: 2) == nil)
    }

    @Test("One client more than the limit is told busy")
    func busy() async throws {
        let path = socketPath("busy")
        var limits = ControlServer.Limits()
        limits.maximumClients = 2
        let server = try ControlServer(path: path, handler: EchoHandler(), limits: limits, log: { _ in })
        defer { server.stop() }
        let first = try RawUnixSocket(path)
        let second = try RawUnixSocket(path)
        first.write("{\"request\":\"hello\"}\n")
        second.write("{\"request\":\"hello\"}\n")
        #expect(await first.line()?.contains("hello") == true)
        #expect(await second.line()?.contains("hello") == true)
        let third = try RawUnixSocket(path)
        #expect(await third.line()?.contains("\"code\":\"busy\"") == true)
    }

    @Test("The client library: hello, an error reply thrown as refused, no agent, and a stop removes the socket")
    func client() async throws {
        let path = socketPath("client")
        let server = try ControlServer(path: path, handler: EchoHandler(), log: { _ in })
        // The client blocks while it waits, so it waits off the cooperative pool: the handler
        // answers on that pool, which two blocked tests would fill on two cores.
        let (reply, refusedAfterStop) = try await offThePool { () throws -> ([String: JSONValue], Bool) in
            let client = try ControlClient(path: path)
            let reply = try client.ask(.hello, timeout: 5)
            server.stop()
            var refused = false
            do { _ = try client.ask(.read, timeout: 2) } catch { refused = true }
            return (reply, refused)
        }
        #expect(reply["reply"] == .string("hello"))
        #expect(refusedAfterStop, "an ask after the server stopped must throw")
        let deadline = Date().addingTimeInterval(3)
        while access(path, F_OK) == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(throws: ControlClient.ConnectFailure.noAgent) { _ = try ControlClient(path: path) }
    }
}
