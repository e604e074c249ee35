import BrokerHarness
import Foundation
import MQTT
import Testing

/// `deploy/mosquitto/` as shipped, on loopback: the ACL keeps each device in its lane, and site
/// brokers bridged into a central one carry a fleet, through a central outage.
@Suite("Fleet brokers: the deploy examples", .serialized)
struct FleetBrokerTests {
    /// The shared test CA's files, for the brokers' listeners and the clients.
    static func certificates() throws -> TestCertificates { try TestCertificates.shared() }

    /// `central.conf` with its ACL (`plumb-acl` `aclArguments`) and a password file of `users`.
    /// `extraACL` is appended to the ACL: lines for users that are not Plumb's (a thermometer).
    static func central(aclArguments: [String], users: [String: String], extraACL: String = "") throws -> MosquittoBroker {
        let certificates = try certificates()
        return try MosquittoBroker.start(tls: true) { place in
            let acl = place.directory + "/central.acl"
            try (DeployExample.acl(aclArguments) + extraACL).write(toFile: acl, atomically: true, encoding: .utf8)
            return try DeployExample.render("central.conf", for: place, settings: [
                "listener": "\(place.port) 127.0.0.1",
                "password_file": try MosquittoBroker.passwordFile(users, in: place.directory),
                "acl_file": acl,
                "persistence_location": place.directory + "/",
                "cafile": certificates.caFile, "certfile": certificates.serverCertFile,
                "keyfile": certificates.serverKeyFile,
            ])
        }
    }

    /// `site.conf` for hall `site` (its every "hall-2" made `site`), bridged to `central`.
    static func site(_ site: String, devices: [String], users: [String: String], bridgePassword: String,
                     central: MosquittoBroker) throws -> MosquittoBroker {
        let certificates = try certificates()
        return try MosquittoBroker.start(tls: true) { place in
            let acl = place.directory + "/site.acl"
            try DeployExample.acl(["devices", "--base-topic", "plumb/" + site] + devices)
                .write(toFile: acl, atomically: true, encoding: .utf8)
            return try DeployExample.render("site.conf", for: place, replacing: [("hall-2", site)], settings: [
                "listener": "\(place.port) 127.0.0.1",
                "password_file": try MosquittoBroker.passwordFile(users, in: place.directory),
                "acl_file": acl,
                "persistence_location": place.directory + "/",
                "cafile": certificates.caFile, "certfile": certificates.serverCertFile,
                "keyfile": certificates.serverKeyFile,
                "address": "127.0.0.1:\(central.port)",
                "bridge_cafile": certificates.caFile,
                "remote_password": bridgePassword,
                // The example backs off to 30 s; the test's outage needs no such patience.
                "restart_timeout": "1 2",
            ])
        }
    }

    /// `plumb run` logged in as `user` over TLS, under `baseTopic`.
    static func agent(on broker: MosquittoBroker, deviceID: String, baseTopic: String = "plumb", user: String,
                      password: String, sensorYAML: String = "") throws -> AgentProcess {
        let passwordFile = temporaryPath("pw")
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let yaml = """
            mqtt:
              username: \(user)
              password_file: \(passwordFile)
              base_topic: \(baseTopic)
              inbound_probe_s: 2
              tls:
                ca_file: \(try certificates().caFile)
            level:
              heartbeat_s: 2
            """
        return try AgentProcess(brokerURL: broker.url, deviceID: deviceID, yaml: yaml + "\n" + sensorYAML)
    }

    /// Waits until a message `observer` has satisfies `predicate`.
    static func eventually(_ observer: Observer, timeout: Double = 15, _ predicate: (MQTTMessage) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if observer.messages.contains(where: predicate) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return observer.messages.contains(where: predicate)
    }

    static func configApplied(_ observer: Observer, prefix: String) -> [[String: Any]] {
        observer.events("config_applied", prefix: prefix).compactMap { $0["changes"] as? [String: Any] }
    }

