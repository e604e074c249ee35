import MQTT
import MQTTTesting
import Testing

/// The in-memory recorder behaves like the real client where the agent can tell.
@Suite("MQTTRecorder")
struct RecorderTests {
    @Test("Publishing while disconnected throws .noConnection, like the real client")
    func publishWhileDisconnected() throws {
        let recorder = MQTTRecorder()
        let error = #expect(throws: MQTTError.self) { try recorder.publish("a/b", payload: "x") }
        #expect(error?.code == .noConnection)
        #expect(recorder.publications.isEmpty)

        recorder.publishFailsWhenDisconnected = false
        try recorder.publish("a/b", payload: "x")
        #expect(recorder.published(on: "a/b").count == 1)
    }

    @Test("Publications are recorded in order with QoS, retain and properties; 3.1.1 drops properties")
    func recordsPublications() async throws {
        let recorder = MQTTRecorder()
        let events = EventCollector(recorder)
        try recorder.start()
        recorder.simulateConnect()
        await events.connected()
        let properties = MQTTPublishProperties(responseTopic: "r", correlationData: [7])
        try recorder.publish("s", payload: "one", qos: .atLeastOnce, retain: true, properties: properties)
        try recorder.publish("s", payload: Array("two".utf8))
        try recorder.publish("s", payload: [], qos: .atLeastOnce, retain: true)
        #expect(recorder.published(on: "s").map(\.payloadString) == ["one", "two", ""])
        #expect(recorder.publications.first == .init(topic: "s", payload: Array("one".utf8), qos: .atLeastOnce,
                                                     retain: true, properties: properties))
        #expect(recorder.lastRetained(on: "s") == nil, "an empty retained publish deletes the retained message")

        recorder.simulateDisconnect()
        recorder.simulateConnect(protocolVersion: .v311)
        try recorder.publish("t", payload: "x", qos: .atMostOnce, retain: true, properties: properties)
        #expect(recorder.lastRetained(on: "t")?.properties == MQTTPublishProperties())
        recorder.clear()
        #expect(recorder.publications.isEmpty)
        await recorder.disconnect()
    }

    @Test("deliver() only passes messages matching a subscription, and only while connected")
    func deliversMatchingMessages() async throws {
        let recorder = MQTTRecorder(connectsOnStart: true)
        let events = EventCollector(recorder)
        try recorder.subscribe(["plumb/+/config/set", "plumb/bench/command/#"], qos: .atLeastOnce)
        #expect(!recorder.deliver(topic: "plumb/bench/config/set", payload: "{}"), "not connected yet")
        try recorder.start()
        #expect(await events.connected() == MQTTConnection(protocolVersion: .v5, sessionPresent: false))
        #expect(recorder.deliver(topic: "plumb/bench/config/set", payload: "{}"))
        #expect(recorder.deliver(topic: "plumb/bench/command/zero", payload: ""))
        #expect(!recorder.deliver(topic: "plumb/bench/state", payload: "{}"))
        await events.message(on: "plumb/bench/command/zero")
        #expect(events.count(where: \.isMessage) == 2)
        #expect(recorder.subscriptions == ["plumb/+/config/set", "plumb/bench/command/#"])
        #expect(throws: MQTTError.self) { try recorder.subscribe(["a/#/b"], qos: .atMostOnce) }
        await recorder.disconnect()
    }

    @Test("disconnect() reports a clean disconnect once and ends the stream")
    func disconnectEndsStream() async throws {
        let recorder = MQTTRecorder()
        let events = EventCollector(recorder)
        recorder.simulateConnectionFailure(MQTTError(code: .connectionRefused, reason: "test"))
        recorder.simulateConnect()
        await recorder.disconnect()
        await recorder.disconnect()
        await events.next("disconnected") { $0 == .disconnected(nil) }
        #expect(events.all.count == 3)
        #expect(!recorder.isConnected)
        #expect(throws: MQTTError.self) { try recorder.start() }
    }
}
