import BrokerHarness
import Foundation
@testable import MQTT
import Testing

/// The client against a real mosquitto: what goes out, what comes in, and how it leaves.
@Suite("Publish and subscribe against mosquitto")
struct PublishSubscribeTests {
    @Test("QoS 0 and QoS 1, retained or not, arrive at mosquitto_sub as sent")
    func publishesQoSAndRetainAsSent() async throws {
        let broker = try MosquittoBroker.start()
        let client = MosquittoClient(configuration: broker.configuration())
        let events = EventCollector(client)
        try client.start()
        let connection = try #require(await events.connected())
        #expect(connection == MQTTConnection(protocolVersion: .v5, sessionPresent: false,
                                             broker: .init(host: broker.host, port: broker.port)))

        let base = uniqueTopic("state")
        let live = try await MosquittoClients.startSubscriber(port: broker.port, topic: "\(base)/#", count: 2)
        try client.publish("\(base)/zero", payload: "fire and forget")
        try client.publish("\(base)/one", payload: Array("kept".utf8), qos: .atLeastOnce, retain: true)
        let seen = await live.messages()
        #expect(seen.map(\.topic) == ["\(base)/zero", "\(base)/one"])
        #expect(seen.map(\.payloadString) == ["fire and forget", "kept"])
        #expect(seen.map(\.qos) == [0, 1])
        #expect(seen.map(\.retained) == [false, false], "live subscribers see the retain flag cleared")

        let retained = try await MosquittoClients.retained(port: broker.port, topic: "\(base)/#")
        #expect(retained.map(\.topic) == ["\(base)/one"])
        #expect(retained.first?.retained == true)
        #expect(retained.first?.payloadString == "kept")
        await client.disconnect()
    }

    @Test("Subscribing before start delivers matching messages only, with their QoS and retain flag")
    func subscriptionsDeliverMatchingMessages() async throws {
        let broker = try MosquittoBroker.start()
        let base = uniqueTopic("commands")
        try await MosquittoClients.publish(port: broker.port, topic: "\(base)/old", message: "retained", retain: true,
                                           qos: 1)
        let client = MosquittoClient(configuration: broker.configuration())
        let events = EventCollector(client)
        try client.subscribe(["\(base)/+"], qos: .atLeastOnce)
        try client.start()
        await events.connected()
        let old = try #require(await events.message(on: "\(base)/old"))
        #expect(old.retain)
        #expect(old.payloadString == "retained")

        try await MosquittoClients.publish(port: broker.port, topic: "\(base)/deeper/level", message: "no match")
        try await MosquittoClients.publish(port: broker.port, topic: "\(base)/zero", message: "hello", qos: 1)
        let message = try #require(await events.message(on: "\(base)/zero"))
        #expect(message.payload == Array("hello".utf8))
        #expect(message.qos == .atLeastOnce)
        #expect(!message.retain)
        #expect(events.count { if case .message(let m) = $0 { m.topic.hasSuffix("/deeper/level") } else { false } } == 0)
        await client.disconnect()
    }

    @Test("Payloads past maximumIncomingPayload arrive cut, with their length; packets past maximumPacketSize never")
    func largePayloadsAreCutAtReceiptAndOversizePacketsRefused() async throws {
        let broker = try MosquittoBroker.start()
        var configuration = broker.configuration()
        configuration.maximumIncomingPayload = 16
        configuration.maximumPacketSize = 4096
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        let base = uniqueTopic("large")
        try client.subscribe(["\(base)/+"], qos: .atLeastOnce)
        try client.start()
        await events.connected()
        let sender = MosquittoClient(configuration: broker.configuration())
        let sent = EventCollector(sender)
        try sender.start()
        await sent.connected()
        try sender.publish("\(base)/small", payload: Array("sixteen bytes ok".utf8), qos: .atLeastOnce, retain: false)
        try sender.publish("\(base)/cut", payload: [UInt8](repeating: 7, count: 1000), qos: .atLeastOnce, retain: false)
        try sender.publish("\(base)/huge", payload: [UInt8](repeating: 7, count: 10_000), qos: .atLeastOnce, retain: false)
        try sender.publish("\(base)/after", payload: Array("after".utf8), qos: .atLeastOnce, retain: false)
        let small = try #require(await events.message(on: "\(base)/small"))
        #expect(small.payload.count == 16 && small.payloadLength == 16)
        let cut = try #require(await events.message(on: "\(base)/cut"))
        #expect(cut.payload == [UInt8](repeating: 7, count: 17))
        #expect(cut.payloadLength == 1000)
        // In order: once `after` is here, the 10 kB message was dropped by the broker, not late.
        await events.message(on: "\(base)/after")
        #expect(events.count { if case .message(let m) = $0 { m.topic.hasSuffix("/huge") } else { false } } == 0)
        await sender.disconnect()
        await client.disconnect()
    }

    @Test("The will is published when the connection drops without DISCONNECT, and the client reconnects")
    func willOnAbruptLoss() async throws {
        let broker = try MosquittoBroker.start()
        let status = uniqueTopic("status")
        var configuration = broker.configuration()
        configuration.will = MQTTWill(topic: status, payload: "offline")
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        await events.connected()

        let watcher = try await MosquittoClients.startSubscriber(port: broker.port, topic: status)
        // The socket is shut down without DISCONNECT: to the broker this is a crash or a pulled
        // cable, which is what the will is for.
        client.simulateAbruptDrop()
        let will = await watcher.messages()
        #expect(will.map(\.payloadString) == ["offline"])
        let lost = await events.next("disconnected event") { if case .disconnected = $0 { true } else { false } }
        if case .disconnected(let error)? = lost { #expect(error?.code == .connectionLost) }
        await events.connected(timeout: .seconds(3))
        await client.disconnect()
    }

    @Test("disconnect() is clean: no will, in well under a second, the stream ends, and it is idempotent")
    func cleanDisconnect() async throws {
        let broker = try MosquittoBroker.start()
        let status = uniqueTopic("status")
        var configuration = broker.configuration()
        configuration.will = MQTTWill(topic: status, payload: "offline")
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        await events.connected()

        let watcher = try await MosquittoClients.startSubscriber(port: broker.port, topic: status, timeout: .seconds(1))
        let started = ContinuousClock.now
        await client.disconnect()
        let took = ContinuousClock.now - started
        #expect(took < .milliseconds(800), "disconnect took \(took)")
        await client.disconnect()

        #expect(await watcher.messages().isEmpty, "a clean DISCONNECT must not trigger the will")
        #expect(await broker.waitForLog(containing: "Client \(configuration.clientID) disconnected"))
        #expect(events.all.last == .disconnected(nil))
        #expect(events.isFinished)
        #expect(throws: MQTTError.self) { try client.start() }
    }

    @Test("A QoS 1 publish right before disconnect() still reaches the broker (the agent's 'offline')")
    func lastPublishBeforeDisconnectArrives() async throws {
        let broker = try MosquittoBroker.start()
        let status = uniqueTopic("status")
        let client = MosquittoClient(configuration: broker.configuration())
        let events = EventCollector(client)
        try client.start()
        await events.connected()
        try client.publish(status, payload: "offline", qos: .atLeastOnce, retain: true)
        await client.disconnect()
        let retained = try await MosquittoClients.retained(port: broker.port, topic: status)
        #expect(retained.map(\.payloadString) == ["offline"])
    }

    @Test("Fifty QoS 0 publishes right before disconnect() all reach the broker, in order (plumb forget)")
    func aBurstBeforeDisconnectIsWrittenFirst() async throws {
        let broker = try MosquittoBroker.start()
        let base = uniqueTopic("burst")
        let client = MosquittoClient(configuration: broker.configuration())
        let events = EventCollector(client)
        try client.start()
        await events.connected()
        for index in 0..<50 {
            try client.publish("\(base)/\(index)", payload: Array("kept \(index)".utf8), qos: .atMostOnce, retain: true)
        }
        // libmosquitto drops packets still queued when DISCONNECT is sent: the client must write them first.
        await client.disconnect()
        let retained = try await MosquittoClients.retained(port: broker.port, topic: "\(base)/#")
        #expect(retained.count == 50)
    }

    @Test("Publishing while not connected throws .noConnection and queues nothing")
    func publishWhileDisconnected() async throws {
        let broker = try MosquittoBroker.start()
        let topic = uniqueTopic("queued")
        let client = MosquittoClient(configuration: broker.configuration())
        let events = EventCollector(client)
        #expect {
            try client.publish(topic, payload: "too early", qos: .atLeastOnce, retain: true)
        } throws: { ($0 as? MQTTError)?.code == .noConnection }

        try client.start()
        await events.connected()
        let retained = try await MosquittoClients.retained(port: broker.port, topic: topic)
        #expect(retained.isEmpty, "nothing published while offline may appear after connecting")

        broker.kill()
        await events.next("disconnected event") { if case .disconnected(let error) = $0 { error != nil } else { false } }
        let error = #expect(throws: MQTTError.self) { try client.publish(topic, payload: "offline") }
        #expect(error?.code == .noConnection)
        #expect(error?.description.contains("Nothing was sent") == true)
        await client.disconnect()
    }

    @Test("Malformed topics and filters are refused before anything is sent")
    func malformedTopics() async throws {
        let client = MosquittoClient(configuration: MQTTConfiguration(clientID: uniqueClientID()))
        for topic in ["", "a/+/b", "a/#"] {
            let error = #expect(throws: MQTTError.self) { try client.publish(topic, payload: "x") }
            #expect(error?.code == .invalidTopic)
        }
        let error = #expect(throws: MQTTError.self) { try client.subscribe(["ok/+", "bad/#/more"], qos: .atMostOnce) }
        #expect(error?.code == .invalidTopic)
        #expect(error?.reason.contains("bad/#/more") == true)
        await client.disconnect()
    }
}
