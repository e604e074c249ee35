import MQTT
import Testing

/// A broker that closes an MQTT 5 CONNECT without a CONNACK, as RabbitMQ before 3.13 does (its
/// MQTT plugin speaks 3.1.1 only and cannot parse the MQTT 5 packet), instead of refusing it
/// with "unsupported protocol version".
@Suite("Falling back to 3.1.1 when an MQTT 5 CONNECT goes unanswered")
struct UnansweredConnectTests {
    @Test("An MQTT 5 CONNECT closed unanswered is retried at once with 3.1.1, which is kept")
    func fallsBackTo311() async throws {
        let fake = try FakeV311Broker(unanswered: .mqtt5)
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

    @Test("When 3.1.1 goes unanswered too the protocol was not the cause: MQTT 5 is tried again")
    func goesBackToMQTT5() async throws {
        let fake = try FakeV311Broker(unanswered: .every)
        defer { fake.stop() }
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: fake.port, clientID: uniqueClientID())
        configuration.reconnectDelay = .init(minimum: .milliseconds(100), maximum: .milliseconds(100))
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        // Each round: MQTT 5 closed (a silent fallback), 3.1.1 closed (reported), back to MQTT 5.
        await events.connectionFailed()
        await events.connectionFailed()
        await client.disconnect()
        #expect(Array(fake.connectLevels.prefix(4)) == [5, 4, 5, 4], "\(fake.connectLevels)")
    }
}
