import BrokerHarness
import Foundation
import MQTT
import Testing

/// The ruler service (`P/request/<service>`) answered by `plumb run` over a real mosquitto.
@Suite("Ruler service over a real broker", .serialized)
struct RulerServiceOverBrokerTests {
    /// Parses a reply.
    static func reply(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test func mosquittoRRGetsTheReplyOnItsResponseTopicWithItsCorrelationData() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        // -F prints the correlation data the reply carried, then the payload.
        let output = try await MosquittoClients.request(
            port: broker.port, topic: agent.prefix + "/request/ruler", responseTopic: "rr/" + agent.deviceID,
            message: #"{"length":30,"unit":"cm","style":"metric","px_per_unit":80,"indicator_px":412}"#,
            extraArgs: ["-D", "publish", "correlation-data", "req-42", "-F", "%D\t%p"])
        let parts = output.split(separator: "\t", maxSplits: 1).map(String.init)
        #expect(parts.first == "req-42")
        let reply = try Self.reply(parts.last ?? "")
        #expect(reply["status"] as? String == "ok")
        #expect(reply["transaction"] == nil)
        let data = try #require(reply["data"] as? [String: Any])
        #expect(data["tick_count"] as? Int == 301)
        #expect(data["width_px"] as? Double == 2400)
        #expect((data["ticks"] as? [Any])?.count == 301)
        let indicator = try #require(data["indicator"] as? [String: Any])
        #expect(indicator["at"] as? Double == 5.15)
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func anMQTT311ClientMatchesItsReplyByTransactionOnTheDefaultResponseTopic() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        let client = try await Observer(port: broker.port, filter: agent.prefix + "/response/+", version: .v311)
        try client.publish(agent.prefix + "/request/convert", #"{"value":12,"from":"in","to":"cm","transaction":"t-311"}"#)
        let message = try #require(await client.waitFor(agent.prefix + "/response/convert"))
        let reply = try Self.reply(message.payloadString ?? "")
        #expect(reply["status"] as? String == "ok")
        #expect(reply["transaction"] as? String == "t-311")
        #expect((reply["data"] as? [String: Any])?["result"] as? Double == 30.48)
        await client.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func everyErrorCodeComesBackAndNoRequestMeetsSilence() async throws {
        let broker = try MosquittoBroker.start()
        // One request a second with no burst: the second request in a row is busy. The sensor is
        // unplugged from the second second on, for a minute: rise has no reading.
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "service:\n  requests_per_s: 1\n  burst: 1\n",
                                     arguments: ["--sim-fault", "unplug:1:60"])
        #expect(await agent.waitForLog("sensor fault", timeout: 20), "\(agent.stderr)")
        let client = try await Observer(port: broker.port, filter: agent.prefix + "/response/+", version: .v5)
        let p = agent.prefix
        let cases: [(topic: String, payload: String, code: String)] = [
            (p + "/request/ruler", "not json", "bad_request"),
            (p + "/request/ruler", #"{"length":30,"unit":"furlong","transaction":"a"}"#, "bad_request"),
            (p + "/request/ruler", #"{"length":2500,"unit":"cm","style":"metric","transaction":"b"}"#, "too_large"),
            (p + "/request/ruler", #"{"transaction":"c","pad":""# + String(repeating: "x", count: 16 * 1024) + #""}"#, "too_large"),
            (p + "/request/rise", #"{"span":1.2,"unit":"m","transaction":"d"}"#, "no_reading"),
            (p + "/request/teleport", #"{"transaction":"e"}"#, "bad_request"),
        ]
        for (index, request) in cases.enumerated() {
            // Wait out the one-per-second limit so only the code under test can answer.
            try await Task.sleep(for: .milliseconds(1100))
            let before = client.messages.count
            try client.publish(request.topic, request.payload)
            let service = String(request.topic.split(separator: "/").last ?? "")
            let message = try #require(await client.waitFor(p + "/response/" + service, after: before),
                                       "case \(index): no reply to \(request.payload.prefix(60))")
            let reply = try Self.reply(message.payloadString ?? "")
            #expect(reply["status"] as? String == "error", "case \(index)")
            #expect(reply["code"] as? String == request.code, "case \(index): \(reply)")
            #expect((reply["error"] as? String)?.isEmpty == false)
        }
        // Two at once: the second is turned away, and still answered.
        try await Task.sleep(for: .milliseconds(1100))
        let before = client.messages.count
        try client.publish(p + "/request/convert", #"{"value":1,"from":"m","to":"mm","transaction":"first"}"#)
        try client.publish(p + "/request/convert", #"{"value":1,"from":"m","to":"mm","transaction":"second"}"#)
        let busy = try #require(await client.waitFor(p + "/response/convert", after: before) { message in
            (try? Self.reply(message.payloadString ?? ""))?["transaction"] as? String == "second"
        })
        let reply = try Self.reply(busy.payloadString ?? "")
        #expect(reply["code"] as? String == "busy")
        await client.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func aReplyIsNeverSentOntoPlumbsOwnTopics() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url)
        #expect(await agent.waitForLog("connected to the broker", timeout: 20), "\(agent.stderr)")
        let client = try await Observer(port: broker.port, filter: "#", version: .v5)
        let before = client.messages.count
        // A client allowed only to send requests tries to make the agent zero another device.
        try client.client.publish(agent.prefix + "/request/convert", payload: Array(#"{"value":1,"from":"m","to":"mm"}"#.utf8),
                                  qos: .atLeastOnce, retain: false,
                                  properties: MQTTPublishProperties(responseTopic: "plumb/other/command/zero",
                                                                    correlationData: Array("c-7".utf8)))
        let message = try #require(await client.waitFor(agent.prefix + "/response/convert", after: before))
        let reply = try Self.reply(message.payloadString ?? "")
        #expect(reply["code"] as? String == "bad_request")
        #expect((reply["error"] as? String)?.contains("plumb/other/command/zero") == true)
        #expect(message.correlationData == Array("c-7".utf8))
        try await Task.sleep(for: .milliseconds(300))
        #expect(client.messages(on: "plumb/other/command/zero").isEmpty)
        await client.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func fiftyConcurrentRequestersEachGetTheirOwnAnswer() async throws {
        let broker = try MosquittoBroker.start()
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-pitch", "1", "--sim-noise-lsb", "0"])
        #expect(await agent.waitForLog("sensor running", timeout: 20), "\(agent.stderr)")
        try await Task.sleep(for: .milliseconds(1500))
        // Fifty MQTT 5 clients, each listening on its own response topic, all asking at once.
        // (In-process clients rather than fifty mosquitto_rr processes: the same traffic without
        // a burst of process start-ups on a two-core machine; mosquitto_rr has its own test.)
        let requesters = try await withThrowingTaskGroup(of: (Int, Observer).self) { group in
            for index in 0..<50 {
                group.addTask {
                    (index, try await Observer(port: broker.port, filter: "rr/\(agent.deviceID)/\(index)", version: .v5))
                }
            }
            var requesters: [Int: Observer] = [:]
            for try await (index, observer) in group { requesters[index] = observer }
            return requesters
        }
        for (index, requester) in requesters {
            // Each asks a different question, so a swapped answer cannot pass.
            let request = #"{"value":\#(index + 1),"from":"cm","to":"mm","transaction":"n\#(index)"}"#
            try requester.client.publish(agent.prefix + "/request/convert", payload: Array(request.utf8), qos: .atLeastOnce,
                                         retain: false,
                                         properties: MQTTPublishProperties(responseTopic: "rr/\(agent.deviceID)/\(index)",
                                                                           correlationData: Array("c\(index)".utf8)))
        }
        var texts: [Int: String] = [:]
        for (index, requester) in requesters {
            let reply = await requester.waitFor("rr/\(agent.deviceID)/\(index)", timeout: 20)
            #expect(reply?.correlationData == Array("c\(index)".utf8))
            texts[index] = reply?.payloadString
            await requester.stop()
        }
        let answers = try texts.mapValues(Self.reply)
        #expect(answers.count == 50)
        for (index, reply) in answers {
            #expect(reply["transaction"] as? String == "n\(index)")
            #expect((reply["data"] as? [String: Any])?["result"] as? Double == Double((index + 1) * 10))
        }
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func riseAndShimUseTheCurrentReading() async throws {
        let broker = try MosquittoBroker.start()
        // With the datasheet's noise, not without: a noiseless chip rounds sin 1° to 4 LSB of
        // 1/256 g (15.6 mm a metre), where noise dithers the average to the true 17.455.
        let agent = try AgentProcess(brokerURL: broker.url, arguments: ["--sim-pitch", "1", "--sim-seed", "7"])
        #expect(await agent.waitForLog("sensor running", timeout: 20), "\(agent.stderr)")
        try await Task.sleep(for: .milliseconds(1500))
        let rise = try Self.reply(try await MosquittoClients.request(
            port: broker.port, topic: agent.prefix + "/request/rise", responseTopic: "rr/" + agent.deviceID,
            message: #"{"span":1,"unit":"m","axis":"pitch","result_unit":"mm"}"#))
        let data = try #require(rise["data"] as? [String: Any])
        // pitch +1°: the −x end is high, by 1000·tan 1° = 17.455 mm.
        // Uncalibrated: the datasheet's zero-g offset (±35 mg) is most of the uncertainty, and the
        // answer says so.
        let uncertainty = try #require(data["uncertainty"] as? Double)
        #expect(uncertainty > 0 && uncertainty < 90, "\(data)")
        #expect(data["uncertainty_dominant"] as? String == "calibration" && data["precision_note"] is String, "\(data)")
        #expect(abs((data["rise"] as? Double ?? 0) - 17.455) <= 0.5, "\(data)")
        #expect(data["high_end"] as? String == "-x")
        #expect((data["reading_age_s"] as? Double ?? 99) < 1)
        let shim = try Self.reply(try await MosquittoClients.request(
            port: broker.port, topic: agent.prefix + "/request/shim", responseTopic: "rr/" + agent.deviceID,
            message: #"{"length":1,"width":0.5,"unit":"m","feet":4,"result_unit":"mm"}"#))
        let feet = try #require((shim["data"] as? [String: Any])?["feet"] as? [[String: Any]])
        let shims = Dictionary(uniqueKeysWithValues: feet.map { ($0["foot"] as? String ?? "", $0["shim"] as? Double ?? -1) })
        // The rear (−x) is high: the front feet take the whole rise.
        // The rear feet are within noise of each other; the higher of them gets nothing.
        #expect(min(shims["rear_left"] ?? 1, shims["rear_right"] ?? 1) == 0)
        #expect(max(shims["rear_left"] ?? 9, shims["rear_right"] ?? 9) < 1)
        #expect(abs((shims["front_left"] ?? 0) - 17.455) < 2, "\(feet)")
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    @Test func stateKeepsPublishingOnTimeUnderARequestFlood() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  heartbeat_s: 1\n  min_interval_s: 1\n",
                                     arguments: ["--sim-noise-lsb", "0"])
        let p = agent.prefix
        await observer.waitForJSON(p + "/state") { $0["sensor"] as? String == "ok" }
        let flooder = try await Observer(port: broker.port, filter: p + "/response/+", version: .v5)
        let flood = """
            {"length":30,"unit":"cm","transaction":"flood"}
            """
        let start = Date()
        var sent = 0
        // About 2,500 requests a second, over ten times the limit: enough to prove the point
        // without starving the tests that run beside this one.
        while Date().timeIntervalSince(start) < 5 {
            for _ in 0..<25 {
                try? flooder.client.publish(p + "/request/ruler", payload: Array(flood.utf8), qos: .atMostOnce, retain: false)
                sent += 1
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(sent > 5 * 1000)
        try await Task.sleep(for: .seconds(1))
        let states = observer.arrivals(on: p + "/state").map(\.time).filter { $0 >= start }
        let gaps = zip(states.dropFirst(), states).map { $0.timeIntervalSince($1) }
        // A heartbeat a second; under the flood no gap may grow past a few seconds.
        #expect(states.count >= 3, "\(states.count) states in the 5 s flood")
        #expect((gaps.max() ?? 99) < 3, "gaps \(gaps)")
        let replies = flooder.messages.compactMap { try? Self.reply($0.payloadString ?? "") }
        #expect(replies.contains { $0["code"] as? String == "busy" }, "\(sent) sent, no busy reply")
        #expect(replies.contains { $0["status"] as? String == "ok" })
        await flooder.stop()
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }
}
