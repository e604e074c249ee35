import Accelerometers
import Foundation
import MQTT

/// The inbound stall's two failure modes, measured against a local mosquitto:
/// - the stall: messages over the agent's 1 MiB maximum packet size, which the broker drops
///   without giving back the Receive Maximum unit each one took. How fast the agent answers after
///   800 of them as shipped (Receive Maximum 65535), and, with libmosquitto's 20, how long the
///   inbound probe takes to find and repair the stall;
/// - memory: what a libmosquitto client pays for one large message when it announces no maximum
///   (`mosquitto_sub`, whole messages in memory), against the agent, which announces 1 MiB.
struct InboundBenchmark {
    let plumb: URL
    let megabyte = 1024 * 1024

    func run() {
        guard let broker = BenchBroker(for: "inbound benchmark", directoryName: "plumb-bench-inbound") else { return }
        defer { broker.stop() }
        let port = broker.port, directory = broker.directory
        let oversize = directory.appendingPathComponent("oversize").path
        let large = directory.appendingPathComponent("large").path
        _ = FileManager.default.createFile(atPath: oversize, contents: Data(repeating: 0x78, count: megabyte + 1))
        _ = FileManager.default.createFile(atPath: large, contents: Data(repeating: 0x78, count: 64 * megabyte))

        if let (latency, peakMB) = stallCase(port: port, in: directory, oversize: oversize, yaml: "log_level: warning\n",
                                             flood: 400, large: large) {
            print("inbound, as shipped: 800 messages over 1 MiB (QoS 1 and 2) and 4 of 64 MiB dropped for the agent;"
                  + " the next QoS 1 request answered in \(figure(latency * 1000, 0)) ms; agent peak RSS \(figure(peakMB, 1)) MB")
        }
        let before = "log_level: warning\nmqtt:\n  receive_maximum: 20\n  inbound_probe_s: 5\n"
        if let (latency, _) = stallCase(port: port, in: directory, oversize: oversize, yaml: before, flood: 10, large: nil) {
            print("inbound, receive maximum 20 (libmosquitto's): stalled by 20 drops; the probe (inbound_probe_s 5)"
                  + " repaired it and the held request was answered after \(figure(latency, 1)) s (bound: 5 + 5 s and the"
                  + " reconnect)")
        }
        if let peakMB = unboundedClientPeak(port: port, large: large) {
            print("inbound, no maximum announced: mosquitto_sub's peak RSS \(figure(peakMB, 1)) MB after four 64 MiB messages"
                  + " (each read whole): the memory failure mode the agent's 1 MiB limit avoids")
        }
    }

    /// Starts the agent with `yaml`, floods `P/request/convert` with `flood` oversize messages at
    /// QoS 1 and as many at QoS 2 (and four `large` ones), then times one QoS 1 request.
    private func stallCase(port: Int, in directory: URL, oversize: String, yaml: String, flood: Int,
                           large: String?) -> (seconds: Double, peakMB: Double)? {
        guard let agent = AgentBenchmark.launch(plumb, in: directory, port: port, yaml: yaml, arguments: []) else { return nil }
        defer { if agent.isRunning { agent.terminate(); agent.waitUntilExit() } }
        let replies = Replies()
        let client = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port,
                                                                      clientID: "bench-inbound-\(flood)"))
        try? client.subscribe(["plumb/bench/response/convert"], qos: .atLeastOnce)
        let events = client.events
        Task {
            for await event in events {
                if case .connected = event { replies.connected() }
                if case .message(let message) = event, let text = message.payloadString, text.contains("\"ok\"") {
                    replies.arrived("reply", at: clock.now())
                }
            }
        }
        try? client.start()
        Thread.sleep(forTimeInterval: 2)
        defer { Task { await client.disconnect() } }
        guard replies.isConnected else {
            print("inbound benchmark: could not connect to mosquitto")
            return nil
        }
        for qos in [1, 2] { publish(port: port, file: oversize, qos: qos, times: flood) }
        if let large { publish(port: port, file: large, qos: 1, times: 4) }
        let sent = clock.now()
        replies.sent("reply", at: sent)
        try? client.publish("plumb/bench/request/convert", payload: #"{"value":1,"from":"in","to":"mm"}"#, qos: .atLeastOnce)
        while replies.answered == 0, clock.now() - sent < 60 { Thread.sleep(forTimeInterval: 0.005) }
        guard let latency = replies.latency(of: "reply") else {
            print("inbound benchmark: the request after the flood was not answered within 60 s")
            return nil
        }
        return (latency, Double(BenchRig.peakRSSKiB(agent.processIdentifier)) / 1024)
    }

    /// `mosquitto_sub` (MQTT 5, no maximum packet size) receiving four `large` messages.
    private func unboundedClientPeak(port: Int, large: String) -> Double? {
        let subscriber = Process()
        subscriber.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        subscriber.arguments = ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-t", "bench/large"]
        subscriber.standardOutput = FileHandle.nullDevice
        guard (try? subscriber.run()) != nil else { return nil }
        defer { subscriber.terminate(); subscriber.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.5)
        let topic = "bench/large"
        publish(port: port, file: large, qos: 1, times: 4, topic: topic)
        Thread.sleep(forTimeInterval: 1)
        return Double(BenchRig.peakRSSKiB(subscriber.processIdentifier)) / 1024
    }

    private func publish(port: Int, file: String, qos: Int, times: Int, topic: String = "plumb/bench/request/convert") {
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        publisher.arguments = ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", String(qos),
                               "--repeat", String(times), "-t", topic, "-f", file]
        guard (try? publisher.run()) != nil else { return }
        publisher.waitUntilExit()
    }
}
