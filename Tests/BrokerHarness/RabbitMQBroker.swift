import Foundation
import PlumbSync

/// A real RabbitMQ with its MQTT plugin for one test (Debian 12's `rabbitmq-server`, 3.10: MQTT
/// 3.1.1 only): its own node, directories, epmd and ports, all on 127.0.0.1, stopped when released.
///
/// ```swift
/// guard RabbitMQBroker.isInstalled else { … }                  // skip: see `notInstalledReason`
/// let broker = try await offThePool { try RabbitMQBroker.start() }   // blocks for ~15 s
/// defer { broker.stop() }
/// ```
///
/// The node is not the system service: `rabbitmq-server` runs as a child of the test, in a
/// session of its own (so a stop reaches the Erlang VM and its helpers), with `RABBITMQ_BASE`,
/// the database, the logs and the Erlang cookie (`HOME`) in a private temporary directory, a
/// unique node name, and an epmd of its own on a free port. The config is the checked-in template
/// `Configs/rabbitmq.conf`. `start` blocks while Erlang boots (seconds): call it through
/// ``offThePool(_:)``. `stop` blocks too (up to half a minute).
public final class RabbitMQBroker: @unchecked Sendable {
    // @unchecked Sendable: `server` and `epmd` are only touched with `lock` held; the rest is `let`.

    /// Always the loopback address: the node listens nowhere else.
    public let host = "127.0.0.1"
    /// The MQTT listener's port.
    public let port: Int
    /// The Erlang node, `plumb-<random>@localhost`.
    public let nodeName: String
    /// The node's private directory: `rabbitmq.conf`, `enabled_plugins`, `log/`, `mnesia/`.
    public let directory: String
    /// The rendered config file.
    public let configFile: String
    /// How long the node took from spawn to an MQTT listener that accepts connections.
    public let startupSeconds: Double

    private let lock = NSLock()
    private var server: SpawnedProcess?
    private var epmd: SpawnedProcess?

    /// `mqtt://127.0.0.1:port`.
    public var url: String { "mqtt://\(host):\(port)" }

    /// The server script of Debian's package, run directly: `/usr/sbin/rabbitmq-server` is a
    /// wrapper that switches to the `rabbitmq` user and logs to /var/log.
    public static let serverScript = "/usr/lib/rabbitmq/bin/rabbitmq-server"

