import BrokerHarness
import Foundation
import MQTT
import Testing

/// The robustness list: signals, broker outages, sensor faults, corrupt state, credentials.
@Suite("Agent robustness", .serialized)
struct AgentRobustnessTests {
    @Test func sigtermPublishesOfflineAndExitsZeroWithinTwoSeconds() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url)
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        let exit = try #require(await agent.send(SIGTERM))
        #expect(exit.status == 0)
        #expect(exit.seconds < 2)
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "offline" }
        await observer.stop()
    }

    /// SIGINT as SIGTERM: `offline` arrives and stays retained. The retained copy is read with
    /// mosquitto_sub, a process of its own, which no load on the test runner can delay.
    @Test func sigintStopsTheSameWay() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url)
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        let exit = try #require(await agent.send(SIGINT))
        #expect(exit.status == 0 && exit.seconds < 2)
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "offline" }
        let retained = try await MosquittoClients.retained(port: broker.port, topic: agent.prefix + "/status")
        #expect(retained.map { String(decoding: $0.payload, as: UTF8.self) } == ["offline"], "\(broker.logContents().suffix(2000))")
        await observer.stop()
    }

    @Test func killNineLeavesTheWillOffline() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "mqtt:\n  keepalive: 5\n")
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        await agent.send(SIGKILL)
        await observer.waitFor(agent.prefix + "/status", timeout: 15) { $0.payloadString == "offline" }
        await observer.stop()
    }

    @Test func brokerDownAtStartThenUp() async throws {
        let broker = try MosquittoBroker.start()
        broker.stop()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("cannot reach the broker"))
        #expect(agent.isRunning)
        try broker.restart()
        let observer = try await Observer(port: broker.port)
        await observer.waitFor(agent.prefix + "/status", timeout: 40) { $0.payloadString == "online" }
        await observer.waitForJSON(agent.prefix + "/state") { $0["sensor"] as? String == "ok" }
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func brokerRestartReconnectsAndRepublishes() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker"))
        try broker.restart()
        let observer = try await Observer(port: broker.port)
        let p = agent.prefix
        await observer.waitFor(p + "/status", timeout: 40) { $0.payloadString == "online" }
        await observer.waitFor(p + "/config")
        await observer.waitFor(p + "/state")
        // The subscriptions came back too: a command is obeyed.
        try observer.publish(p + "/command/republish", "")
        #expect(await agent.waitForLog("connected to the broker"))
        let count = observer.messages(on: p + "/status").count
        await observer.waitFor(p + "/status") { _ in observer.messages(on: p + "/status").count > count }
        let health = await observer.waitForJSON(p + "/health") { ($0["reconnects"] as? Int ?? 0) >= 1 }
        #expect(health != nil)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func sensorFaultIsReportedAndRecoveredWithoutExiting() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-fault", "unplug:1.5:1"])
        let p = agent.prefix
        let fault = await observer.waitForJSON(p + "/event") { $0["type"] as? String == "sensor_fault" }
        #expect((fault?["error"] as? String)?.contains("acknowledged") == true)
        await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "fault" }
        await observer.waitForJSON(p + "/event", timeout: 15) { $0["type"] as? String == "sensor_recovered" }
        await observer.waitForJSON(p + "/state") { _ in
            observer.messages(on: p + "/state").last.flatMap(json)?["sensor"] as? String == "ok"
        }
        #expect(agent.isRunning)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func eventsDuringAnOutageArriveAfterTheReconnect() async throws {
        // The observer's session outlives the outage, so it sees whatever the agent sends after
        // the reconnect, whichever of the two reconnects first.
        let broker = try MosquittoBroker.start(.init(persistence: true))
        let observer = try await Observer(port: broker.port, persistentSession: true)
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-fault", "unplug:2:1"])
        let p = agent.prefix
        await observer.waitFor(p + "/status") { $0.payloadString == "online" }
        broker.stop()
        #expect(await agent.waitForLog("event sensor_fault"))
        #expect(await agent.waitForLog("event sensor_recovered"))
        #expect(observer.events("sensor_fault", prefix: p).isEmpty, "sent while the broker was down")
        try broker.restart()
        await observer.waitForJSON(p + "/event", timeout: 40) { $0["type"] as? String == "sensor_fault" }
        await observer.waitForJSON(p + "/event") { $0["type"] as? String == "sensor_recovered" }
        let types = observer.messages(on: p + "/event").compactMap { json($0)?["type"] as? String }
        #expect(types.firstIndex(of: "sensor_fault")! < types.firstIndex(of: "sensor_recovered")!, "queued in order")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func sighupReloadsTheFileWithTheSameValidation() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  level_tolerance: 0.1\n")
        let p = agent.prefix
        await observer.waitForJSON(p + "/config") { $0["level_tolerance"] as? Double == 0.1 }
        try "level:\n  level_tolerance: 0.4\n".write(toFile: agent.configPath, atomically: true, encoding: .utf8)
        await agent.send(SIGHUP)
        await observer.waitForJSON(p + "/config") { $0["level_tolerance"] as? Double == 0.4 }
        try "level:\n  level_tolerance: banana\n".write(toFile: agent.configPath, atomically: true, encoding: .utf8)
        await agent.send(SIGHUP)
        #expect(await agent.waitForLog("config reload refused"))
        #expect(agent.stderr.contains("level.level_tolerance"))
        #expect(agent.isRunning)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aCorruptStateFileIsSetAsideNotFatal() async throws {
        let broker = try MosquittoBroker.start()
        let directory = try makeTemporaryDirectory("corrupt")
        try "{ not json".write(toFile: directory + "/settings.json", atomically: true, encoding: .utf8)
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, stateDirectory: directory)
        await observer.waitForJSON(agent.prefix + "/config") { $0["level_tolerance"] as? Double == 0.1 }
        #expect(agent.stderr.contains("settings.json"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains { $0.hasPrefix("settings.json.corrupt") }, "\(files)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aWrongPasswordIsAClearErrorAndRetriesNotACrash() async throws {
        let broker = try MosquittoBroker.start(.init(passwordFile: ["plumb": "s3cret"]))
        let directory = try makeTemporaryDirectory("pw")
        try "wrong\n".write(toFile: directory + "/password", atomically: true, encoding: .utf8)
        let yaml = "mqtt:\n  username: plumb\n  password_file: \(directory)/password\n"
        let wrong = try AgentProcess(brokerURL: broker.url, yaml: yaml)
        #expect(await wrong.waitForLog("cannot reach the broker"))
        try await Task.sleep(for: .seconds(1.5))
        #expect(wrong.isRunning)
        #expect(wrong.stderr.lowercased().contains("password") || wrong.stderr.lowercased().contains("credentials"))
        #expect(await wrong.send(SIGTERM)?.status == 0)

        let right = try AgentProcess(brokerURL: broker.url, yaml: yaml, environment: ["PLUMB_MQTT_PASSWORD": "s3cret"])
        #expect(await right.waitForLog("connected to the broker"))
        #expect(await right.send(SIGTERM)?.status == 0)
    }

    @Test func tlsWithVerificationAgainstTheBrokersCA() async throws {
        let broker = try MosquittoBroker.start(.init(tls: true))
        let ca = try #require(broker.caFile)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "mqtt:\n  tls:\n    ca_file: \(ca)\n")
        #expect(await agent.waitForLog("connected to the broker"), "\(agent.stderr)")
        #expect(await agent.send(SIGTERM)?.status == 0)
    }
}
