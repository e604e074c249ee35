import BrokerHarness
import Configuration
import Foundation
import Persistence
import PlumbSync
import Testing

/// `plumb` commands beside a running `plumb run`, through its control socket: readings with its
/// calibration and `"source": "agent"`, the tumble run in the agent and applied without a reload,
/// `--direct` refused while the agent holds the chip, and a socket a bad client cannot stall.
@Suite("The command line through the agent's control socket", .serialized)
struct ControlSocketOverAgentTests {
    typealias Outcome = CommandOutcome

    /// Runs `plumb arguments…` off the cooperative pool. `enter` writes a newline to its standard
    /// input every `enter` seconds (a person pressing Enter), else standard input is empty.
    static func plumb(_ arguments: [String], enter: Double? = nil, timeout: Double = 60) async throws -> Outcome {
        try await plumbCommand([AgentProcess.binary.path] + arguments, enter: enter, timeout: timeout)
    }

    /// Runs `command` (a program and its arguments) as ``plumb(_:enter:timeout:)`` does.
    static func plumbCommand(_ command: [String], enter: Double? = nil, timeout: Double = 60) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try CommandRun.blocking(command, enter: enter, timeout: TestTimeScale.scaled(timeout))
                })
            }
        }
    }

    static func socketYAML(_ path: String, extra: String = "") -> String {
        "control:\n  socket: \(path)\n" + extra
    }

    static func socketPath() -> String {
        let directory = "/tmp/plumb-sock-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/control.sock"
    }

    @Test func readAndProbeAnswerFromTheAgentWithItsCalibrationAndSayTheSource() async throws {
        let broker = try MosquittoBroker.start()
        let socket = Self.socketPath()
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket),
                                     arguments: ["--sim-roll", "2", "--sim-seed", "3"])
        try #require(await agent.waitForLog("control socket \(socket)", timeout: 20))
        let owner = try String(contentsOfFile: (socket as NSString).deletingLastPathComponent + "/owner.json", encoding: .utf8)
        #expect(owner.contains("\"pid\":\(agent.process.processIdentifier)"), "\(owner)")

        let read = try await Self.plumb(["read", "--socket", socket, "--json", "--count", "2"])
        #expect(read.status == 0, "\(read)")
        let lines = read.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 2)
        for line in lines {
            #expect(line["source"] as? String == "agent" && line["chip"] as? String == "ADXL345", "\(line)")
            #expect(abs((line["roll"] as? Double ?? 0) - 2) < 0.3, "\(line)")
        }
        let text = try await Self.plumb(["read", "--socket", socket])
        #expect(text.stdout.contains("(agent)") && text.stderr.contains("pid \(agent.process.processIdentifier)"), "\(text)")

        // Through the agent its settings rule: a flag that would reconfigure the chip is refused.
        let rate = try await Self.plumb(["read", "--socket", socket, "--rate", "800"])
        #expect(rate.status == 2 && rate.stderr.contains("--rate applies when plumb reads the chip itself"), "\(rate)")

        let probe = try await Self.plumb(["probe", "--socket", socket, "--json"])
        #expect(probe.status == 0 && probe.stdout.contains("\"source\":\"agent\"") && probe.stdout.contains("0xE5"), "\(probe)")
        let selftest = try await Self.plumb(["selftest", "--socket", socket, "--json"])
        #expect(selftest.status == 0 && selftest.stdout.contains("\"passed\":true"), "\(selftest)")
        // The agent reads on after the self-test.
        let after = try await Self.plumb(["rise", "1m", "--socket", socket, "--json"])
        #expect(after.status == 0 && after.stdout.contains("\"source\":\"agent\""), "\(after)")

        #expect(await agent.send(SIGTERM)?.status == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket is removed at the stop")
    }

    @Test func malformedHungAndFloodingClientsNeitherCrashNorStallTheAgent() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let socket = Self.socketPath()
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket, extra: "level:\n  heartbeat_s: 1\n"))
        try #require(await agent.waitForLog("control socket \(socket)", timeout: 20))
        let p = agent.prefix
        // A client that connects and never speaks, one that sends garbage, one that floods.
        let hung = try RawUnixSocket(socket, nonBlocking: true)
        let garbage = try RawUnixSocket(socket, nonBlocking: true)
        garbage.write("{\"request\":\"read\",}\n\u{1B}[2J\n{\"request\":\"reboot\"}\n")
        let flood = try RawUnixSocket(socket, nonBlocking: true)
        flood.write(String(repeating: "{\"request\":\"read\"}\n", count: 5000))
        let skip = observer.messages.count
        let read = try await Self.plumb(["read", "--socket", socket, "--json"])
        #expect(read.status == 0 && read.stdout.contains("\"source\":\"agent\""), "\(read)")
        // P/state heartbeats go on meanwhile.
        #expect(await observer.waitFor(p + "/state", after: skip, timeout: 10) { _ in true } != nil)
        #expect(agent.isRunning)
        _ = hung
        _ = flood
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func theTumbleThroughTheCommandLineRunsInTheAgentAndTheNextStateIsCalibrated() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let socket = Self.socketPath()
        // Each face long enough to settle and average 2 s, then flat.
        let script = SixPointOverBrokerTests.faces.map { "face:\($0) 10s" }.joined(separator: ", ") + ", face:+z 600s"
        let agent = try AgentProcess(brokerURL: broker.url,
                                     yaml: Self.socketYAML(socket, extra: SixPointOverBrokerTests.quickLevel),
                                     arguments: SixPointOverBrokerTests.offset + ["--sim-seed", "5", "--sim-script", script])
        let p = agent.prefix
        try #require(await observer.waitForJSON(p + "/state", timeout: 20) { $0["stable"] as? Bool == true } != nil)
        // The person presses Enter every 1.5 s; a face pressed twice is refused and asked again.
        let calibrate = try await Self.plumb(["calibrate", "six-point", "--socket", socket, "--json"], enter: 1.5,
                                             timeout: 150)
        #expect(calibrate.status == 0, "\(calibrate)")
        #expect(calibrate.stdout.contains("\"source\":\"agent\"") && calibrate.stdout.contains("\"method\":\"six_point\""),
                "\(calibrate.stdout)")
        #expect(calibrate.stderr.contains("calibrating through the running agent"))
        #expect(calibrate.stderr.contains("Lay the device still on that face"))
        // Applied and saved by the agent, no reload: P/calibration, the file, and a calibrated state.
        #expect(await observer.waitForJSON(p + "/calibration") { $0["method"] as? String == "six_point" } != nil)
        #expect(StateStore(directory: agent.stateDirectory).loadCalibration().record?.method == .sixPoint)
        let read = try await Self.plumb(["read", "--socket", socket, "--json"])
        #expect(read.stdout.contains("\"method\":\"six_point\""), "\(read)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func aCalibrationWhoseCommandGoesAwayIsCancelledAndASecondStartIsRefused() async throws {
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let socket = Self.socketPath()
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket, extra: SixPointOverBrokerTests.quickLevel))
        let p = agent.prefix
        try #require(await observer.waitForJSON(p + "/state", timeout: 20) { $0["stable"] as? Bool == true } != nil)
        // A tumble started over the socket and held, then an MQTT start refused naming it.
        let client = try RawUnixSocket(socket, nonBlocking: true)
        client.write("{\"request\":\"six_point\",\"action\":\"start\"}\n")
        let progress = try #require(await client.line(timeout: 10))
        #expect(progress.contains("\"state\":\"waiting\""), "\(progress)")
        try observer.publish(p + "/command/calibrate_six_point", "start")
        let refused = try #require(await observer.waitForJSON(p + "/event") {
            $0["type"] as? String == "calibration_rejected" && $0["running"] as? String == "six_point"
        })
        #expect(refused["started_by"] as? String == "plumb calibrate", "\(refused)")
        // The socket's client does not hear the refusal of someone else's start.
        #expect(await client.line(timeout: 1) == nil)
        // Its command goes away: cancelled, nothing applied.
        client.close()
        let cancelled = try #require(await observer.waitForJSON(p + "/event") { $0["cancelled"] as? Bool == true })
        #expect((cancelled["reason"] as? String)?.contains("went away") == true, "\(cancelled)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        await observer.stop()
    }

    @Test func directIsRefusedWhileTheAgentHoldsTheChipNamingItsPid() async throws {
        let broker = try MosquittoBroker.start()
        let socket = Self.socketPath()
        // A regular file as the bus: the agent takes the chip lock on it, then its I²C open fails
        // (not an i2c-dev device) and it waits as for any sensor fault, still holding the lock.
        let bus = (socket as NSString).deletingLastPathComponent + "/i2c-fake"
        _ = FileManager.default.createFile(atPath: bus, contents: Data())
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket, extra: "sensor:\n  kind: adxl345\n  bus: \(bus)\n"),
                                     simulated: false)
        try #require(await agent.waitForLog("sensor fault", timeout: 20))
        let direct = try await Self.plumb(["read", "--direct", "--bus", bus, "--socket", socket])
        #expect(direct.status == 1, "\(direct)")
        #expect(direct.stderr.contains("the agent (pid \(agent.process.processIdentifier)) owns the chip at 0x53 on \(bus)"),
                "\(direct.stderr)")
        #expect(direct.stderr.contains("Leave out --direct"))
        // Without --direct the command asks the agent, which says why it has no reading.
        let through = try await Self.plumb(["read", "--bus", bus, "--socket", socket], timeout: 30)
        #expect(through.status == 1 && through.stderr.contains("the sensor is faulty"), "\(through)")
        #expect(await agent.send(SIGTERM)?.status == 0)
        // Free once the agent is gone: the command reads the "chip" itself (and fails as a file would).
        let after = try await Self.plumb(["read", "--direct", "--bus", bus])
        #expect(!after.stderr.contains("owns the chip"), "\(after)")
    }
}

