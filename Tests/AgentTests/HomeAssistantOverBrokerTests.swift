import BrokerHarness
import Foundation
import MQTT
import PictureRendering
import Testing

/// Home Assistant discovery, its re-sending, the bubble picture and `plumb forget`, with
/// `plumb run` over a real mosquitto.
@Suite("Home Assistant over a real broker", .serialized)
struct HomeAssistantOverBrokerTests {
    static func discoveryFilter(_ agent: AgentProcess) -> String { "homeassistant/+/plumb_\(agent.deviceID)/+/config" }

    @Test func discoveryIsRetainedForEveryEntityBeforeTheDeviceComesOnline() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, filter: "#")
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "device:\n  configuration_url: http://lathe.lan/\n")
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        let retained = try await Observer.retained(port: broker.port, filter: Self.discoveryFilter(agent))
        let entities = retained.filter { !$0.topic.hasPrefix("homeassistant/device_automation/") }
        let objects = Set(entities.map { $0.topic.split(separator: "/")[3] })
        #expect(objects == ["tilt_deg", "roll_deg", "pitch_deg", "level", "alarm", "level_tolerance", "level_hysteresis",
                            "alarm_threshold", "angle_unit", "mount", "zero", "clear_zero", "sample_rate", "i2c_errors",
                            "reconnects", "inbound_stalls", "uptime", "dropped_samples", "bubble", "calibrate_reversal_first",
                            "calibrate_reversal_second", "calibrate_six_point_start", "calibrate_six_point_next",
                            "calibrate_six_point_cancel", "selftest", "calibration", "velocity_rms", "acceleration_rms",
                            "dominant_frequency", "vibration_zone", "running", "filter", "vibration", "vibration_class",
                            "running_threshold", "uncertainty_deg", "temperature", "learn_drift_start", "learn_drift_stop",
                            "learn_drift_cancel", "temperature_source", "temperature_age", "slope", "last_result", "event"])
        // And a device trigger per event type.
        let triggers = Set(retained.filter { $0.topic.hasPrefix("homeassistant/device_automation/") }.map { $0.topic.split(separator: "/")[3] })
        #expect(triggers.count == 22 && triggers.contains("running_stopped") && triggers.contains("level_left"))
        // Those with a second availability: P/config's vibration, P/health's thermometer.
        let twoAvailabilities: Set<Substring> = ["velocity_rms", "acceleration_rms", "dominant_frequency", "vibration_zone", "running",
                                                 "temperature", "temperature_age"]
        for message in retained {
            let config = try #require(json(message))
            let object = message.topic.split(separator: "/")[3]
            if message.topic.hasPrefix("homeassistant/device_automation/") {
                #expect(config["topic"] as? String == agent.prefix + "/event" && config["payload"] as? String == String(object))
            } else if twoAvailabilities.contains(object) {
                #expect((config["availability"] as? [[String: Any]])?.first?["topic"] as? String == agent.prefix + "/status")
            } else {
                #expect(config["availability_topic"] as? String == agent.prefix + "/status")
            }
            if !message.topic.hasPrefix("homeassistant/device_automation/") {
                #expect((config["unique_id"] as? String)?.hasPrefix("plumb_\(agent.deviceID)_") == true)
            }
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["configuration_url"] as? String == "http://lathe.lan/")
            #expect(device["model"] as? String == "ADXL345 level")
        }
        // Discovery comes before the availability that makes the entities live.
        let all = observer.messages
        let lastDiscovery = try #require(all.lastIndex { $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") })
        let online = try #require(all.firstIndex { $0.topic == agent.prefix + "/status" && $0.payloadString == "online" })
        #expect(lastDiscovery < online)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func discoveryIsResentAfterHomeAssistantSaysOnlineAndNotBeforeTheDelay() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, filter: "#")
        let agent = try AgentProcess(brokerURL: broker.url)
        let tilt = "homeassistant/sensor/plumb_\(agent.deviceID)/tilt_deg/config"
        await observer.waitFor(tilt)
        await observer.waitForJSON(agent.prefix + "/state")
        try await Task.sleep(for: .milliseconds(500))
        let before = observer.messages(on: tilt).count
        let statesBefore = observer.messages(on: agent.prefix + "/state").count
        let sent = Date()
        try observer.publish("homeassistant/status", "online")
        try await Task.sleep(for: .milliseconds(900))
        #expect(observer.messages(on: tilt).count == before, "discovery re-sent before the 1 s minimum delay")
        await observer.waitFor(tilt, timeout: 6) { _ in observer.messages(on: tilt).count > before }
        let resent = try #require(observer.arrivals(on: tilt).last?.time)
        #expect(resent.timeIntervalSince(sent) >= 1 && resent.timeIntervalSince(sent) < 6)
        // Then the current states.
        await observer.waitFor(agent.prefix + "/state", timeout: 3) { _ in
            observer.messages(on: agent.prefix + "/state").count > statesBefore
        }
        // `offline` from HA re-sends nothing.
        let count = observer.messages(on: tilt).count
        try observer.publish("homeassistant/status", "offline")
        try await Task.sleep(for: .seconds(6))
        #expect(observer.messages(on: tilt).count == count)
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aRetainedHomeAssistantOnlineDoesNotDoubleTheBirth() async throws {
        let broker = try MosquittoBroker.start()
        try await MosquittoClients.publish(port: broker.port, topic: "homeassistant/status", message: "online",
                                           retain: true, qos: 1)
        let observer = try await Observer(port: broker.port, filter: "homeassistant/#")
        let agent = try AgentProcess(brokerURL: broker.url)
        let tilt = "homeassistant/sensor/plumb_\(agent.deviceID)/tilt_deg/config"
        await observer.waitFor(tilt)
        try await Task.sleep(for: .seconds(6.5))
        #expect(observer.messages(on: tilt).count == 1, "discovery was sent again for a retained online")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aNewAngleUnitChangesTheSlopesUnitAloneAndTheDegreeEntitiesStay() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, filter: "#")
        let agent = try AgentProcess(brokerURL: broker.url)
        let base = "homeassistant/sensor/plumb_\(agent.deviceID)/"
        await observer.waitFor(base + "tilt_deg/config")
        await observer.waitFor(agent.prefix + "/status") { $0.payloadString == "online" }
        let start = observer.messages.count
        try observer.publish(agent.prefix + "/config/angle_unit/set", "mm_per_m")
        await observer.waitForJSON(base + "slope/config") { $0["unit_of_measurement"] as? String == "mm/m" }
        await observer.waitForJSON(agent.prefix + "/state") { $0["unit"] as? String == "mm_per_m" }
        try await Task.sleep(for: .milliseconds(500))
        let discovery = Array(observer.messages.dropFirst(start).filter { $0.topic.hasPrefix("homeassistant/") })
        #expect(discovery.map(\.topic) == [base + "slope/config"], "only the slope's config: \(discovery.map(\.topic))")
        // The degree entities read degrees from the state, the slope the unit's figure.
        let state = try #require(observer.messages(on: agent.prefix + "/state").last.flatMap(json))
        #expect(state["tilt_deg"] is Double && state["tilt"] is Double)
        let retained = try await Observer.retained(port: broker.port, filter: base + "+/config")
        let angles = Set(retained.map { String($0.topic.split(separator: "/")[3]) }.filter { object in
            ["tilt", "roll", "pitch", "uncertainty", "slope"].contains { object.hasPrefix($0) }
        })
        #expect(angles == ["tilt_deg", "roll_deg", "pitch_deg", "uncertainty_deg", "slope"])
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func atStartTheAgentClearsAngleSensorsLeftByAnotherUnitOrAnOlderVersion() async throws {
        let broker = try MosquittoBroker.start()
        let deviceID = "t" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let base = "homeassistant/sensor/plumb_\(deviceID)/"
        // A run in percent, and a version whose object ids had no unit, left these retained.
        for object in ["tilt_percent", "roll_percent", "pitch_percent", "tilt", "roll", "pitch"] {
            try await MosquittoClients.publish(port: broker.port, topic: base + object + "/config",
                                               message: #"{"name":"old","state_topic":"x"}"#, retain: true, qos: 1)
        }
        let agent = try AgentProcess(brokerURL: broker.url, deviceID: deviceID)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        try await Task.sleep(for: .seconds(1))
        let retained = try await Observer.retained(port: broker.port, filter: base + "+/config")
        let angles = Set(retained.map { String($0.topic.split(separator: "/")[3]) }.filter {
            $0.hasPrefix("tilt") || $0.hasPrefix("roll") || $0.hasPrefix("pitch")
        })
        #expect(angles == ["tilt_deg", "roll_deg", "pitch_deg"])
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func aZeroPressedOnAMachineThatIsNotStillIsAnsweredOnTheResultTopic() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, filter: "#")
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-motion", "vibration"])
        await observer.waitForJSON(agent.prefix + "/state")
        try observer.publish(agent.prefix + "/command/zero", "PRESS")
        let result = try #require(await observer.waitForJSON(agent.prefix + "/result"), "\(agent.stderr)")
        #expect(result["command"] as? String == "zero" && result["ok"] as? Bool == false)
        #expect((result["message"] as? String)?.hasPrefix("Zero refused: ") == true, "\(result)")
        let retained = try await Observer.retained(port: broker.port, filter: agent.prefix + "/result")
        #expect(retained.count == 1, "P/result is retained")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func whatTheAgentPublishesPassesHomeAssistantsOwnSchemasInEveryMode() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port, filter: "homeassistant/#")
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "device:\n  configuration_url: https://plumb.lan/\n")
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        let settings = try await Observer(port: broker.port, filter: agent.prefix + "/config")
        var seen: [String: Set<String>] = [:]  // topic → distinct payloads
        for mount in ["flat", "upright"] {
            for unit in ["deg", "percent", "mm_per_m", "in_per_ft"] {
                try observer.publish(agent.prefix + "/config/set", #"{"mount":"\#(mount)","angle_unit":"\#(unit)"}"#)
                await settings.waitForJSON(agent.prefix + "/config") {
                    $0["mount"] as? String == mount && $0["angle_unit"] as? String == unit
                }
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        for message in observer.messages where !message.payload.isEmpty {
            seen[message.topic, default: []].insert(message.payloadString ?? "")
        }
        // The degree entities have one config whatever the unit and mount; the slope one per unit.
        #expect(seen["homeassistant/sensor/plumb_\(agent.deviceID)/tilt_deg/config"]?.count == 1)
        #expect(seen["homeassistant/sensor/plumb_\(agent.deviceID)/slope/config"]?.count == 4)
        let lines = seen.flatMap { topic, payloads in
            payloads.compactMap { payload in
                (try? JSONSerialization.data(withJSONObject: ["topic": topic, "payload": payload]))
                    .map { String(decoding: $0, as: UTF8.self) }
            }
        }
        let result = try await HomeAssistantValidator.validate(lines: lines)
        #expect(result.status == 0, "ha-conformance:\n\(result.output)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await settings.stop()
        await observer.stop()
    }

    @Test func theBubbleIsARetainedPNGAtMostOnceASecondAndQuietWhenStill() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        // Rocking ±2° over 60 s: the state changes every half second.
        let moving = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  min_interval_s: 0.5\n  publish_deadband_deg: 0.01\n",
                                      arguments: ["--sim-motion", "sweep"])
        let bubble = moving.prefix + "/bubble"
        let firstMessage = try #require(await observer.waitFor(bubble))
        let first = (time: Date(), message: firstMessage)
        // A PNG the camera serves as it is: 200 × 200, with the figures set in ink (above or below
        // the centre, away from the bubble).
        let image = try PNG.decode(firstMessage.payload)
        #expect(image.width == 200 && image.height == 200)
        let figures = (80..<120).flatMap { x in Array(30..<60).map { image.pixel(x: x, y: $0) } + (132..<153).map { image.pixel(x: x, y: $0) } }
        #expect(figures.contains { $0.red < 80 && $0.green < 80 && $0.blue < 80 }, "no figures in the picture")
        try await Task.sleep(for: .seconds(6))
        let times = observer.arrivals(on: bubble).map(\.time)
        let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
        #expect(times.count >= 3, "the picture should follow the moving machine")
        // The agent spaces them ≥ 1 s apart; delivery jitter on a busy machine can close a gap a little.
        #expect(gaps.allSatisfy { $0 >= 0.7 }, "bubble gaps \(gaps)")
        let window = times.filter { $0 > first.time.addingTimeInterval(0.5) }
        #expect(window.count <= 7, "\(window.count) pictures in 6 s")
        let retained = try await Observer.retained(port: broker.port, filter: bubble)
        #expect(retained.count == 1)
        #expect(await moving.send(SIGTERM)?.status == 0)

        // A little noise (0.2 LSB: about 0.005° on a 1 s average, far inside the 0.05° deadband)
        // and a heartbeat every second: each heartbeat's average differs by noise, enough to move
        // the drawn bubble, and none of that may redraw the picture.
        let still = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  heartbeat_s: 1\n  min_interval_s: 1\n",
                                     arguments: ["--sim-roll", "1", "--sim-noise-lsb", "0.2", "--sim-seed", "3"])
        let stillBubble = still.prefix + "/bubble"
        await observer.waitFor(stillBubble)
        try await Task.sleep(for: .seconds(1.5))
        let settled = observer.messages(on: stillBubble).count
        try await Task.sleep(for: .seconds(4))
        #expect(observer.messages(on: stillBubble).count == settled, "a still machine sent pictures")
        #expect(observer.messages(on: still.prefix + "/state").count >= 4, "heartbeats went on meanwhile")
        #expect(await still.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func forgetLeavesNoRetainedTopicOfTheDevice() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        try await Task.sleep(for: .seconds(2))
        // While it runs, forget refuses: the agent would publish it all again.
        let refused = try await PlumbCommand.run(["forget", "--device-id", agent.deviceID, "--broker", broker.url])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("online"))
        #expect(await agent.send(SIGTERM)?.status == 0)
        // A desired config left behind, as a dashboard might.
        try await MosquittoClients.publish(port: broker.port, topic: agent.prefix + "/config/level_tolerance/set",
                                           message: "0.2", retain: true, qos: 1)
        let before = try await MosquittoClients.retained(port: broker.port, topic: agent.prefix + "/#")
            + MosquittoClients.retained(port: broker.port, topic: Self.discoveryFilter(agent))
        #expect(before.count >= 20)

        let result = try await PlumbCommand.run(["forget", "--device-id", agent.deviceID, "--broker", broker.url])
        #expect(result.status == 0, "\(result.stderr)")
        for message in before {
            #expect(result.stdout.contains("cleared \(message.topic)\n"))
        }
        let after = try await MosquittoClients.retained(port: broker.port, topic: agent.prefix + "/#")
            + MosquittoClients.retained(port: broker.port, topic: "homeassistant/#")
        #expect(after.isEmpty, "left behind: \(after.map(\.topic))")
        let again = try await PlumbCommand.run(["forget", "--device-id", agent.deviceID, "--broker", broker.url])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing retained"))
    }
}

