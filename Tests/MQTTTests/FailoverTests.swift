import BrokerHarness
import Foundation
@testable import MQTT
import Testing

/// The failover policy on its own: which broker is next, and when the first is checked again.
@Suite("BrokerRotation")
struct BrokerRotationTests {
    let start = ContinuousClock.now

    @Test func aFailureOrALossMovesToTheNextBrokerAndWrapsRound() {
        var rotation = BrokerRotation(count: 3, failbackInterval: .seconds(60))
        #expect(rotation.current == 0 && rotation.isOnFirst)
        rotation.advance()
        #expect(rotation.current == 1)
        rotation.advance()
        #expect(rotation.current == 2)
        rotation.advance()
        #expect(rotation.current == 0, "after the last, the first again")
    }

    @Test func oneBrokerIsRetriedForEverAndNeverCheckedForAFailback() {
        var rotation = BrokerRotation(count: 1, failbackInterval: .seconds(5))
        rotation.advance()
        #expect(rotation.current == 0)
        rotation.connected(at: start)
        #expect(!rotation.failbackDue(at: start + .seconds(3600)))
        #expect(BrokerRotation(count: 0, failbackInterval: .seconds(5)).count == 1, "no broker counts as one")
    }

    @Test func onTheFirstBrokerNoFailbackIsEverDue() {
        var rotation = BrokerRotation(count: 2, failbackInterval: .seconds(5))
        rotation.connected(at: start)
        #expect(!rotation.failbackDue(at: start + .seconds(3600)))
    }

    @Test func elsewhereTheFirstIsCheckedAtMostOnceAnInterval() {
        var rotation = BrokerRotation(count: 2, failbackInterval: .seconds(60))
        rotation.advance()
        #expect(!rotation.failbackDue(at: start + .seconds(600)), "not before connecting there")
        rotation.connected(at: start)
        #expect(!rotation.failbackDue(at: start + .seconds(59)))
        #expect(rotation.failbackDue(at: start + .seconds(60)))
        rotation.checkedFirst(at: start + .seconds(61))
        #expect(!rotation.failbackDue(at: start + .seconds(120)), "the interval counts from the last check")
        #expect(rotation.failbackDue(at: start + .seconds(121)))
    }

    @Test func aFailbackMakesTheFirstNextAndALossThereStartsAgain() {
        var rotation = BrokerRotation(count: 3, failbackInterval: .seconds(10))
        rotation.advance()
        rotation.advance()
        rotation.connected(at: start)
        rotation.failBack()
        #expect(rotation.current == 0)
        #expect(!rotation.failbackDue(at: start + .seconds(100)))
        rotation.advance()
        rotation.connected(at: start + .seconds(100))
        #expect(rotation.current == 1)
        #expect(!rotation.failbackDue(at: start + .seconds(105)), "a new connection restarts the interval")
        #expect(rotation.failbackDue(at: start + .seconds(110)))
    }

    @Test func aConfigurationListsItsBrokersFirstToLast() {
        let configuration = MQTTConfiguration(host: "a.lan", failoverBrokers: [.init(host: "fd00::2", port: 1884)],
                                              clientID: "plumb-x")
        #expect(configuration.brokers == [.init(host: "a.lan", port: 1883), .init(host: "fd00::2", port: 1884)])
        #expect(configuration.host == "a.lan" && configuration.port == 1883, "host and port are the first's")
        #expect(configuration.description.hasPrefix("mqtt://a.lan:1883 then mqtt://[fd00::2]:1884"))
        #expect(configuration.failbackInterval == .seconds(60))
        #expect(configuration.sessionExpiry == .seconds(86_400))
    }

