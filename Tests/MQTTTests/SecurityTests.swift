import BrokerHarness
import MQTT
import Testing

/// TLS and passwords: success, and failures that say what to check and keep retrying.
@Suite("TLS and authentication")
struct SecurityTests {
    private static let fastRetry = MQTTConfiguration.ReconnectDelay(minimum: .milliseconds(100),
                                                                   maximum: .milliseconds(200))

    @Test("TLS verified against the test CA connects, and mosquitto_sub over TLS sees what we publish")
    func tlsWithTrustedCA() async throws {
        let broker = try MosquittoBroker.start(.init(tls: true))
        var configuration = broker.configuration()
        configuration.tls = .init(caFile: broker.caFile)
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        await events.connected()

        let topic = uniqueTopic("tls")
        try client.publish(topic, payload: "secret", qos: .atLeastOnce, retain: true)
        let seen = try await MosquittoClients.retained(port: broker.port, topic: topic,
                                                       extraArgs: broker.tlsClientArguments)
        #expect(seen.map(\.payloadString) == ["secret"])
        await client.disconnect()
    }

    @Test("TLS with the wrong CA fails as .tls, names the CA file, and keeps retrying")
    func tlsWithWrongCA() async throws {
        let broker = try MosquittoBroker.start(.init(tls: true))
        let certificates = try TestCertificates.shared()
        var configuration = broker.configuration()
        configuration.tls = .init(caFile: certificates.untrustedCAFile)
        configuration.reconnectDelay = Self.fastRetry
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()

        let error = try #require(await events.connectionFailed())
        #expect(error.code == .tls)
        #expect(error.description.contains(certificates.untrustedCAFile))
        #expect(error.reason.contains("certificate verify failed"), "OpenSSL's reason: \(error.reason)")
        #expect(await events.connectionFailed()?.code == .tls)
        #expect(events.count(where: \.isConnected) == 0)
        await client.disconnect()
    }

    @Test("A broker requiring client certificates refuses us without one (.tls) and accepts us with one")
    func clientCertificateRequired() async throws {
        let broker = try MosquittoBroker.start(.init(requireClientCertificate: true))
        var without = broker.configuration("no-cert")
        without.tls = .init(caFile: broker.caFile)
        without.reconnectDelay = Self.fastRetry
        let refused = MosquittoClient(configuration: without)
        let refusedEvents = EventCollector(refused)
        try refused.start()
        let refusal = await refusedEvents.connectionFailed()
        #expect(refusal?.code == .tls, "\(String(describing: refusal))")

        var with = broker.configuration("cert")
        with.tls = .init(caFile: broker.caFile, certFile: broker.clientCertFile, keyFile: broker.clientKeyFile)
        let accepted = MosquittoClient(configuration: with)
        let acceptedEvents = EventCollector(accepted)
        try accepted.start()
        await acceptedEvents.connected()
        await accepted.disconnect()
        await refused.disconnect()
    }

    @Test("An unreadable CA file is refused at start, naming the file")
    func unreadableCAFile() async throws {
        var configuration = MQTTConfiguration(clientID: uniqueClientID())
        configuration.tls = .init(caFile: "/nonexistent/plumb-ca.crt")
        let client = MosquittoClient(configuration: configuration)
        let error = #expect(throws: MQTTError.self) { try client.start() }
        #expect(error?.code == .tls)
        #expect(error?.description.contains("/nonexistent/plumb-ca.crt") == true)
        await client.disconnect()
    }

    @Test("The right user name and password connect")
    func correctPassword() async throws {
        let broker = try MosquittoBroker.start(.init(passwordFile: ["plumb": "s3cret"]))
        var configuration = broker.configuration()
        configuration.username = "plumb"
        configuration.password = "s3cret"
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        await events.connected()
        await client.disconnect()
    }

    @Test("A wrong password is a .connectionFailed that says what to check, retried without crashing",
          arguments: [MQTTProtocolVersion.v5, .v311])
    func wrongPassword(version: MQTTProtocolVersion) async throws {
        let broker = try MosquittoBroker.start(.init(passwordFile: ["plumb": "s3cret"]))
        var configuration = broker.configuration(version: version)
        configuration.username = "plumb"
        configuration.password = "wrong"
        configuration.reconnectDelay = Self.fastRetry
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()

        let error = try #require(await events.connectionFailed())
        #expect([MQTTError.Code.notAuthorized, .badCredentials].contains(error.code))
        #expect(error.description.contains("Check username and password_file"))
        // libmosquitto's own loop gives up for good after an MQTT 5 refusal; ours must not.
        await events.connectionFailed()
        await events.connectionFailed()
        #expect(events.count(where: \.isConnected) == 0)
        await client.disconnect()
    }
}
