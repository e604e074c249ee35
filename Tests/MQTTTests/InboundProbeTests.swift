import BrokerHarness
import Foundation
import MQTT
import Testing

/// The broker behaviour behind issue 17, pinned on the mosquitto this machine has, and what the
/// client does about it: a Receive Maximum the flood cannot exhaust, and the inbound probe.
@Suite("Inbound probe and Receive Maximum over a real broker", .serialized)
struct InboundProbeTests {
    static let oversizeFile: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-mqtt-oversize-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x78, count: 1024 * 1024 + 1))
        return path
    }()

    /// A persistent MQTT 5 client announcing a 1 MiB maximum packet size, subscribed to `topic`.
    static func client(_ broker: MosquittoBroker, topic: String, receiveMaximum: Int?,
                       probe: InboundProbeSettings? = nil) throws -> (MosquittoClient, EventCollector) {
        var configuration = broker.configuration("stall")
        configuration.cleanSession = false
        configuration.maximumPacketSize = 1024 * 1024
        configuration.receiveMaximum = receiveMaximum
        configuration.inboundProbe = probe
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.subscribe([topic], qos: .atLeastOnce)
        try client.start()
        return (client, events)
    }

    /// If this fails, mosquitto gives the unit back now: note the version in the README, and
    /// keep the probe for the brokers users still run.
    @Test func twentyDroppedOversizeMessagesSilenceAClientWithLibmosquittosReceiveMaximum() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let topic = uniqueTopic("stall")
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: nil)
        await events.connected()
        try await MosquittoClients.publish(port: broker.port, topic: topic, file: Self.oversizeFile, qos: 1, times: 20)
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "held", qos: 1)
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "passes", qos: 0)
        #expect(await events.message(on: topic)?.payloadString == "passes")
        try await Task.sleep(for: .seconds(2))
        #expect(events.count { if case .message(let m) = $0 { m.payloadString == "held" } else { false } } == 0,
                "mosquitto delivered a QoS 1 message after 20 drops: its accounting was fixed")
        await client.disconnect()
    }

    @Test func aReceiveMaximumOf65535OutlastsTwoHundredDrops() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let topic = uniqueTopic("wide")
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: 65_535)
        await events.connected()
        for qos in [1, 2] {
            try await MosquittoClients.publish(port: broker.port, topic: topic, file: Self.oversizeFile, qos: qos, times: 100)
        }
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "after", qos: 1)
        #expect(await events.message(on: topic, timeout: .seconds(3))?.payloadString == "after")
        await client.disconnect()
    }

    @Test func theProbeFindsAStallAndTheReconnectDeliversWhatWasHeldOnce() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let topic = uniqueTopic("probed")
        let probe = InboundProbeSettings(topic: uniqueTopic("probe"), silence: .seconds(1), timeout: .seconds(1))
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: 20, probe: probe)
        await events.connected()
        try await MosquittoClients.publish(port: broker.port, topic: topic, file: Self.oversizeFile, qos: 2, times: 20)
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "held", qos: 1)
        let stall = await events.next("inbound stall", timeout: .seconds(10)) {
            if case .inboundStalled = $0 { true } else { false }
        }
        #expect(stall != nil)
        let connection = await events.connected()
        #expect(connection?.sessionPresent == true, "the repair keeps the session")
        #expect(await events.message(on: topic)?.payloadString == "held")
        // The check of the repair comes back; nothing is delivered twice, no probe reaches us.
        try await Task.sleep(for: .seconds(3))
        let all = events.all
        #expect(all.filter { if case .message(let m) = $0 { m.payloadString == "held" } else { false } }.count == 1)
        #expect(!all.contains { if case .message(let m) = $0 { m.topic == probe.topic } else { false } })
        #expect(!all.contains { if case .inboundProbeUnanswered = $0 { true } else { false } })
        #expect(all.filter { if case .inboundStalled = $0 { true } else { false } }.count == 1)
        await client.disconnect()
    }

    @Test func aProbeTheBrokerNeverAnswersStopsAfterOneReconnectInsteadOfLooping() async throws {
        // The ACL lets the client subscribe but not publish to the probe topic.
        let broker = try MosquittoBroker.start { placement in
            let acl = placement.directory + "/acl"
            try "topic read probe/denied\ntopic readwrite plumb-test/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
            return """
                user \(placement.user)
                listener \(placement.port) 127.0.0.1
                allow_anonymous true
                acl_file \(acl)
                log_dest file \(placement.directory)/mosquitto.log
                """
        }
        defer { broker.stop() }
        let topic = uniqueTopic("acl")
        let probe = InboundProbeSettings(topic: "probe/denied", silence: .seconds(1), timeout: .seconds(1))
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: nil, probe: probe)
        await events.connected()
        let gaveUp = await events.next("unanswered probe", timeout: .seconds(15)) {
            if case .inboundProbeUnanswered = $0 { true } else { false }
        }
        #expect(gaveUp != nil)
        try await Task.sleep(for: .seconds(3))
        #expect(events.count { $0.isConnected } == 2, "one reconnect, then no more probes: \(events.all)")
        // Still a working client.
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "still", qos: 1)
        #expect(await events.message(on: topic)?.payloadString == "still")
        await client.disconnect()
    }
}
