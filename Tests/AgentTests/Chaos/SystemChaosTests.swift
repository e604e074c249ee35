import BrokerHarness
import Foundation
import MQTT
import Testing

/// `make chaos`, the machine around the agent: a full disk under the state directory, and a
/// wall clock that jumps. One summary line each.
@Suite("Chaos: disk and clock", .serialized, .enabled(if: ChaosEnvironment.chaosEnabled))
struct SystemChaosTests {
    // MARK: Disk full

    /// A state directory on a 64 KiB tmpfs (root in the container), filled to the last byte
    /// between two config changes.
    @Test func aFullDiskIsReportedAndCorruptsNothing() async throws {
        var report = ScenarioReport("disk full")
        let mountPoint = try makeTemporaryDirectory("full")
        let mount = try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint])
        try #require(mount == 0, "mount -t tmpfs needs root (CAP_SYS_ADMIN); make chaos runs as root in the container")
        defer { _ = try? Self.run("/bin/umount", ["-l", mountPoint]) }
        let stateDirectory = mountPoint + "/state"

        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, stateDirectory: stateDirectory)
        let p = agent.prefix
        await observer.waitFor(p + "/config", timeout: 20)
        let settingsFile = stateDirectory + "/settings.json"

        func change(_ dwell: Int) async -> [String: Any]? {
            let before = observer.events("config_applied", prefix: p).count
            try? observer.publish(p + "/config/set", "{\"level_dwell_s\": \(dwell)}")
            _ = await observer.waitFor(p + "/event", timeout: 10) { _ in
                observer.events("config_applied", prefix: p).count > before
            }
            return observer.events("config_applied", prefix: p).dropFirst(before).first
        }
        func storedDwell() -> Double? {
            guard let data = FileManager.default.contents(atPath: settingsFile),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return ((object["settings"] as? [String: Any])?["level_dwell_s"] as? NSNumber)?.doubleValue
        }

        let first = await change(7)
        report.check(first != nil && first?["persisted"] == nil, "a change with room is persisted")
        report.check(storedDwell() == 7, "settings.json holds it", "\(String(describing: storedDwell()))")

        let filled = Self.fill(mountPoint + "/filler")
        let full = await change(9)
        let refused = full?["persisted"] as? Bool == false
        report.figure("filled with \(filled / 1024) KiB; config_applied persisted: \((full?["persisted"] as? Bool).map { "\($0)" } ?? "absent")")
        report.check(refused, "a change on a full disk is reported persisted: false")
        let kept = storedDwell()
        report.check(kept == 7, "settings.json still parses and keeps the previous value", "\(String(describing: kept))")
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? [])
            .filter { $0 != "settings.json" && $0 != "zero.json" && $0 != "calibration.json" }
        report.figure("state dir: \(((try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []).sorted())")
        report.check(leftovers.isEmpty, "no temporary file left behind", "\(leftovers)")
        let effective = await observer.waitForJSON(p + "/config") { ($0["level_dwell_s"] as? NSNumber)?.doubleValue == 9 }
        report.check(effective != nil, "the change is in force all the same")

        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        let recovered = await change(11)
        report.check(recovered != nil && recovered?["persisted"] == nil, "with space back, the next change is persisted")
        report.check(storedDwell() == 11, "settings.json holds it", "\(String(describing: storedDwell()))")
        report.check(agent.isRunning, "agent alive")
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")

        // A restart on the same state directory starts from what was persisted.
        let again = try AgentProcess(brokerURL: broker.url, deviceID: agent.deviceID, stateDirectory: stateDirectory)
        let restarted = await observer.waitForJSON(p + "/config", timeout: 20) { _ in again.isRunning }
        let restartedDwell = (observer.messages(on: p + "/config").last.flatMap(json)?["level_dwell_s"] as? NSNumber)?.doubleValue
        report.check(restarted != nil && restartedDwell == 11, "a restart loads the persisted value",
                     "\(String(describing: restartedDwell))")
        report.check(!again.stderr.contains("corrupt"), "no state file found corrupt")
        _ = await again.send(SIGTERM)
        report.print()
        await observer.stop()
    }

    /// Writes zeros to `path` until the file system refuses; the bytes written.
    static func fill(_ path: String) -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        let chunk = Data(count: 1024)
        var written = 0
        while (try? handle.write(contentsOf: chunk)) != nil { written += chunk.count }
        try? handle.synchronize()
        return written
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        try CommandRun.blocking([tool] + arguments, timeout: 60).status
    }

    // MARK: Clock jump

    static let libfaketime = "/usr/lib/\(Self.machine)-linux-gnu/faketime/libfaketime.so.1"
    static var machine: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// libfaketime preloaded into the agent moves its wall clock (CLOCK_REALTIME) an hour
    /// forward, then back to true time, mid-run; its monotonic clocks are left alone.
    @Test func aWallClockJumpStallsNothing() async throws {
        var report = ScenarioReport("clock jump")
        try #require(FileManager.default.fileExists(atPath: Self.libfaketime),
                     "libfaketime is missing: scripts/install-deps.sh chaos installs it")
        let offsetFile = temporaryPath("faketime")
        try "+0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        let broker = try MosquittoBroker.start()
        let observer = try await Observer(port: broker.port)
        let agent = try AgentProcess(brokerURL: broker.url, yaml: "level:\n  heartbeat_s: 2\n", environment: [
            "LD_PRELOAD": Self.libfaketime, "FAKETIME_TIMESTAMP_FILE": offsetFile, "FAKETIME_CACHE_DURATION": "1",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        // The test process leaves signals 32 and 33 ignored in its children; with libfaketime
        // preloaded, a Swift program started so sees no arguments at all (plumb prints its
        // help). A C program does not; env(1) restoring every signal's default fixes it.
        ], launcher: ["/usr/bin/env", "--default-signal"])
        let p = agent.prefix
        await observer.waitFor(p + "/health", timeout: 30)

        let phases: [(name: String, offset: Double, file: String)] = [
            ("true time", 0, "+0"), ("an hour ahead", 3600, "+3600"), ("back to true time", 0, "+0"),
        ]
        let phaseSeconds = 12.0
        var states: [(phase: Int, arrival: Date, ts: Date)] = []
        var samples: [(phase: Int, count: Int, rate: Double)] = []
        for (index, phase) in phases.enumerated() {
            try phase.file.write(toFile: offsetFile, atomically: true, encoding: .utf8)
            let start = Date()
            let seen = observer.messages(on: p + "/state").count
            try await Task.sleep(for: .seconds(phaseSeconds))
            let arrivals = observer.arrivals(on: p + "/state").dropFirst(seen)
            // The first second may still carry the clock from before the jump.
            for arrival in arrivals where arrival.time.timeIntervalSince(start) > 1.5 {
                guard let text = json(arrival.message)?["ts"] as? String, let ts = Self.date(text) else { continue }
                states.append((index, arrival.time, ts))
            }
            if let health = await OutageChaosTests.freshHealth(observer, prefix: p) {
                samples.append((index, health["samples"] as? Int ?? 0,
                                (health["sample_rate_hz"] as? NSNumber)?.doubleValue ?? 0))
            }
        }

        for (index, phase) in phases.enumerated() {
            let inPhase = states.filter { $0.phase == index }
            let skews = inPhase.map { $0.ts.timeIntervalSince($0.arrival) - phase.offset }
            let worst = skews.map(abs).max() ?? .infinity
            let gaps = zip(inPhase.dropFirst(), inPhase).map { $0.arrival.timeIntervalSince($1.arrival) }
            report.figure("\(phase.name): \(inPhase.count) states, ts off by ≤ " + String(format: "%.2f s", worst)
                + ", gaps " + String(format: "%.1f–%.1f s", gaps.min() ?? 0, gaps.max() ?? 0))
            report.check(worst < 2, "timestamps follow the clock (\(phase.name))", String(format: "%.1f s", worst))
            // Heartbeats every 2 s on a still chip: no stall (a gap past 3 s), no burst.
            report.check(inPhase.count >= 4 && (gaps.max() ?? 99) <= 3, "no stall (\(phase.name))")
            report.check(inPhase.count <= Int(phaseSeconds / 2) + 2, "no burst (\(phase.name))")
        }
        let rates = samples.map(\.rate)
        let counts = samples.map(\.count)
        report.figure("health: samples \(counts), rate \(rates.map { String(format: "%.1f", $0) }) Hz")
        report.check(samples.count == phases.count && rates.allSatisfy { abs($0 - 100) < 5 },
                     "sampling keeps its 100 Hz through the jumps")
        report.check(zip(counts.dropFirst(), counts).allSatisfy { $0 - $1 > Int(phaseSeconds * 90) }, "samples keep counting")
        report.check(agent.isRunning, "agent alive", String(agent.stderr.prefix(300)))
        report.check(await agent.send(SIGTERM)?.status == 0, "clean exit")
        report.print()
        await observer.stop()
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
