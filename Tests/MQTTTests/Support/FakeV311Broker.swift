import Foundation

/// A stand-in for an MQTT 3.1.1-only broker, which mosquitto 2.0 cannot be made into: it answers
/// an MQTT 5 CONNECT with the 3.1.1 CONNACK "unacceptable protocol version" (0x20 0x02 0x00 0x01)
/// and closes, and accepts a 3.1.1 CONNECT (0x20 0x02 0x00 0x00). It records the protocol level
/// of every CONNECT. Loopback only.
///
/// ``Unanswered`` makes it close some CONNECTs without any CONNACK instead: `.mqtt5` plays
/// RabbitMQ before 3.13, which cannot parse an MQTT 5 CONNECT; `.every` a broker that drops
/// every client whatever its protocol.
final class FakeV311Broker: @unchecked Sendable {
    // @unchecked Sendable: `levels` is only touched with `lock` held; `listener` is a `let`.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var levels: [UInt8] = []
    private var clients: [Int32] = []
    private let unanswered: Unanswered?

    /// Which CONNECTs are closed without a CONNACK.
    enum Unanswered { case mqtt5, every }

    init(unanswered: Unanswered? = nil) throws {
        self.unanswered = unanswered
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard listening else {
            close(listener)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The protocol level of each CONNECT so far: 5 for MQTT 5, 4 for 3.1.1.
    var connectLevels: [UInt8] { lock.withLock { levels } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in lock.withLock({ clients }) { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { clients.append(client) }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        // CONNECT: type byte, remaining length (varint), then protocol name "MQTT" and the level.
        guard let type = readBytes(client, 1), type[0] == 0x10, let length = readVarint(client),
              let body = readBytes(client, length), body.count >= 7 else { return }
        let level = body[6]
        lock.withLock { levels.append(level) }
        switch unanswered {
        case .every: return
        case .mqtt5 where level == 5: return
        default: break
        }
        // CONNACK, remaining length 2, no session present, then the 3.1.1 return code.
        let connack: [UInt8] = [0x20, 0x02, 0x00, level == 5 ? 0x01 : 0x00]
        _ = send(client, connack, connack.count, 0)
        if level == 5 { return }
        // Hold the connection until the client or stop() ends it.
        while readBytes(client, 1) != nil {}
    }

    private func readVarint(_ client: Int32) -> Int? {
        var value = 0
        var multiplier = 1
        for _ in 0..<4 {
            guard let byte = readBytes(client, 1)?[0] else { return nil }
            value += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { return value }
            multiplier *= 128
        }
        return nil
    }

    private func readBytes(_ client: Int32, _ count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress! + got, count - got, 0) }
            if n <= 0 { return nil }
            got += n
        }
        return buffer
    }
}