    @Test func theACLGrantsOnlyExactThermometerTopics() throws {
        let acl = try DeployExample.acl(["devices", "--thermometer", "a/t", "--thermometer", "b/*", "d1", "d2"])
        // Each device reads each thermometer (a * is a character in a topic, never a file glob).
        #expect(acl.components(separatedBy: "topic read a/t\n").count == 3 && acl.components(separatedBy: "topic read b/*\n").count == 3,
                "\(acl)")
        for bad in ["a/#", "a/+/t", "", "/a", "a//t", "$SYS/x", "a b", "a\n$SYS/x", "a/\tb"] {
            #expect(throws: (any Error).self, "--thermometer '\(bad)' was accepted") {
                try DeployExample.acl(["devices", "--thermometer", bad, "d1"])
            }
        }
        #expect(throws: (any Error).self, "central has no devices to read a thermometer") {
            try DeployExample.acl(["central", "--thermometer", "a/t", "hall-1"])
        }
    }

    @Test func theACLKeepsEachDeviceInItsLaneAndTheAgentWorksUnderIt() async throws {
        let users = ["dev-a": "pw-a", "dev-b": "pw-b", "operator": "pw-op", "homeassistant": "pw-ha", "zigbee": "pw-z"]
        // A thermometer the devices may read (--thermometer), published by a user of its own.
        let thermometer = "workshop/lathe/temperature"
        let broker = try Self.central(aclArguments: ["devices", "--thermometer", thermometer, "dev-a", "dev-b"], users: users,
                                      extraACL: "\nuser zigbee\ntopic write \(thermometer)\n")
        let ca = try Self.certificates().caFile
        let operatorView = try await Observer(port: broker.port, login: ("operator", "pw-op"), caFile: ca)
        let homeAssistant = try await Observer(port: broker.port, filter: "homeassistant/#",
                                               login: ("homeassistant", "pw-ha"), caFile: ca)
        let agent = try Self.agent(on: broker, deviceID: "dev-a", user: "dev-a", password: "pw-a",
                                   sensorYAML: "sensor:\n  temperature: mqtt:\(thermometer)\n")
        let a = "plumb/dev-a", b = "plumb/dev-b"

        // The agent works under its ACL: online, states, discovery, its config and requests.
        #expect(await operatorView.waitFor(a + "/status") { $0.payloadString == "online" } != nil, "\(agent.stderr)")
        #expect(await operatorView.waitForJSON(a + "/state") { $0["sensor"] as? String == "ok" } != nil)
        #expect(await Self.eventually(homeAssistant) { $0.topic.contains("/plumb_dev-a/") && !$0.payload.isEmpty })
        try operatorView.publish(a + "/config/set", #"{"heartbeat_s": 45}"#)
        #expect(await operatorView.waitForJSON(a + "/config") { $0["heartbeat_s"] as? Double == 45 } != nil)
        try homeAssistant.publish(a + "/config/level_tolerance/set", "0.3")
        #expect(await operatorView.waitForJSON(a + "/event") {
            ($0["changes"] as? [String: Any])?["level_tolerance"] as? Double == 0.3
        } != nil, "Home Assistant writes one key")
        try operatorView.publish(a + "/request/convert", #"{"value": 1, "from": "in", "to": "mm", "transaction": "acl-1"}"#)
        #expect(await operatorView.waitForJSON(a + "/response/convert") { $0["transaction"] as? String == "acl-1" } != nil)
        // The ACL's --thermometer line lets the agent read the thermometer it is configured with.
        let zigbee = try await Observer(port: broker.port, filter: "workshop/#", login: ("zigbee", "pw-z"), caFile: ca)
        try zigbee.publish(thermometer, #"{"temperature": 23.4, "humidity": 41, "battery": 97}"#, retain: true)
        #expect(await operatorView.waitForJSON(a + "/state") { $0["temperature"] as? Double == 23.4 } != nil,
                "the agent never read the thermometer the ACL grants it: \(agent.stderr)")

        // Out of lane: A's credentials on B's topics, and config writes without the operator role.
        let deviceA = try await Observer(port: broker.port, filter: a + "/#", login: ("dev-a", "pw-a"), caFile: ca)
        let deviceB = try await Observer(port: broker.port, filter: b + "/#", login: ("dev-b", "pw-b"), caFile: ca)
        try deviceA.publish(b + "/state", #"{"forged": true}"#, retain: true)
        try deviceA.publish(b + "/status", "online", retain: true)
        try deviceA.publish(b + "/config/set", #"{"heartbeat_s": 99}"#)
        try deviceB.publish(a + "/config/set", #"{"heartbeat_s": 66}"#)
        try deviceB.publish(a + "/command/zero", "PRESS")
        try homeAssistant.publish(a + "/config/set", #"{"heartbeat_s": 77}"#)
        // A request after them, answered: the refused messages had their chance to arrive.
        try operatorView.publish(a + "/request/convert", #"{"value": 2, "from": "in", "to": "mm", "transaction": "acl-2"}"#)
        #expect(await operatorView.waitForJSON(a + "/response/convert") { $0["transaction"] as? String == "acl-2" } != nil)
        try await Task.sleep(for: .milliseconds(500))

        #expect(operatorView.messages.filter { $0.topic.hasPrefix(b + "/") }.isEmpty,
                "device A wrote device B's topics: \(operatorView.messages.filter { $0.topic.hasPrefix(b + "/") }.map(\.topic))")
        let writes = operatorView.messages(on: a + "/config/set").compactMap(\.payloadString).filter { !$0.isEmpty }
        #expect(writes == [#"{"heartbeat_s": 45}"#], "only the operator's config write reached the agent: \(writes)")
        #expect((operatorView.events("zeroed", prefix: a) + operatorView.events("zero_rejected", prefix: a)).isEmpty,
                "device B pressed A's zero")
        #expect(Self.configApplied(operatorView, prefix: a).count == 2)
        let config = try #require(operatorView.messages(on: a + "/config").last.flatMap(json))
        #expect(config["heartbeat_s"] as? Double == 45)

        // The ACL lets the inbound probe out and back: it goes out, and no stall is declared.
        #expect(await Self.eventually(operatorView) { $0.topic == a + "/probe" }, "no probe went out")
        try await Task.sleep(for: .seconds(3))
        #expect(!agent.stderr.contains("stopped delivering") && !agent.stderr.contains("unanswered"), "\(agent.stderr)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        for observer in [operatorView, homeAssistant, deviceA, deviceB, zigbee] { await observer.stop() }
    }

    @Test func twoSitesBridgedIntoACentreCarryTheFleetThroughACentralOutage() async throws {
        let ca = try Self.certificates().caFile
        let central = try Self.central(aclArguments: ["central", "hall-1", "hall-2"], users: [
            "site-hall-1": "bridge-1", "site-hall-2": "bridge-2", "operator": "pw-op", "homeassistant": "pw-ha",
        ])
        let halls = ["hall-1", "hall-2"]
        var sites: [MosquittoBroker] = []
        for (index, hall) in halls.enumerated() {
            sites.append(try Self.site(hall, devices: ["press-1"], users: ["press-1": "pw-press", "operator": "pw-site-op"],
                                       bridgePassword: "bridge-\(index + 1)", central: central))
        }
        // The same device id at both sites.
        let agents = try sites.enumerated().map { index, site in
            try Self.agent(on: site, deviceID: "press-1", baseTopic: "plumb/" + halls[index], user: "press-1", password: "pw-press")
        }
        let p1 = "plumb/hall-1/press-1", p2 = "plumb/hall-2/press-1"
        var operatorView = try await Observer(port: central.port, persistentSession: true, login: ("operator", "pw-op"),
                                              caFile: ca, reconnectDelay: .init(minimum: .milliseconds(200), maximum: .seconds(1)))
        let homeAssistant = try await Observer(port: central.port, filter: "homeassistant/#",
                                               login: ("homeassistant", "pw-ha"), caFile: ca)

        // Every agent's state from the centre, and both devices in Home Assistant, apart.
        for prefix in [p1, p2] {
            #expect(await operatorView.waitForJSON(prefix + "/state", timeout: 20) { $0["sensor"] as? String == "ok" } != nil,
                    "\(prefix): \(sites.map { $0.logContents().suffix(1500) })")
        }
        for node in ["plumb_hall-1_press-1", "plumb_hall-2_press-1"] {
            #expect(await Self.eventually(homeAssistant) { $0.topic.contains("/\(node)/") && !$0.payload.isEmpty }, "\(node)")
        }

        // One agent's config from the centre, retained: applied there only, and the retained copy cleared.
        try operatorView.publish(p2 + "/config/set", #"{"heartbeat_s": 45}"#, retain: true)
        #expect(await operatorView.waitForJSON(p2 + "/config") { $0["heartbeat_s"] as? Double == 45 } != nil)
        #expect(await Self.eventually(operatorView) { $0.topic == p2 + "/config/set" && $0.payload.isEmpty },
                "the agent's clearing reaches the centre")
        #expect(try await Observer.retained(port: central.port, filter: p2 + "/config/set", login: ("operator", "pw-op"),
                                            caFile: ca).isEmpty)
        #expect(Self.configApplied(operatorView, prefix: p1).isEmpty, "the other site's press-1 is another device")

        // Its ruler service, from the centre (the 3.1.1 bridge carries no response topic: P/response).
        try operatorView.publish(p1 + "/request/convert", #"{"value": 1, "from": "in", "to": "mm", "transaction": "b-1"}"#)
        #expect(await operatorView.waitForJSON(p1 + "/response/convert") { $0["transaction"] as? String == "b-1" } != nil)

        // The centre away for 30 s: what happens meanwhile waits in the site's queue.
        let siteOperator = try await Observer(port: sites[0].port, login: ("operator", "pw-site-op"), caFile: ca)
        central.stop()
        let outage = Date()
        for heartbeat in [31, 32, 33] {
            try siteOperator.publish(p1 + "/config/set", #"{"heartbeat_s": \#(heartbeat)}"#)
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(await Self.eventually(siteOperator) { _ in Self.configApplied(siteOperator, prefix: p1).count == 3 })
        try await Task.sleep(for: .seconds(max(0, 30 - Date().timeIntervalSince(outage))))
        try central.restart()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, Self.configApplied(operatorView, prefix: p1).count < 3 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let applied = Self.configApplied(operatorView, prefix: p1).compactMap { $0["heartbeat_s"] as? Double }
        #expect(applied == [31, 32, 33], "the outage's events, each once and in order: \(applied)")

        for agent in agents { #expect(await agent.send(SIGTERM)?.status == 0) }
        await operatorView.stop()
        await homeAssistant.stop()
        await siteOperator.stop()
        operatorView = try await Observer(port: central.port, login: ("operator", "pw-op"), caFile: ca)
        await operatorView.stop()
    }
}
