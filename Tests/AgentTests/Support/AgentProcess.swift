import BrokerHarness
import Foundation
import PlumbSync

/// `plumb run` as a subprocess, the way systemd runs it: signals, exit status, stderr.
final class AgentProcess: Sendable {
    let process: Process
    let deviceID: String
    let stateDirectory: String
    let configPath: String
    private let errorOutput = Locked(Data())

    /// The built products directory (the test runner lives there too).
    static let binary: URL = {
        if let override = ProcessInfo.processInfo.environment["PLUMB_PRODUCTS_DIR"] {
            return URL(fileURLWithPath: override).appendingPathComponent("plumb")
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("plumb").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("plumb")
    }()

    /// Starts the agent on the simulated sensor.
    /// - Parameters:
    ///   - brokerURL: passed as `--broker`, which replaces the file's brokers; nil leaves them to
    ///     the file (`mqtt.brokers`).
    ///   - yaml: the config file's contents (the device id and state dir are passed as flags).
    ///   - simulated: false leaves the sensor to the file (`sensor.kind`, `sensor.bus`).
    ///   - stateDirectory: reuse one to test persistence across restarts.
    ///   - launcher: a program and its arguments that run the agent (its path and arguments follow).
    init(brokerURL: String?, deviceID: String = "t" + String(UInt32.random(in: 0...UInt32.max), radix: 36),
         yaml: String = "", simulated: Bool = true, arguments: [String] = [], stateDirectory: String? = nil,
         environment: [String: String] = [:], launcher: [String] = []) throws {
        self.deviceID = deviceID
        let directory = try makeTemporaryDirectory("agent")
        self.stateDirectory = stateDirectory ?? directory + "/state"
        configPath = directory + "/plumb.yaml"
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
        process = Process()
        let run = ["run", "--config", configPath] + (simulated ? ["--sensor", "sim"] : []) + (brokerURL.map { ["--broker", $0] } ?? [])
            + ["--device-id", deviceID, "--state-dir", self.stateDirectory] + arguments
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [Self.binary.path] + run
        } else {
            process.executableURL = Self.binary
            process.arguments = run
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let sink = errorOutput
        Thread.detachNewThread {
            let handle = pipe.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                sink.withLock { $0.append(chunk) }
            }
        }
    }

    deinit {
        // Foundation's Process keeps itself alive (a reference cycle through its run loop source)
        // until waitUntilExit has seen the exit; polling isRunning never breaks it, and
        // LeakSanitizer reports every agent a test started. Reaping on a thread of its own keeps
        // a slow exit off the thread releasing us.
        guard process.processIdentifier != 0 else { return }
        if process.isRunning { process.terminate() }
        let process = process
        Thread.detachNewThread { process.waitUntilExit() }
    }

    /// What the agent wrote on stderr so far.
    var stderr: String { String(decoding: errorOutput.withLock { $0 }, as: UTF8.self) }

    var isRunning: Bool { process.isRunning }

    /// Topic prefix `plumb/<device id>`.
    var prefix: String { "plumb/" + deviceID }

    /// Sends `signal` and waits up to `timeout` seconds for the exit.
    /// - Returns: the exit status and how long the exit took, or nil if it did not exit.
    @discardableResult
    func send(_ signal: Int32, waitingUpTo timeout: Double = 10) async -> (status: Int32, seconds: Double)? {
        let start = Date()
        kill(process.processIdentifier, signal)
        guard signal != SIGHUP else { return nil }
        // Polled on the harness's threads: a blocking wait would hold a cooperative pool thread.
        await withTaskExecutorPreference(HarnessExecutor.shared) {
            while process.isRunning && Date().timeIntervalSince(start) < TestTimeScale.scaled(timeout) {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        guard !process.isRunning else { return nil }
        let seconds = Date().timeIntervalSince(start)
        process.waitUntilExit()  // returns at once; ends Foundation's reference cycle (see deinit)
        return (process.terminationStatus, seconds)
    }

    /// Waits until stderr contains `text`.
    func waitForLog(_ text: String, timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(TestTimeScale.scaled(timeout))
        return await withTaskExecutorPreference(HarnessExecutor.shared) {
            while Date() < deadline {
                if stderr.contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return stderr.contains(text)
        }
    }
}