/// Runs the `plumb` binary to completion.
enum PlumbCommand {
    /// On a thread of its own (``offThePool(_:)``): the wait must not hold a cooperative pool thread.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await offThePool { try runBlocking(arguments) }
    }

    private static func runBlocking(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let outcome = try CommandRun.blocking([AgentProcess.binary.path] + arguments, timeout: 60)
        return (outcome.status, outcome.stdout, outcome.stderr)
    }
}

/// `Tests/HAConformance/ha-conformance`: the project's check with Home Assistant's own code.
enum HomeAssistantValidator {
    static var script: URL {
        // Tests/AgentTests/<file> → the package root → Tests/HAConformance.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Tests/HAConformance/ha-conformance")
    }

    /// Checks JSON lines `{"topic":…,"payload":…}`; returns the exit status (0 only with no error
    /// and no warning: `--strict`) and the report, a line per finding.
    static func validate(lines: [String]) async throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: script.path) else {
            Issue.record("ha-conformance is missing at \(script.path): restore it with git checkout -- Tests/HAConformance")
            return (2, "")
        }
        // On a thread of its own: Home Assistant takes seconds to load, and a blocked thread of
        // the cooperative pool (one per core) stalls the tests running beside this one.
        return try await offThePool { try validateBlocking(lines: lines) }
    }

    private static func validateBlocking(lines: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = script
        // 2024.3's MQTT sensor has no `options`: it drops the zone sensor's, and the zone still
        // shows A–D (HAConformanceTests.knownFindings says the same for the Swift-built payloads).
        process.arguments = ["check", "--strict", "--text", "--allow", "2024.3.3:vibration_zone:dropped-key:'options'"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(lines.joined(separator: "\n").utf8 + [10]))
        try input.fileHandleForWriting.close()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self))
    }
}
