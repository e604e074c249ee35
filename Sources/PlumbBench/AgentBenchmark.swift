import Accelerometers
import Foundation
import MQTT

/// `plumb run` at 100 Hz against a mosquitto started on a free loopback port: its CPU and peak
/// RSS, and the latency from a step in the simulated scene to the `level_left` event at a
/// subscriber.
///
/// The agent runs the `square` motion: +1° of roll during odd periods of two seconds of
/// CLOCK_MONOTONIC. This process reads the same clock, so it knows when every step happened.
struct AgentBenchmark {
    var seconds: Double
    let plumb: URL
    let period = 2.0
    /// Kept short so a 60 s run holds many steps: the target scales with them.
    let averageWindow = 0.5
    let dwell = 0.5

    func run() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let port = freePort(), let broker = startBroker(port: port, directory: directory) else {
            print("agent benchmark: could not start mosquitto (install it with `make deps`)")
            return
        }
        defer { broker.terminate(); broker.waitUntilExit() }

        let config = directory.appendingPathComponent("plumb.yaml")
        try? """
            log_level: warning
            level:
              level_dwell_s: \(dwell)
              average_window_s: \(averageWindow)
            """.write(to: config, atomically: true, encoding: .utf8)
        let agent = Process()
        agent.executableURL = plumb
        agent.arguments = ["run", "--config", config.path, "--sensor", "sim", "--sim-motion", "square",
                           "--broker", "mqtt://127.0.0.1:\(port)", "--device-id", "bench",
                           "--state-dir", directory.appendingPathComponent("state").path]
        agent.standardError = FileHandle.nullDevice
        do { try agent.run() } catch {
            print("agent benchmark: could not run \(plumb.path): \(error)")
            return
        }
        defer { if agent.isRunning { agent.terminate(); agent.waitUntilExit() } }

        let arrivals = EventArrivals()
        let subscriber = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "bench"))
        try? subscriber.subscribe(["plumb/bench/event"], qos: .atLeastOnce)
        let events = subscriber.events
        Task {
            for await event in events {
                guard case .message(let message) = event,
                      let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                      object["type"] as? String == "level_left" else { continue }
                arrivals.record(clock.now())
            }
        }
        try? subscriber.start()

        // Let it start and settle before counting CPU.
        Thread.sleep(forTimeInterval: 2)
        let cpuStart = processCPUSeconds(agent.processIdentifier)
        let wallStart = clock.now()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = processCPUSeconds(agent.processIdentifier) - cpuStart
        let wall = clock.now() - wallStart
        let peakKiB = peakRSSKiB(agent.processIdentifier)
        agent.terminate()
        agent.waitUntilExit()

        let latencies = arrivals.times.compactMap { arrival -> Double? in
            // The step that caused it: the start of the odd period the event arrived in.
            let index = Int((arrival / period).rounded(.down))
            guard index % 2 != 0 else { return nil }
            return arrival - Double(index) * period
        }.sorted()
        let cpuPercent = cpu / wall * 100
        let peakMB = Double(peakKiB) / 1024
        let target = averageWindow + dwell + 0.020
        print("agent at 100 Hz:   \(figure(wall, 1)) s, CPU \(figure(cpuPercent, 2)) % of one core, "
              + "peak RSS \(figure(peakMB, 1)) MB")
        guard !latencies.isEmpty else {
            print("                   no level_left events arrived: latency not measured")
            return
        }
        let p50 = percentile(latencies, 0.50)
        let p99 = percentile(latencies, 0.99)
        print("step → level_left: \(latencies.count) steps, p50 \(figure(p50 * 1000, 0)) ms, p99 \(figure(p99 * 1000, 0)) ms "
              + "(window \(averageWindow) s + dwell \(dwell) s)")
        print("targets:           CPU < 1 %: \(cpuPercent < 1 ? "met" : "MISSED"); RSS < 20 MB: \(peakMB < 20 ? "met" : "MISSED"); "
              + "p99 ≤ \(figure(target * 1000, 0)) ms: \(p99 <= target ? "met" : "MISSED")")
        Task { await subscriber.disconnect() }
    }

    private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))]
    }

    private func freePort() -> Int? {
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

    private func startBroker(port: Int, directory: URL) -> Process? {
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
    private func processCPUSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, in clock ticks).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmHWM: the peak resident set size.
    private func peakRSSKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}

/// Arrival times, written by the subscriber's task and read after the run.
final class EventArrivals: @unchecked Sendable {
    // @unchecked Sendable: every access to `values` holds `lock`.
    private let lock = NSLock()
    private var values: [Double] = []
    func record(_ time: Double) { lock.withLock { values.append(time) } }
    var times: [Double] { lock.withLock { values } }
}
