import Foundation
import PlumbSync

/// A real mosquitto broker for one test: its own free port on 127.0.0.1, its own temporary
/// directory (config, log, password file, persistence), stopped when released.
///
/// ```swift
/// let broker = try MosquittoBroker.start()              // plain, anonymous
/// let secure = try MosquittoBroker.start(.init(tls: true, passwordFile: ["plumb": "s3cret"]))
/// broker.kill(); try broker.restart()                   // crash, then come back on the same port
/// ```
///
/// Each broker listens on 127.0.0.1 only, so tests run in parallel without interfering. The config
/// is rendered from the templates in `Tests/BrokerHarness/Configs` (see the README there).
/// `start`, `stop`, `kill` and `restart` block for the few milliseconds mosquitto needs.
public final class MosquittoBroker: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched with `lock` held; everything else is `let`.

    /// What kind of broker to run.
    public struct Options: Sendable {
        /// Keep retained messages and persistent sessions across ``stop()`` + ``restart()``.
        /// (``kill()`` loses whatever mosquitto had not saved yet, as a real crash would.)
        public var persistence: Bool
        /// User name → password. When set, clients must log in (unless ``allowAnonymous``).
        public var passwordFile: [String: String]?
        /// MQTT over TLS with the process's ``TestCertificates``.
        public var tls: Bool
        /// With ``tls``: clients must present a certificate signed by the test CA.
        public var requireClientCertificate: Bool
        /// Whether clients without credentials may connect; by default yes unless ``passwordFile``
        /// is set.
        public var allowAnonymous: Bool?

        public init(persistence: Bool = false, passwordFile: [String: String]? = nil, tls: Bool = false,
                    requireClientCertificate: Bool = false, allowAnonymous: Bool? = nil) {
            self.persistence = persistence
            self.passwordFile = passwordFile
            self.tls = tls || requireClientCertificate
            self.requireClientCertificate = requireClientCertificate
            self.allowAnonymous = allowAnonymous
        }
    }

    /// Always the loopback address: the broker listens nowhere else.
    public let host = "127.0.0.1"
    /// The port, the same across ``restart()``.
    public let port: Int
    public let options: Options
    /// The broker's private directory: `mosquitto.conf`, `mosquitto.log`, `passwords`, the database.
    public let directory: String
    /// The rendered config file.
    public let configFile: String
    /// The TLS material when ``Options/tls`` is set.
    public let certificates: TestCertificates?

    private let lock = NSLock()
    private var process: SpawnedProcess?

    /// The CA file a client must trust (TLS only).
    public var caFile: String? { certificates?.caFile }
    /// A client certificate the broker accepts (TLS only).
    public var clientCertFile: String? { certificates?.clientCertFile }
    /// The key of ``clientCertFile``.
    public var clientKeyFile: String? { certificates?.clientKeyFile }
    /// `mqtt://127.0.0.1:port`, or `mqtts://…` with TLS.
    public var url: String { "\(options.tls ? "mqtts" : "mqtt")://\(host):\(port)" }
    /// The arguments mosquitto_sub/pub/rr need for TLS (CA, and the client certificate), or none.
    public var tlsClientArguments: [String] {
        guard let certificates else { return [] }
        return ["--cafile", certificates.caFile, "--cert", certificates.clientCertFile,
                "--key", certificates.clientKeyFile]
    }

    private init(port: Int, options: Options, directory: String, configFile: String,
                 certificates: TestCertificates?, process: SpawnedProcess) {
        self.port = port
        self.options = options
        self.directory = directory
        self.configFile = configFile
        self.certificates = certificates
        self.process = process
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a broker on a free loopback port and returns once it accepts connections.
    /// - Throws: ``BrokerHarnessError`` with mosquitto's log when it does not come up within 5 s.
    public static func start(_ options: Options = Options()) throws -> MosquittoBroker {
        let directory = try makeTemporaryDirectory("broker")
        do {
            let certificates = options.tls ? try TestCertificates.shared() : nil
            let passwordFile = try options.passwordFile.map { try writePasswordFile($0, in: directory) }
            let configFile = "\(directory)/mosquitto.conf"
            var failures: [String] = []
            // Another process can take the port between our probe and mosquitto's bind: try again.
            for _ in 0..<5 {
                let port = try freeLoopbackPort()
                let text = try BrokerConfiguration.render(options: options, port: port, directory: directory,
                                                          passwordFile: passwordFile, certificates: certificates)
                try text.write(toFile: configFile, atomically: true, encoding: .utf8)
                switch try launch(configFile: configFile, directory: directory, port: port) {
                case .running(let process):
                    return MosquittoBroker(port: port, options: options, directory: directory, configFile: configFile,
                                           certificates: certificates, process: process)
                case .portTaken(let log):
                    failures.append(log)
                }
            }
            throw BrokerHarnessError("mosquitto found its port taken five times in a row:\n\(failures.joined())")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// What a caller's own config is rendered from: the free port chosen, and the broker's private
    /// directory (for its log, its database and any file the config names).
    public struct Placement: Sendable {
        public let port: Int
        public let directory: String
        /// The user mosquitto must stay (`user <name>`): started as root it would otherwise switch
        /// to `mosquitto` and could not write to the directory.
        public let user: String
    }

    /// Starts mosquitto with a config of the caller's, such as a deploy example with its
    /// addresses and paths changed: `render` writes files it needs into the directory and returns
    /// the config's text. The harness adds nothing to it, so the config must set `user`, a
    /// listener on `127.0.0.1:<port>`, and its log (`log_dest file <directory>/mosquitto.log`) for
    /// failure messages and ``waitForLog(containing:timeout:)``.
    /// - Parameter tls: whether the listener is TLS, for ``url`` (the certificates are the shared
    ///   ``TestCertificates``).
    public static func start(tls: Bool = false, rendering render: (Placement) throws -> String) throws -> MosquittoBroker {
        let directory = try makeTemporaryDirectory("broker")
        do {
            let certificates = tls ? try TestCertificates.shared() : nil
            let configFile = "\(directory)/mosquitto.conf"
            var failures: [String] = []
            for _ in 0..<5 {
                let port = try freeLoopbackPort()
                let text = try render(Placement(port: port, directory: directory, user: BrokerConfiguration.currentUserName()))
                try text.write(toFile: configFile, atomically: true, encoding: .utf8)
                switch try launch(configFile: configFile, directory: directory, port: port) {
                case .running(let process):
                    return MosquittoBroker(port: port, options: Options(tls: tls), directory: directory,
                                           configFile: configFile, certificates: certificates, process: process)
                case .portTaken(let log):
                    failures.append(log)
                }
            }
            throw BrokerHarnessError("mosquitto found its port taken five times in a row:\n\(failures.joined())")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Writes a mosquitto password file of `users` (name → password) into `directory`.
    public static func passwordFile(_ users: [String: String], in directory: String) throws -> String {
        try writePasswordFile(users, in: directory)
    }

    /// Whether the mosquitto process is alive.
    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    /// Stops mosquitto with SIGTERM (it saves its database when persistent) and waits for it.
    public func stop() {
        end(with: SIGTERM)
    }

    /// Kills mosquitto with SIGKILL, as a crash would, and waits for it.
    public func kill() {
        end(with: SIGKILL)
    }

    /// Starts mosquitto again on the same port with the same config (and, with
    /// ``Options/persistence``, the same retained messages and sessions).
    public func restart() throws {
        stop()
        switch try Self.launch(configFile: configFile, directory: directory, port: port) {
        case .running(let process):
            lock.withLock { self.process = process }
        case .portTaken(let log):
            throw BrokerHarnessError("cannot restart mosquitto: port \(port) is taken by another process.\n\(log)")
        }
    }

    /// mosquitto's log so far (and anything it printed), for failure messages.
    public func logContents() -> String {
        Self.log(in: directory)
    }

    /// Waits until mosquitto's log contains `text` (e.g. `"Sending SUBACK to plumb-1"`).
    public func waitForLog(containing text: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(timeout)
        while ContinuousClock.now < deadline {
            if logContents().contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return logContents().contains(text)
    }

    private func end(with signal: Int32) {
        guard let process = lock.withLock({ () -> SpawnedProcess? in defer { self.process = nil }; return self.process })
        else { return }
        process.signal(signal)
        if !process.waitForExit(timeout: 5) {
            process.signal(SIGKILL)
            _ = process.waitForExit(timeout: 5)
        }
        LiveBrokers.remove(process.pid)
    }

    // MARK: Launching

    private enum Launch {
        case running(SpawnedProcess)
        case portTaken(String)
    }

    private static func launch(configFile: String, directory: String, port: Int) throws -> Launch {
        let mosquitto = try executablePath("mosquitto")
        let logFile = "\(directory)/mosquitto.log"
        let outputFile = "\(directory)/mosquitto.out"
        let logStart = (try? Data(contentsOf: URL(fileURLWithPath: logFile)).count) ?? 0
        let output = open(outputFile, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let nullDevice = open("/dev/null", O_RDONLY)
        defer {
            close(output)
            close(nullDevice)
        }
        let process = try SpawnedProcess(mosquitto, ["-c", configFile], stdin: nullDevice, stdout: output,
                                         stderr: output)
        LiveBrokers.add(process.pid)

        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let newLog = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: logFile)))?.dropFirst(logStart)
                ?? Data(), as: UTF8.self)
            if !process.isRunning {
                LiveBrokers.remove(process.pid)
                let everything = log(in: directory)
                if everything.contains("Address already in use") { return .portTaken(everything) }
                throw BrokerHarnessError("mosquitto exited with status \(process.status ?? -1) at start "
                    + "(config \(configFile)):\n\(everything)")
            }
            // "running" is logged once every listener is open; the connect proves it is ours.
            if newLog.contains(" running"), canConnect(port: port) { return .running(process) }
            usleep(5_000)
        }
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: 2)
        LiveBrokers.remove(process.pid)
        throw BrokerHarnessError("mosquitto did not accept connections on 127.0.0.1:\(port) within 5 s "
            + "(config \(configFile)):\n\(log(in: directory))")
    }

    private static func log(in directory: String) -> String {
        let log = (try? String(contentsOfFile: "\(directory)/mosquitto.log", encoding: .utf8)) ?? ""
        let output = (try? String(contentsOfFile: "\(directory)/mosquitto.out", encoding: .utf8)) ?? ""
        return output.isEmpty ? log : log + "\n[stdout/stderr]\n" + output
    }

    private static func writePasswordFile(_ users: [String: String], in directory: String) throws -> String {
        let tool = try executablePath("mosquitto_passwd")
        let file = "\(directory)/passwords"
        _ = FileManager.default.createFile(atPath: file, contents: nil)  // no users: an empty file refuses all
        for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
            // -c creates the file (first user only), -b takes the password from the command line.
            _ = try ChildProcess.runBlocking(tool, (index == 0 ? ["-c"] : []) + ["-b", file, user, password])
        }
        return file
    }
}

/// The brokers of this process that are still running, killed at exit: a broker that a test
/// never released (or a test run that ended early) must not outlive the test process.
private enum LiveBrokers {
    private static let pids: Locked<Set<Int32>> = {
        atexit {
            for pid in LiveBrokers.pids.withLock({ $0 }) { kill(pid, SIGKILL) }
        }
        return Locked([])
    }()

    static func add(_ pid: Int32) { pids.withLock { _ = $0.insert(pid) } }
    static func remove(_ pid: Int32) { pids.withLock { _ = $0.remove(pid) } }
}
