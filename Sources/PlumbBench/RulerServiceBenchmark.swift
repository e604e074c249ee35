import Accelerometers
import Foundation
import MQTT
import PlumbSync

/// Round trips of a `ruler` 30 cm request through a local mosquitto to `plumb run` and back,
/// over MQTT 5 request/response (response topic + correlation data), with the rate limit raised.
///
/// Latency: one request at a time, so each figure is a whole round trip. Throughput: a window of
/// requests in flight, as many clients would keep, for `seconds`.
struct RulerServiceBenchmark {
    var seconds: Double
    let plumb: URL
    let request = Array(#"{"length":30,"unit":"cm","style":"metric","px_per_unit":80}"#.utf8)
    let inFlight = 32

    func run() {
        guard let broker = BenchBroker(for: "ruler benchmark", directoryName: "plumb-bench-rr") else { return }
        defer { broker.stop() }
        let port = broker.port, directory = broker.directory
        let config = directory.appendingPathComponent("plumb.yaml")
        try? "log_level: warning\nservice:\n  requests_per_s: 1000000\n  burst: 1000000\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let agent = Process()
        agent.executableURL = plumb
        agent.arguments = ["run", "--config", config.path, "--sensor", "sim", "--broker", "mqtt://127.0.0.1:\(port)",
                           "--device-id", "bench", "--state-dir", directory.appendingPathComponent("state").path]
        agent.standardError = FileHandle.nullDevice
        guard (try? agent.run()) != nil else {
            print("ruler benchmark: could not run \(plumb.path)")
            return
        }
        defer { if agent.isRunning { agent.terminate(); agent.waitUntilExit() } }

        let replies = Replies()
        let client = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "bench-rr"))
        try? client.subscribe(["bench/replies"], qos: .atMostOnce)
        let events = client.events
        Task {
            for await event in events {
                if case .connected = event { replies.connected() }
                guard case .message(let message) = event, let data = message.correlationData,
                      message.payload.count > 1000 else { continue }
                replies.arrived(String(decoding: data, as: UTF8.self), at: clock.now())
            }
        }
        try? client.start()
        Thread.sleep(forTimeInterval: 2)
        guard replies.isConnected else {
            print("ruler benchmark: could not connect to mosquitto")
            return
        }

        var sequence = 0
        func send() -> String {
            sequence += 1
            let id = String(sequence)
            replies.sent(id, at: clock.now())
            try? client.publish("plumb/bench/request/ruler", payload: request, qos: .atMostOnce, retain: false,
                                properties: MQTTPublishProperties(responseTopic: "bench/replies", correlationData: Array(id.utf8)))
            return id
        }

        // Latency: one at a time.
        var latencies: [Double] = []
        for _ in 0..<2000 {
            let id = send()
            let deadline = clock.now() + 1
            while clock.now() < deadline, replies.latency(of: id) == nil { usleep(20) }
            if let latency = replies.latency(of: id) { latencies.append(latency) }
        }
        // Throughput: keep `inFlight` outstanding.
        let answeredBefore = replies.answered
        let start = clock.now()
        var sentHere = 0
        while clock.now() - start < seconds {
            while sentHere - (replies.answered - answeredBefore) < inFlight {
                _ = send()
                sentHere += 1
            }
            usleep(50)
        }
        let wall = clock.now() - start
        let rate = Double(replies.answered - answeredBefore) / wall
        latencies.sort()
        guard !latencies.isEmpty else {
            print("ruler round trips: no replies arrived")
            return
        }
        let p50 = BenchRig.percentile(latencies, 0.5) * 1000
        let p99 = BenchRig.percentile(latencies, 0.99) * 1000
        print("ruler 30 cm:       \(latencies.count) round trips one at a time, p50 \(figure(p50, 2)) ms, p99 \(figure(p99, 2)) ms; "
              + "\(figure(rate, 0)) requests/s with \(inFlight) in flight for \(figure(wall, 1)) s")
        print("targets:           ≥ 2000 requests/s: \(rate >= 2000 ? "met" : "MISSED"); p99 < 10 ms: \(p99 < 10 ? "met" : "MISSED")")
        Task { await client.disconnect() }
    }
}

/// Send and arrival times by correlation id, shared by the benchmark and the client's task.
final class Replies: Sendable {
    private struct Book {
        var sent: [String: Double] = [:]
        var latencies: [String: Double] = [:]
        var answered = 0
        var connected = false
    }
    private let book = Locked(Book())

    func connected() { book.withLock { $0.connected = true } }
    var isConnected: Bool { book.withLock { $0.connected } }
    var answered: Int { book.withLock { $0.answered } }
    func sent(_ id: String, at time: Double) { book.withLock { $0.sent[id] = time } }
    func arrived(_ id: String, at time: Double) {
        book.withLock { book in
            guard let sent = book.sent.removeValue(forKey: id) else { return }
            book.latencies[id] = time - sent
            book.answered += 1
        }
    }
    func latency(of id: String) -> Double? { book.withLock { $0.latencies[id] } }
}
