import BrokerHarness
import MQTT
import Testing

/// Connecting to a broker that is down, comes back, or only speaks 3.1.1.
@Suite("Reconnecting and protocol fallback")
struct ReconnectTests {
    @Test("A broker that is down at start: one .connectionRefused per attempt, then connected once it is up")
    func brokerDownAtStart() async throws {
        let broker = try MosquittoBroker.start()
        broker.stop()
        var configuration = broker.configuration()
        configuration.reconnectDelay = .init(minimum: .milliseconds(100), maximum: .milliseconds(400))
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()

        let first = try #require(await events.connectionFailed())
        #expect(first.code == .connectionRefused)
        #expect(first.description.contains("Is mosquitto running on 127.0.0.1:\(broker.port)?"))
        await events.connectionFailed()  // and it retries
        try broker.restart()
        #expect(await events.connected(timeout: .seconds(3))?.protocolVersion == .v5)
        await client.disconnect()
    }

    @Test("After a broker crash and restart the client reconnects within the backoff and resubscribes")
    func reconnectsAndResubscribes() async throws {
        let broker = try MosquittoBroker.start()
        let commands = uniqueTopic("cmd")
        let client = MosquittoClient(configuration: broker.configuration())  // default backoff: 1 s first
        let events = EventCollector(client)
        try client.subscribe(["\(commands)/#"], qos: .atLeastOnce)
        try client.start()
        await events.connected()

        broker.kill()
        let lost = await events.next("disconnected event") { if case .disconnected = $0 { true } else { false } }
        if case .disconnected(let error)? = lost {
            #expect(error?.code == .connectionLost, "an unexpected loss carries an error: \(String(describing: error))")
        }
        try broker.restart()
        let restarted = ContinuousClock.now
        await events.connected(timeout: .seconds(3))
        #expect(ContinuousClock.now - restarted < .milliseconds(1500), "the first retry comes after 1 s")

        // A clean session lost the subscription with the old broker: only a resubscribe gets this.
        #expect(await broker.waitForLog(containing: "Sending SUBACK to \(client.configuration.clientID)"))
        try await MosquittoClients.publish(port: broker.port, topic: "\(commands)/zero", message: "after restart",
                                           qos: 1)
        #expect(await events.message(on: "\(commands)/zero")?.payloadString == "after restart")
        await client.disconnect()
    }

    @Test("A persistent session (cleanSession false) is resumed on the next connect: sessionPresent",
          arguments: [MQTTProtocolVersion.v5, .v311])
    func persistentSessionIsResumed(version: MQTTProtocolVersion) async throws {
        let broker = try MosquittoBroker.start()
        var configuration = broker.configuration(version: version)
        configuration.cleanSession = false
        for expected in [false, true] {
            let client = MosquittoClient(configuration: configuration)
            let events = EventCollector(client)
            try client.subscribe([uniqueTopic("session")], qos: .atLeastOnce)
            try client.start()
            #expect(await events.connected() == MQTTConnection(protocolVersion: version, sessionPresent: expected,
                                                               broker: .init(host: broker.host, port: broker.port)))
            await client.disconnect()
        }
    }

    @Test("A broker that refuses MQTT 5 as an unsupported version gets MQTT 3.1.1, reported in .connected")
    func fallsBackTo311() async throws {
        // mosquitto 2.0 always accepts MQTT 5, so a fake 3.1.1-only broker plays the refusal.
        let fake = try FakeV311Broker()
        defer { fake.stop() }
        let client = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: fake.port,
                                                                      clientID: uniqueClientID()))
        let events = EventCollector(client)
        try client.start()
        let connection = await events.connected()
        #expect(connection?.protocolVersion == .v311)
        #expect(fake.connectLevels == [5, 4], "one MQTT 5 attempt, then 3.1.1 at once")
        #expect(events.count(where: \.isConnectionFailed) == 0, "a fallback is not a failure")
        await client.disconnect()
    }
}