    @Test func aConfigurationWithoutBrokersOrWithABadFailbackIsRefusedAtStart() {
        var empty = MQTTConfiguration(clientID: "plumb-x")
        empty.brokers = []
        #expect(empty.host == "" && empty.port == 0)
        #expect(throws: MQTTError.self) { try MosquittoClient(configuration: empty).start() }
        var noFailback = MQTTConfiguration(clientID: "plumb-x")
        noFailback.failbackInterval = .zero
        #expect(throws: MQTTError.self) { try MosquittoClient(configuration: noFailback).start() }
    }
}

/// Failover and persistent sessions with real mosquittos.
@Suite("Failover and persistent sessions over real brokers", .serialized)
struct FailoverSessionTests {
    static func connection(_ broker: MosquittoBroker) -> MQTTConfiguration.Broker {
        .init(host: broker.host, port: broker.port)
    }

    /// Two brokers, and a client on the first with the second to fail over to, a check for the
    /// first every 2 s, and the will `gone` on a topic of its own: connected, on the first.
    struct Pair {
        let first: MosquittoBroker
        let second: MosquittoBroker
        let status: String
        let configuration: MQTTConfiguration
        let client: MosquittoClient
        let events: EventCollector
    }

    static func connectedPair(_ name: String) async throws -> Pair {
        let first = try MosquittoBroker.start()
        let second = try MosquittoBroker.start()
        let status = uniqueTopic("status")
        var configuration = first.configuration(name)
        configuration.brokers.append(connection(second))
        configuration.failbackInterval = .seconds(2)
        configuration.will = MQTTWill(topic: status, payload: "gone")
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        #expect(await events.connected()?.broker == connection(first))
        return Pair(first: first, second: second, status: status, configuration: configuration, client: client,
                    events: events)
    }