    /// Whether Debian's `rabbitmq-server` (and the epmd it needs) is installed.
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: serverScript) && (try? executablePath("epmd")) != nil
    }

    /// What a skipped test prints when RabbitMQ is absent.
    public static let notInstalledReason = "RabbitMQ is not installed (\(serverScript) is missing): "
        + "`make test-interop` installs Debian's rabbitmq-server and runs the interoperability tests."

    private init(port: Int, nodeName: String, directory: String, configFile: String, startupSeconds: Double,
                 server: SpawnedProcess, epmd: SpawnedProcess) {
        self.port = port
        self.nodeName = nodeName
        self.directory = directory
        self.configFile = configFile
        self.startupSeconds = startupSeconds
        self.server = server
        self.epmd = epmd
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a node with the MQTT plugin and returns once its MQTT port accepts connections.
    /// - Throws: ``BrokerHarnessError`` when RabbitMQ is not installed, or with the node's log
    ///   when it exits or does not listen within `timeout`.
    public static func start(timeout: Duration = .seconds(60)) throws -> RabbitMQBroker {
        guard isInstalled else { throw BrokerHarnessError(notInstalledReason) }
        let directory = try makeTemporaryDirectory("rabbitmq")
        do {
            var failures: [String] = []
            // Another process can take a port between our probe and the bind: try again.
            for _ in 0..<3 {
                switch try launch(in: directory, timeout: timeout) {
                case .running(let broker): return broker
                case .portTaken(let log): failures.append(log)
                }
            }
            throw BrokerHarnessError("RabbitMQ found a port taken three times in a row:\n\(failures.joined())")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Whether the node's server process is alive.
    public var isRunning: Bool { lock.withLock { server?.isRunning ?? false } }

    /// Stops the node (SIGTERM to its session: RabbitMQ shuts down cleanly), then its epmd, and
    /// waits for both; whatever is left after 30 s is killed.
    public func stop() {
        let (server, epmd) = lock.withLock { () -> (SpawnedProcess?, SpawnedProcess?) in
            defer { self.server = nil; self.epmd = nil }
            return (self.server, self.epmd)
        }
        if let server { Self.end(server, group: true, grace: 30) }
        if let epmd { Self.end(epmd, group: false, grace: 5) }
    }

    /// RabbitMQ's log so far (and what the server script printed), for failure messages.
    public func logContents() -> String {
        Self.log(in: directory, nodeName: nodeName)
    }

    /// Waits until the node's log contains `text`.
    public func waitForLog(containing text: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if logContents().contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return logContents().contains(text)
    }

    // MARK: Launching

    private enum Launch {
        case running(RabbitMQBroker)
        case portTaken(String)
    }

    private static func launch(in directory: String, timeout: Duration) throws -> Launch {
        let ports = try distinctFreePorts(3)
        let (mqttPort, epmdPort, distributionPort) = (ports[0], ports[1], ports[2])
        let nodeName = "plumb-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))@localhost"
        let configFile = "\(directory)/rabbitmq.conf"
        try render(port: mqttPort).write(toFile: configFile, atomically: true, encoding: .utf8)
        try "[rabbitmq_mqtt].\n".write(toFile: "\(directory)/enabled_plugins", atomically: true, encoding: .utf8)
        // An empty env file, so /etc/rabbitmq/rabbitmq-env.conf cannot change what the test runs.
        try "".write(toFile: "\(directory)/rabbitmq-env.conf", atomically: true, encoding: .utf8)

        guard let epmd = try startEPMD(port: epmdPort, directory: directory) else {
            return .portTaken("epmd: port \(epmdPort) was taken\n")
        }
        let environment = [
            "HOME=\(directory)",  // the Erlang cookie, shared by nobody else
            "RABBITMQ_CONF_ENV_FILE=\(directory)/rabbitmq-env.conf",
            "RABBITMQ_BASE=\(directory)",
            "RABBITMQ_CONFIG_FILE=\(configFile)",
            "RABBITMQ_ADVANCED_CONFIG_FILE=\(directory)/advanced.config",
            "RABBITMQ_ENABLED_PLUGINS_FILE=\(directory)/enabled_plugins",
            "RABBITMQ_MNESIA_BASE=\(directory)/mnesia",
            "RABBITMQ_LOG_BASE=\(directory)/log",
            "RABBITMQ_PID_FILE=\(directory)/rabbitmq.pid",
            "RABBITMQ_NODENAME=\(nodeName)",
            "RABBITMQ_DIST_PORT=\(distributionPort)",
            "ERL_EPMD_PORT=\(epmdPort)",
            "ERL_CRASH_DUMP=\(directory)/erl_crash.dump",
            // The distribution listener would otherwise listen on every interface.
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
        ]
        let output = open("\(directory)/rabbitmq.out", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let nullDevice = open("/dev/null", O_RDONLY)
        defer {
            close(output)
            close(nullDevice)
        }
        // setsid: the script, the Erlang VM and its port helpers form one session and process
        // group (the group id is the script's pid), so one signal reaches them all. It does not
        // fork here (we are not a group leader), so the pid stays the script's.
        let started = ContinuousClock.now
        let server: SpawnedProcess
        do {
            server = try SpawnedProcess(executablePath("setsid"),
                                        [try executablePath("env")] + environment + [serverScript],
                                        stdin: nullDevice, stdout: output, stderr: output)
        } catch {
            end(epmd, group: false, grace: 5)
            throw error
        }
        LiveNodes.add(server: server.pid, epmd: epmd.pid)

        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !server.isRunning {
                let everything = log(in: directory, nodeName: nodeName)
                end(server, group: true, grace: 5)
                end(epmd, group: false, grace: 5)
                if everything.contains("eaddrinuse") { return .portTaken(everything) }
                throw BrokerHarnessError("rabbitmq-server exited with status \(server.status ?? -1) at start "
                    + "(config \(configFile)):\n\(everything)")
            }
            if canConnect(port: mqttPort) {
                let seconds = (ContinuousClock.now - started).timeInterval
                return .running(RabbitMQBroker(port: mqttPort, nodeName: nodeName, directory: directory,
                                               configFile: configFile, startupSeconds: seconds,
                                               server: server, epmd: epmd))
            }
            usleep(50_000)
        }
        let everything = log(in: directory, nodeName: nodeName)
        end(server, group: true, grace: 5)
        end(epmd, group: false, grace: 5)
        throw BrokerHarnessError("RabbitMQ did not accept MQTT connections on 127.0.0.1:\(mqttPort) within "
            + "\(timeout) (config \(configFile)):\n\(everything)")
    }

    /// epmd in the foreground, loopback only, as our child: the node would otherwise start a
    /// daemon that outlives the test. Nil when the port was taken.
    private static func startEPMD(port: Int, directory: String) throws -> SpawnedProcess? {
        let output = open("\(directory)/epmd.out", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let nullDevice = open("/dev/null", O_RDONLY)
        defer {
            close(output)
            close(nullDevice)
        }
        let epmd = try SpawnedProcess(executablePath("epmd"), ["-address", "127.0.0.1", "-port", String(port)],
                                      stdin: nullDevice, stdout: output, stderr: output)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if !epmd.isRunning { return nil }
            if canConnect(port: port) { return epmd }
            usleep(5_000)
        }
        end(epmd, group: false, grace: 2)
        let printed = (try? String(contentsOfFile: "\(directory)/epmd.out", encoding: .utf8)) ?? ""
        throw BrokerHarnessError("epmd did not listen on 127.0.0.1:\(port) within 5 s: \(printed)")
    }

    /// SIGTERM, up to `grace` seconds for the process (and, with `group`, every process of its
    /// group) to go, then SIGKILL.
    private static func end(_ process: SpawnedProcess, group: Bool, grace: TimeInterval) {
        let pid = process.pid
        let deadline = Date().addingTimeInterval(grace)
        func groupAlive() -> Bool { group && Glibc.kill(-pid, 0) == 0 }
        func send(_ signal: Int32) {
            // Before setsid has run there is no group yet: the script alone gets it.
            if !group || Glibc.kill(-pid, signal) != 0 { process.signal(signal) }
        }
        send(SIGTERM)
        while (process.isRunning || groupAlive()) && Date() < deadline { usleep(20_000) }
        if process.isRunning || groupAlive() {
            send(SIGKILL)
            _ = process.waitForExit(timeout: 5)
        }
        LiveNodes.remove(pid)
    }

    private static func render(port: Int) throws -> String {
        let path = "\(BrokerConfiguration.templates)/rabbitmq.conf"
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BrokerHarnessError("cannot read the RabbitMQ config template \(path)")
        }
        text = text.replacingOccurrences(of: "{{PORT}}", with: String(port))
        if let unfilled = text.range(of: #"\{\{[A-Z_]+\}\}"#, options: .regularExpression) {
            throw BrokerHarnessError("\(path) has a placeholder the harness does not fill: \(text[unfilled])")
        }
        return text
    }

    private static func distinctFreePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        while ports.count < count {
            let port = try freeLoopbackPort()
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    private static func log(in directory: String, nodeName: String) -> String {
        let log = (try? String(contentsOfFile: "\(directory)/log/\(nodeName).log", encoding: .utf8)) ?? ""
        let output = (try? String(contentsOfFile: "\(directory)/rabbitmq.out", encoding: .utf8)) ?? ""
        return output.isEmpty ? log : log + "\n[rabbitmq-server stdout/stderr]\n" + output
    }
}

/// The nodes of this process still running, killed at exit: a node a test never released must
/// not outlive the test process (its process group, and its epmd).
private enum LiveNodes {
    private static let pids: Locked<[Int32: Int32]> = {
        atexit {
            for (server, epmd) in LiveNodes.pids.withLock({ $0 }) {
                Glibc.kill(-server, SIGKILL)
                Glibc.kill(server, SIGKILL)
                Glibc.kill(epmd, SIGKILL)
            }
        }
        return Locked([:])
    }()

    static func add(server: Int32, epmd: Int32) { pids.withLock { $0[server] = epmd } }
    static func remove(_ pid: Int32) { pids.withLock { $0[pid] = nil } }
}