extension ControlSocketOverAgentTests {
    /// A person outside group `plumb` (here `nobody`, with no groups) while the agent holds the
    /// chip: told to join the group, naming the agent. Needs root to become `nobody`; skipped
    /// otherwise (CI runs as root).
    @Test func aUserWhoMayNotUseTheSocketIsToldToJoinGroupPlumb() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: needs root and setpriv to run a command as nobody")
            return
        }
        let broker = try MosquittoBroker.start()
        let socket = Self.socketPath()
        let directory = (socket as NSString).deletingLastPathComponent
        chmod(directory, 0o755)
        let bus = directory + "/i2c-fake"
        _ = FileManager.default.createFile(atPath: bus, contents: Data(), attributes: [.posixPermissions: 0o666])
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket, extra: "sensor:\n  kind: adxl345\n  bus: \(bus)\n"),
                                     simulated: false)
        try #require(await agent.waitForLog("control socket \(socket)", timeout: 20))
        let outcome = try await Self.plumb(["--bus", bus, "--socket", socket], asNobody: true)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.stderr.contains("sudo usermod -aG plumb $USER, then log in again"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("the agent (pid \(agent.process.processIdentifier))"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("chown"))
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    /// A calibration the user may not read: said, with the permission's fix and without advice to
    /// calibrate again (which would not help), and the readings go on raw.
    @Test func anUnreadableCalibrationIsNotAdvisedToBeMadeAgain() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: needs root and setpriv to run a command as nobody")
            return
        }
        let directory = "/tmp/plumb-unreadable-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "{}".write(toFile: directory + "/calibration.json", atomically: true, encoding: .utf8)
        chmod(directory, 0o750)
        let outcome = try await Self.plumb(["--sensor", "sim", "--state-dir", directory], asNobody: true)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.contains("calibration.json cannot be read: permission denied"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("calibrate it again"), "\(outcome.stderr)")
        #expect(outcome.stdout.contains("raw"))
    }

    @Test func vibrationThroughTheAgentPrintsTheLinesTheChipReadDirectlyPrints() async throws {
        let broker = try MosquittoBroker.start()
        let socket = Self.socketPath()
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket, extra: "sensor:\n  sample_rate_hz: 800\n"),
                                     arguments: ["--sim-vibration", "z:3@50"])
        try #require(await agent.waitForLog("sensor running", timeout: 20))
        let text = try await Self.plumb(["vibration", "--socket", socket, "--count", "1"])
        #expect(text.status == 0 && text.stdout.contains("(agent)"), "\(text)")
        let lines = text.stdout.split(separator: "\n")
        // The vector's acceleration, which a running_threshold in g is compared with.
        #expect(lines.contains { $0.hasPrefix("  all ") && $0.contains(" g RMS  peak ") }, "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("  z ") && $0.contains("tones: 50.0 Hz") }, "\(text.stdout)")
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    /// A client repeating what costs the chip gets no more of it: one watch stream per connection,
    /// a probe answered again from the last one, self-tests spaced.
    @Test func repeatedStreamsProbesAndSelfTestsAreBounded() async throws {
        let broker = try MosquittoBroker.start()
        let socket = Self.socketPath()
        let agent = try AgentProcess(brokerURL: broker.url, yaml: Self.socketYAML(socket))
        try #require(await agent.waitForLog("sensor running", timeout: 20))
        let client = try RawUnixSocket(socket)
        client.write("{\"request\":\"watch\",\"interval_s\":1}\n{\"request\":\"watch\"}\n")
        var lines: [String] = []
        while lines.count < 3, let line = await client.line(timeout: 10) { lines.append(line) }
        #expect(lines.contains { $0.contains("already has a watch stream") }, "\(lines)")
        let prober = try RawUnixSocket(socket)
        prober.write(String(repeating: "{\"request\":\"probe\"}\n", count: 20))
        for _ in 0..<20 { #expect(await prober.line(timeout: 10)?.contains("\"reply\":\"probe\"") == true) }
        // One job on the chip for the twenty: sampling resumed once.
        try await Task.sleep(for: .seconds(1))
        #expect(agent.stderr.components(separatedBy: "sampling resumed").count - 1 == 1, "\(agent.stderr)")
        prober.write("{\"request\":\"selftest\"}\n{\"request\":\"selftest\"}\n")
        #expect(await prober.line(timeout: 15)?.contains("\"reply\":\"selftest\"") == true)
        #expect(await prober.line(timeout: 5)?.contains("a self-test ran") == true)
        #expect(await agent.send(SIGTERM)?.status == 0)
    }

    /// `plumb read …` as `nobody` without groups.
    static func plumb(_ arguments: [String], asNobody: Bool) async throws -> Outcome {
        try await plumbCommand(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                AgentProcess.binary.path, "read"] + arguments)
    }
}
