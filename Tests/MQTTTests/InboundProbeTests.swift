import BrokerHarness
import Foundation
import MQTT
import Testing

/// The broker behaviour behind the inbound stall, pinned on the mosquitto this machine has, and what the
/// client does about it: a Receive Maximum the flood cannot exhaust, and the inbound probe.
@Suite("Inbound probe and Receive Maximum over a real broker", .serialized)
struct InboundProbeTests {
    static let oversizeFile: String = {
        let path = temporaryPath("mqtt-oversize")
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
        // The subscription holds once a message on it arrives: an oversize message published
        // before that is no drop for this client, and the 20 would not exhaust its 20 slots.
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "ready", qos: 1)
        #expect(await events.message(on: topic, timeout: .seconds(10))?.payloadString == "ready")
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
        // As above: the flood counts only once the subscription holds.
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "ready", qos: 1)
        #expect(await events.message(on: topic, timeout: .seconds(10))?.payloadString == "ready")
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
        #expect(!all.contains { if case .inboundProbeFailed = $0 { true } else { false } })
        #expect(all.filter { if case .inboundStalled = $0 { true } else { false } }.count == 1)
        await client.disconnect()
    }

    @Test func aSessionHoldingThreeReceiveMaximumsOfOversizeMessagesIsRepairedInRounds() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let topic = uniqueTopic("rounds")
        let probe = InboundProbeSettings(topic: uniqueTopic("probe"), silence: .seconds(1), timeout: .seconds(1))
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: 20, probe: probe)
        await events.connected()
        try await MosquittoClients.publish(port: broker.port, topic: topic, file: Self.oversizeFile, qos: 1, times: 60)
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "held", qos: 1)
        #expect(await events.message(on: topic, timeout: .seconds(20))?.payloadString == "held")
        let stalls = events.all.compactMap { if case .inboundStalled(let stall) = $0 { stall.round } else { nil } }
        #expect(stalls.first == 1 && stalls.count >= 2 && stalls.count <= InboundLiveness.maximumRepairRounds, "\(stalls)")
        #expect(!events.all.contains { if case .inboundProbeFailed = $0 { true } else { false } })
        await client.disconnect()
    }

    /// The ACL lets the client subscribe to the probe topic but not publish to it.
    static func brokerDenyingTheProbe() throws -> MosquittoBroker {
        try MosquittoBroker.start { placement in
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
    }

    @Test func aProbeTheBrokerRefusesOnMQTT5GivesUpWithoutAReconnect() async throws {
        let broker = try Self.brokerDenyingTheProbe()
        defer { broker.stop() }
        let topic = uniqueTopic("acl")
        let probe = InboundProbeSettings(topic: "probe/denied", silence: .seconds(1), timeout: .seconds(1))
        let (client, events) = try Self.client(broker, topic: topic, receiveMaximum: nil, probe: probe)
        await events.connected()
        let failed = await events.next("refused probe", timeout: .seconds(10)) {
            if case .inboundProbeFailed = $0 { true } else { false }
        }
        #expect(failed == .inboundProbeFailed(.refused(reasonCode: 0x87)))
        try await Task.sleep(for: .seconds(3))
        #expect(events.count { $0.isConnected } == 1, "no reconnect: \(events.all)")
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "still", qos: 1)
        #expect(await events.message(on: topic)?.payloadString == "still")
        await client.disconnect()
    }

    @Test func aProbeDroppedSilentlyOnMQTT311GivesUpAfterTheRoundLimitInsteadOfLooping() async throws {
        let broker = try Self.brokerDenyingTheProbe()
        defer { broker.stop() }
        let topic = uniqueTopic("acl311")
        var configuration = broker.configuration("acl311", version: .v311)
        configuration.cleanSession = false
        configuration.inboundProbe = InboundProbeSettings(topic: "probe/denied", silence: .seconds(1), timeout: .seconds(1))
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.subscribe([topic], qos: .atLeastOnce)
        try client.start()
        await events.connected()
        let failed = await events.next("unanswered probe", timeout: .seconds(30)) {
            if case .inboundProbeFailed = $0 { true } else { false }
        }
        #expect(failed == .inboundProbeFailed(.unanswered(rounds: InboundLiveness.maximumRepairRounds)))
        try await Task.sleep(for: .seconds(3))
        #expect(events.count { $0.isConnected } == InboundLiveness.maximumRepairRounds + 1, "then no more: \(events.all)")
        try await MosquittoClients.publish(port: broker.port, topic: topic, message: "still", qos: 1)
        #expect(await events.message(on: topic)?.payloadString == "still")
        await client.disconnect()
    }
}
