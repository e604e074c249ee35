import BrokerHarness
import MQTT
import Testing

/// MQTT 5 response topic and correlation data, and what happens to them on 3.1.1.
@Suite("Request/response properties")
struct RequestResponseTests {
    /// Answers every request that names a response topic with "pong:<payload>", echoing the
    /// correlation data, until the client disconnects.
    private static func serveRequests(_ responder: MosquittoClient, events: AsyncStream<MQTTEvent>) -> Task<Void, Never> {
        Task(executorPreference: HarnessExecutor.shared) {
            for await event in events {
                guard case .message(let request) = event, let responseTopic = request.responseTopic else { continue }
                try? responder.publish(responseTopic, payload: Array("pong:".utf8) + request.payload,
                                       qos: .atLeastOnce, retain: false,
                                       properties: MQTTPublishProperties(correlationData: request.correlationData))
            }
        }
    }

    @Test("Response topic and correlation data survive a round trip between two clients")
    func roundTripBetweenClients() async throws {
        let broker = try MosquittoBroker.start()
        let requests = uniqueTopic("requests")
        let replies = uniqueTopic("replies")

        let responder = MosquittoClient(configuration: broker.configuration("responder"))
        let responderEvents = responder.events
        try responder.subscribe([requests], qos: .atLeastOnce)
        try responder.start()
        let serving = Self.serveRequests(responder, events: responderEvents)

        let requester = MosquittoClient(configuration: broker.configuration("requester"))
        let events = EventCollector(requester)
        try requester.subscribe([replies], qos: .atLeastOnce)
        try requester.start()
        await events.connected()
        // The responder must be subscribed before the request goes out.
        #expect(await broker.waitForLog(containing: "Sending SUBACK to \(responder.configuration.clientID)"))

        let correlation: [UInt8] = [0x00, 0xFF, 0x10, 0x42]
        try requester.publish(requests, payload: Array("ping".utf8), qos: .atLeastOnce, retain: false,
                              properties: MQTTPublishProperties(responseTopic: replies, correlationData: correlation))
        let reply = try #require(await events.message(on: replies))
        #expect(reply.payloadString == "pong:ping")
        #expect(reply.correlationData == correlation)
        #expect(reply.responseTopic == nil)

        await requester.disconnect()
        await responder.disconnect()
        await serving.value
    }

    @Test("mosquitto_rr -V 5 gets its answer from our client")
    func answersMosquittoRR() async throws {
        let broker = try MosquittoBroker.start()
        let requests = uniqueTopic("rr")
        let responder = MosquittoClient(configuration: broker.configuration("responder"))
        let responderEvents = responder.events
        try responder.subscribe([requests], qos: .atLeastOnce)
        try responder.start()
        let serving = Self.serveRequests(responder, events: responderEvents)
        #expect(await broker.waitForLog(containing: "Sending SUBACK to \(responder.configuration.clientID)"))

        let answer = try await MosquittoClients.request(port: broker.port, topic: requests,
                                                        responseTopic: uniqueTopic("rr-reply"), message: "ping")
        #expect(answer == "pong:ping")
        await responder.disconnect()
        await serving.value
    }

    @Test("mosquitto_sub sees our response topic on MQTT 5, and no properties on 3.1.1")
    func propertiesOnlyOnV5() async throws {
        let broker = try MosquittoBroker.start()
        let topic = uniqueTopic("props")
        let properties = MQTTPublishProperties(responseTopic: "\(topic)/reply", correlationData: [1, 2, 3])
        // A generous timeout: it costs nothing when both arrive, and a busy machine (the whole suite
        // runs in parallel on two cores) can take seconds to connect two clients.
        let watcher = try await MosquittoClients.startSubscriber(port: broker.port, topic: topic, count: 2,
                                                                 timeout: .seconds(30))

        for version in [MQTTProtocolVersion.v5, .v311] {
            let client = MosquittoClient(configuration: broker.configuration(version: version))
            let events = EventCollector(client)
            try client.start()
            #expect(await events.connected()?.protocolVersion == version)
            let payload = Array("\(version)".utf8)
            if (try? client.publish(topic, payload: payload, qos: .atLeastOnce, retain: false, properties: properties)) == nil {
                // Seen only with the whole suite loading two cores: the connection dropped right
                // after CONNACK. The client reconnects by itself; what is tested is the properties.
                #expect(await events.connected()?.protocolVersion == version)
                try client.publish(topic, payload: payload, qos: .atLeastOnce, retain: false, properties: properties)
            }
            await client.disconnect()
        }
        let seen = await watcher.messages()
        #expect(seen.map(\.payloadString) == ["5", "3.1.1"])
        #expect(seen.map(\.responseTopic) == ["\(topic)/reply", nil])
    }
}
