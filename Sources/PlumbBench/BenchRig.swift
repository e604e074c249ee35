import Foundation

/// What the benchmarks that run `plumb run` share: a free loopback port, a throwaway mosquitto,
/// and a process's CPU time and peak RSS from /proc.
enum BenchRig {
    static func freePort() -> Int? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    static func startBroker(port: Int, directory: URL) -> Process? {
        let candidates = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let conf = directory.appendingPathComponent("mosquitto.conf")
        let user = ProcessInfo.processInfo.environment["USER"] ?? "root"
        try? "user \(user)\nlistener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: binary)
        broker.arguments = ["-c", conf.path]
        broker.standardError = FileHandle.nullDevice
        broker.standardOutput = FileHandle.nullDevice
        guard (try? broker.run()) != nil else { return nil }
        Thread.sleep(forTimeInterval: 0.3)
        return broker
    }

    /// utime + stime of a process, from /proc.
    static func processCPUSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, in clock ticks).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmHWM: the peak resident set size.
    static func peakRSSKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// The value at `fraction` (0…1) of an ascending list.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))]
    }
}

/// A throwaway mosquitto on a free loopback port, with a scratch directory beside it, for one
/// benchmark. Call ``stop()`` when done (a `defer` right after creating it).
final class BenchBroker {
    let port: Int
    let directory: URL
    private let process: Process

    /// Starts one, or says why it could not (naming `benchmark`) and returns nil.
    init?(for benchmark: String, directoryName: String) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(directoryName)-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let port = BenchRig.freePort(), let process = BenchRig.startBroker(port: port, directory: directory) else {
            print("\(benchmark): could not start mosquitto (install it with `make deps`)")
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        self.port = port
        self.process = process
    }

    /// Stops the broker and removes the directory.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