    @Test("A lost first broker: the next one within the backoff; back on the first after a check, with the will left on the second")
    func failsOverAndBack() async throws {
        let pair = try await Self.connectedPair("failover")
        let (first, second, status, configuration, client, events) =
            (pair.first, pair.second, pair.status, pair.configuration, pair.client, pair.events)

        first.stop()
        #expect(await events.connected(timeout: .seconds(20))?.broker == Self.connection(second))
        // The attempt after the loss went to the second broker: no failed retry of the first.
        #expect(events.count(where: \.isConnectionFailed) == 0, "\(events.all)")
        try client.publish(status, payload: "here", qos: .atLeastOnce, retain: true)

        try first.restart()
        #expect(await events.connected(timeout: .seconds(10))?.broker == Self.connection(first))
        // Left cleanly (no will from the broker), yet the will's payload stands on the second.
        let retained = try await MosquittoClients.retained(port: second.port, topic: status)
        #expect(retained.map { String(decoding: $0.payload, as: UTF8.self) } == ["gone"],
                "the broker it left holds the will's payload, not \"here\"")
        #expect(await first.waitForLog(containing: "\(configuration.clientID)-failback"),
                "the check used a throwaway id, not ours: \(events.all)\nfirst:\n\(first.logContents())")
        await client.disconnect()
    }

    @Test("A connection to a live first broker cut: the will there, the next broker at once, and back after a check")
    func aCutConnectionLeavesTheWillBehind() async throws {
        let pair = try await Self.connectedPair("cut")
        let (first, second, status, client, events) = (pair.first, pair.second, pair.status, pair.client, pair.events)
        try client.publish(status, payload: "here", qos: .atLeastOnce, retain: true)
        try await Task.sleep(for: .milliseconds(200))

        client.simulateAbruptDrop()
        #expect(await events.connected()?.broker == Self.connection(second), "the next broker after a loss")
        try client.publish(status, payload: "here", qos: .atLeastOnce, retain: true)
        let onFirst = try await MosquittoClients.retained(port: first.port, topic: status)
        #expect(onFirst.map { String(decoding: $0.payload, as: UTF8.self) } == ["gone"], "the first broker fired the will")

        // The first is alive: the next check finds it, and the client returns, saying so on the second.
        #expect(await events.connected()?.broker == Self.connection(first))
        let onSecond = try await MosquittoClients.retained(port: second.port, topic: status)
        #expect(onSecond.map { String(decoding: $0.payload, as: UTF8.self) } == ["gone"])
        await client.disconnect()
    }

    @Test("Failback checks that the first broker refuses leave the connection to the second alone")
    func noFailbackToABrokerThatRefuses() async throws {
        let first = try MosquittoBroker.start(.init(passwordFile: ["someone": "else"]))
        let second = try MosquittoBroker.start()
        var configuration = first.configuration("refused")
        configuration.brokers.append(Self.connection(second))
        configuration.failbackInterval = .seconds(1)
        let client = MosquittoClient(configuration: configuration)
        let events = EventCollector(client)
        try client.start()
        #expect(await events.connectionFailed()?.code == .notAuthorized)
        #expect(await events.connected(timeout: .seconds(5))?.broker == Self.connection(second))
        try await Task.sleep(for: .seconds(3))
        #expect(events.count(where: \.isConnected) == 1, "checks that fail leave the connection alone: \(events.all)")
        await client.disconnect()
    }

    @Test("A persistent session keeps the QoS 1 messages published while away and delivers them in order",
          arguments: [MQTTProtocolVersion.v5, .v311])
    func persistentSessionDeliversInOrder(version: MQTTProtocolVersion) async throws {
        let broker = try MosquittoBroker.start()
        let base = uniqueTopic("desired")
        var configuration = broker.configuration("session", version: version)
        configuration.cleanSession = false
        let away = MosquittoClient(configuration: configuration)
        try away.subscribe(["\(base)/#"], qos: .atLeastOnce)
        let first = EventCollector(away)
        try away.start()
        #expect(await first.connected()?.sessionPresent == false)
        await away.disconnect()

        // b is written before a, each retained, then a live one: delivery must follow write order.
        let writes = [("b", "1", true), ("a", "2", true), ("b", "3", false), ("a", "4", true)]
        for (key, value, retain) in writes {
            try await MosquittoClients.publish(port: broker.port, topic: "\(base)/\(key)", message: value,
                                               retain: retain, qos: 1)
        }
        let back = MosquittoClient(configuration: configuration)
        try back.subscribe(["\(base)/#"], qos: .atLeastOnce)
        let events = EventCollector(back)
        try back.start()
        #expect(await events.connected()?.sessionPresent == true)
        try await Task.sleep(for: .seconds(1))
        let received = events.all.compactMap { event -> MQTTMessage? in
            if case .message(let message) = event { message } else { nil }
        }
        let queued = received.filter { !$0.retain }.map { "\($0.topic.split(separator: "/").last!)=\($0.payloadString!)" }
        #expect(queued == ["b=1", "a=2", "b=3", "a=4"], "queued while away, in write order")
        let copies = received.filter(\.retain).map { "\($0.topic.split(separator: "/").last!)=\($0.payloadString!)" }
        switch version {
        case .v5:
            #expect(copies.isEmpty, "MQTT 5: no retained copies for subscriptions the session holds")
        case .v311:
            // 3.1.1 re-sends them on the re-SUBSCRIBE, after the queue and flagged retained: the
            // agent tells them apart by that flag and the session being resumed.
            #expect(Set(copies) == ["b=1", "a=4"])
        }
        await back.disconnect()
    }

    @Test("session expiry: an MQTT 5 session ends with its expiry")
    func sessionExpires() async throws {
        let broker = try MosquittoBroker.start()
        var configuration = broker.configuration("expiry")
        configuration.cleanSession = false
        configuration.sessionExpiry = .seconds(1)
        for expected in [false, false] {
            let client = MosquittoClient(configuration: configuration)
            let events = EventCollector(client)
            try client.subscribe([uniqueTopic("x")], qos: .atLeastOnce)
            try client.start()
            #expect(await events.connected()?.sessionPresent == expected)
            await client.disconnect()
            try await Task.sleep(for: .seconds(2.5))
        }
    }
}
