import BrokerHarness
import Foundation
import Testing

/// `plumb fleet` end to end: real agents (`plumb run` on the simulated sensor) and retained
/// topics written with mosquitto_pub, on a broker of the test's own.
@Suite("plumb fleet end to end")
struct FleetCLITests {
    @Test(arguments: [
        (["fleet", "--base-topic", "plumb/#"], "wildcard"),
        (["fleet", "--base-topic", "plumb/"], "empty level"),
        (["fleet", "--base-topic", "$SYS"], "the broker reserves"),
        (["fleet", "--base-topic", ""], "is empty"),
        (["fleet", "--jsno"], "unknown option '--jsno'"),
        (["fleet", "lathe"], "unexpected argument 'lathe'"),
        (["fleet", "--broker", "http://x"], "mqtt"),
    ])
    func usageMistakesExitTwoSayingWhatToDo(arguments: [String], mentioned: String) async throws {
        let outcome = try await PlumbProcess.run(arguments)
        #expect(outcome.status == (arguments.contains("--broker") ? 78 : 2), "\(outcome)")
        #expect(outcome.stderr.contains(mentioned), "\(outcome)")
        #expect(outcome.stdout.isEmpty, "\(outcome)")
    }

    @Test func aBrokerThatCannotBeReachedExitsOneWithTheMQTTError() async throws {
        let broker = try MosquittoBroker.start()
        let url = broker.url
        broker.stop()
        let outcome = try await PlumbProcess.run(["fleet", "--broker", url])
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.stderr.contains("plumb fleet: error: cannot connect to the MQTT broker"), "\(outcome)")
        #expect(outcome.stderr.contains("ECONNREFUSED"), "\(outcome)")
    }

    /// The devices of `plumb fleet --json` on `broker`, in the order listed.
    private func listing(_ broker: MosquittoBroker, _ extra: [String] = []) async throws -> [[String: Any]] {
        let outcome = try await PlumbProcess.run(["fleet", "--json", "--broker", broker.url] + extra)
        #expect(outcome.status == 0, "\(outcome)")
        let object = try #require(try outcome.jsonObjects().first)
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(object["count"] as? Int == devices.count)
        return devices
    }

    /// Polls the listing until `done` holds for it (agents take a moment to publish), for 20 s.
    private func listing(_ broker: MosquittoBroker, until done: ([[String: Any]]) -> Bool) async throws
        -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(20)
        var devices = try await listing(broker)
        while !done(devices), Date() < deadline {
            try await Task.sleep(for: .milliseconds(300))
            devices = try await listing(broker)
        }
        return devices
    }

    private static func agent(_ broker: MosquittoBroker, id: String, yaml: String, in directory: String) throws -> Process {
        try yaml.write(toFile: directory + "/\(id).yaml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = PlumbProcess.binary
        process.arguments = ["run", "--config", directory + "/\(id).yaml", "--sensor", "sim", "--broker", broker.url,
                             "--device-id", id, "--state-dir", directory + "/state-\(id)"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func realAgentsAreListedProblemsFirstAndAKilledOneIsOffline() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let directory = try makeTemporaryDirectory("fleet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lathe = try Self.agent(broker, id: "lathe", yaml: "", in: directory)
        let mill = try Self.agent(broker, id: "mill", yaml: "mqtt:\n  base_topic: plumb/hall-2\nvibration:\n  vibration: false\n",
                                  in: directory)
        defer {
            for agent in [lathe, mill] {
                if agent.isRunning { agent.terminate() }
                // Ends Foundation's Process reference cycle, which polling isRunning never does
                // (LeakSanitizer); the agent exits at once on SIGTERM, or is already gone.
                agent.waitUntilExit()
            }
        }
        let ready = try await listing(broker) { devices in
            devices.count == 2 && devices.allSatisfy { $0["status"] as? String == "online" && $0["version"] is String }
        }
        #expect(ready.count == 2, "\(ready)")
        let byID = Dictionary(uniqueKeysWithValues: ready.map { ($0["id"] as? String ?? "", $0) })
        let millEntry = try #require(byID["mill"])
        #expect(millEntry["site"] as? String == "hall-2" && millEntry["base_topic"] as? String == "plumb/hall-2")
        #expect(millEntry["name"] as? String == "Plumb mill" && millEntry["unit"] as? String == "deg")
        #expect(millEntry["sensor"] as? String == "ok" && millEntry["tilt"] is Double)
        #expect(millEntry["calibration_method"] is NSNull && (millEntry["state_age_s"] as? Double ?? 99) < 60)
        // The mill's analysis is off: no running or zone at all, rather than unknown.
        #expect(millEntry["running"] == nil && millEntry["zone"] == nil, "\(millEntry)")
        #expect(byID["lathe"]?["site"] is NSNull)

        // Killed, the lathe cannot say goodbye: the broker publishes its will, offline.
        kill(lathe.processIdentifier, SIGKILL)
        let after = try await listing(broker) { devices in
            devices.first?["id"] as? String == "lathe" && devices.first?["status"] as? String == "offline"
        }
        #expect(after.map { $0["id"] as? String } == ["lathe", "mill"], "\(after)")
        #expect(after.first?["problem"] as? String == "offline", "\(after)")

        // Listed under the site alone, the mill keeps its site.
        let hall = try await listing(broker, ["--base-topic", "plumb/hall-2"])
        #expect(hall.map { $0["id"] as? String } == ["mill"] && hall.first?["site"] as? String == "hall-2")

        let table = try await PlumbProcess.run(["fleet", "--broker", broker.url])
        #expect(table.status == 0, "\(table)")
        #expect(table.lines.first?.hasPrefix("PROBLEM  ID") == true, "\(table)")
        #expect(table.lines.dropFirst().first?.hasPrefix("offline  lathe") == true, "\(table)")
    }

    @Test func generatedTopicsSortByProblemAndAMalformedPayloadShowsAsSuch() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        func device(_ prefix: String, status: String, state: String) async throws {
            try await MosquittoClients.publish(port: broker.port, topic: prefix + "/status", message: status, retain: true)
            try await MosquittoClients.publish(port: broker.port, topic: prefix + "/state", message: state, retain: true)
        }
        let ts = "2026-12-01T12:00:00.000Z"
        try await device("plumb/ok", status: "online",
                         state: #"{"level":true,"sensor":"ok","alarm":false,"tilt":0.01,"unit":"deg","stable":true,"ts":"\#(ts)"}"#)
        try await device("plumb/east/tilted", status: "online",
                         state: #"{"level":false,"sensor":"ok","alarm":false,"tilt":1.5,"unit":"percent","ts":"\#(ts)"}"#)
        try await device("plumb/alarmed", status: "online", state: #"{"level":false,"sensor":"ok","alarm":true,"tilt":6}"#)
        try await device("plumb/faulty", status: "online", state: #"{"level":null,"sensor":"fault","alarm":null,"tilt":null}"#)
        try await device("plumb/gone", status: "offline", state: #"{"level":true,"sensor":"ok"}"#)
        try await device("plumb/garbled", status: "online", state: "{not json")
        // Not devices: a bubble, a topic outside the contract, a base that only shares a prefix.
        try await MosquittoClients.publish(port: broker.port, topic: "plumb/ok/bubble", message: "<svg/>", retain: true)
        try await MosquittoClients.publish(port: broker.port, topic: "plumbing/x/status", message: "online", retain: true)

        let devices = try await listing(broker)
        #expect(devices.map { $0["id"] as? String } == ["gone", "faulty", "alarmed", "garbled", "tilted", "ok"], "\(devices)")
        #expect(devices.map { $0["problem"] as? String } == ["offline", "sensor_fault", "alarm", "not_level", "not_level", nil])
        let garbled = try #require(devices.first { $0["id"] as? String == "garbled" })
        #expect(garbled["malformed"] as? [String] == ["state"] && garbled["level"] is NSNull)
        let tilted = try #require(devices.first { $0["id"] as? String == "tilted" })
        #expect(tilted["site"] as? String == "east" && tilted["tilt"] as? Double == 1.5 && tilted["unit"] as? String == "percent")

        let table = try await PlumbProcess.run(["fleet", "--broker", broker.url])
        #expect(table.stdout.contains("1.5%") && table.stdout.contains("malformed state"), "\(table)")
    }

    /// A monitoring user that may only read: the marker it publishes is dropped, and the listing
    /// is still complete, every round after the first ended by the status it subscribes to again.
    @Test func aUserThatMayOnlyReadStillGetsEveryTopic() async throws {
        let broker = try MosquittoBroker.start(.init(persistence: true))
        defer { broker.stop() }
        for id in ["lathe", "mill", "drill"] {
            for (leaf, payload) in [("status", "online"), ("state", #"{"level":true,"sensor":"ok","tilt":0.02,"unit":"deg"}"#),
                                    ("config", #"{"name":"Machine \#(id)"}"#), ("health", #"{"version":"0.1.0"}"#),
                                    ("calibration", #"{"method":null,"date":null}"#)] {
                try await MosquittoClients.publish(port: broker.port, topic: "plumb/hall-1/\(id)/\(leaf)", message: payload,
                                                   retain: true, qos: 1)
            }
        }
        let acl = broker.directory + "/acl"
        try "topic read plumb/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let config = try String(contentsOfFile: broker.configFile, encoding: .utf8)
        try (config + "\nacl_file \(acl)\n").write(toFile: broker.configFile, atomically: true, encoding: .utf8)
        try broker.restart()

        let outcome = try await PlumbProcess.run(["fleet", "--json", "--broker", broker.url])
        #expect(outcome.status == 0 && outcome.stderr.isEmpty, "\(outcome)")
        let devices = try #require(try outcome.jsonObjects().first?["devices"] as? [[String: Any]])
        #expect(devices.map { $0["id"] as? String } == ["drill", "lathe", "mill"], "\(devices)")
        #expect(devices.allSatisfy { $0["version"] as? String == "0.1.0" && $0["name"] is String && $0["tilt"] is Double },
                "\(devices)")
        #expect(await broker.waitForLog(containing: "Denied PUBLISH"), "the marker was not refused: \(broker.logContents())")
    }

    @Test func watchWithoutATerminalPrintsAListingOnEachChange() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        try await MosquittoClients.publish(port: broker.port, topic: "plumb/lathe/status", message: "online", retain: true)
        let (process, pipe) = try PlumbProcess.start(["fleet", "--watch", "--json", "--broker", broker.url])
        defer { if process.isRunning { process.terminate() } }
        let reader = LineReader(pipe)
        let first = try #require(await reader.next(timeout: 10))
        #expect(first.contains(#""id":"lathe""#) && first.contains(#""status":"online""#), "\(first)")
        try await MosquittoClients.publish(port: broker.port, topic: "plumb/lathe/status", message: "offline", retain: true)
        let second = try #require(await reader.next(timeout: 10))
        #expect(second.contains(#""status":"offline""#), "\(second)")
        process.terminate()
        let status = await offThePool { process.waitUntilExit(); return process.terminationStatus }
        #expect(status == 0)
    }
}

extension FleetCLITests {
    /// The text of `file` once it contains `text`, or nil after `seconds`.
    private func wait(for text: String, in file: String, seconds: Double) async throws -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        // Read once more after the deadline: what was written during the last sleep counts.
        while true {
            let contents = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            if contents.contains(text) { return contents }
            guard Date() < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func atATerminalItRedrawsInPlaceOnAChangeAndQRestoresTheTerminal() async throws {
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        try await MosquittoClients.publish(port: broker.port, topic: "plumb/lathe/status", message: "offline", retain: true)
        let directory = try makeTemporaryDirectory("fleet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // util-linux `script` gives plumb a pseudo-terminal and records what it draws (-f: at once).
        let command = "stty rows 30 cols 160; stty -g > \(directory)/before; '\(PlumbProcess.binary.path)' fleet --watch"
            + " --broker \(broker.url); echo \"rc=$?\"; stty -g > \(directory)/after"
        let screen = directory + "/typescript"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, screen]
        let keys = Pipe()
        process.standardInput = keys
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()  // ends Foundation's Process reference cycle (LeakSanitizer)
        }

        let first = try await wait(for: "offline  lathe", in: screen, seconds: 15)
        #expect(first?.contains("plumb fleet: 1 device under plumb/, 1 with a problem") == true, "\(first ?? "no screen")")
        try await MosquittoClients.publish(port: broker.port, topic: "plumb/mill/status", message: "online", retain: true)
        let second = try await wait(for: "2 devices under plumb/", in: screen, seconds: 10)
        #expect(second != nil, "no redraw after the mill came online")
        keys.fileHandleForWriting.write(Data("q".utf8))
        let end = try #require(try await wait(for: "rc=0", in: screen, seconds: 10), "did not quit with 0 on q")
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        // The alternate screen entered and left, each frame drawn from the top left, and the
        // terminal's settings as they were.
        #expect(end.contains("\u{1B}[?1049h") && end.contains("\u{1B}[?25h\u{1B}[?1049l"))
        #expect(end.components(separatedBy: "\u{1B}[H").count >= 3)
        let before = try String(contentsOfFile: directory + "/before", encoding: .utf8)
        let after = try String(contentsOfFile: directory + "/after", encoding: .utf8)
        #expect(before == after, "stty settings before and after differ")
    }
}

/// Lines of a child's stdout, read off the cooperative pool.
private final class LineReader: @unchecked Sendable {
    // @unchecked Sendable: `buffer` is only touched by `next`, which a test calls from one task
    // at a time (each call waits for the previous one to return).
    private let handle: FileHandle
    private var buffer = Data()

    init(_ pipe: Pipe) { handle = pipe.fileHandleForReading }

    /// The next line, or nil at the end of the output or after `timeout` seconds.
    func next(timeout: Double) async -> String? {
        let handle = handle
        let box = self
        return await offThePool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let newline = box.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: box.buffer[..<newline], as: UTF8.self)
                    box.buffer.removeSubrange(...newline)
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                box.buffer.append(chunk)
            }
            return nil
        }
    }
}
