import BrokerHarness
import MQTT
import Testing

/// The harness promises the agent's integration tests rely on.
@Suite("BrokerHarness")
struct BrokerHarnessTests {
    @Test("With persistence, retained messages survive stop() and restart() on the same port; without, they do not",
          arguments: [true, false])
    func persistenceAcrossRestart(persistence: Bool) async throws {
        let broker = try MosquittoBroker.start(.init(persistence: persistence))
        let port = broker.port
        let topic = uniqueTopic("kept")
        try await MosquittoClients.publish(port: port, topic: topic, message: "still here", retain: true, qos: 1)
        broker.stop()
        #expect(!broker.isRunning)
        try broker.restart()
        #expect(broker.isRunning)
        #expect(broker.port == port)
        let retained = try await MosquittoClients.retained(port: port, topic: topic)
        #expect(retained.map(\.payloadString) == (persistence ? ["still here"] : []))
    }

    @Test("TLS and a password file together: our client needs the CA and the password")
    func tlsWithPasswords() async throws {
        let broker = try MosquittoBroker.start(.init(passwordFile: ["plumb": "s3cret"], tls: true))
        #expect(broker.url == "mqtts://127.0.0.1:\(broker.port)")
        var configuration = broker.configuration()
        configuration.tls = .init(caFile: broker.caFile)
        configuration.username = "plumb"
        configuration.password = "s3cret"
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        await events.connected()
        await client.disconnect()
        #expect(broker.logContents().contains("New client connected"))
    }
}
