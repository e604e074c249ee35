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
        guard let broker = BenchBroker(for: "agent benchmark", directoryName: "plumb-bench") else { return }
        defer { broker.stop() }
        let port = broker.port, directory = broker.directory

        let yaml = """
            log_level: warning
            level:
              level_dwell_s: \(dwell)
              average_window_s: \(averageWindow)
            """
        guard let agent = Self.launch(plumb, in: directory, port: port, yaml: yaml, arguments: ["--sim-motion", "square"])
        else { return }
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

        let (cpuPercent, wall, peakMB) = Self.measure(agent, seconds: seconds)

        let latencies = arrivals.times.compactMap { arrival -> Double? in
            // The step that caused it: the start of the odd period the event arrived in.
            let index = Int((arrival / period).rounded(.down))
            guard index % 2 != 0 else { return nil }
            return arrival - Double(index) * period
        }.sorted()
        let target = averageWindow + dwell + 0.020
        print("agent at 100 Hz:   \(figure(wall, 1)) s, CPU \(figure(cpuPercent, 2)) % of one core, "
              + "peak RSS \(figure(peakMB, 1)) MB")
        guard !latencies.isEmpty else {
            print("                   no level_left events arrived: latency not measured")
            return
        }
        let p50 = BenchRig.percentile(latencies, 0.50)
        let p99 = BenchRig.percentile(latencies, 0.99)
        print("step → level_left: \(latencies.count) steps, p50 \(figure(p50 * 1000, 0)) ms, p99 \(figure(p99 * 1000, 0)) ms "
              + "(window \(averageWindow) s + dwell \(dwell) s)")
        print("targets:           CPU < 1 %: \(cpuPercent < 1 ? "met" : "MISSED"); RSS < 20 MB: \(peakMB < 20 ? "met" : "MISSED"); "
              + "p99 ≤ \(figure(target * 1000, 0)) ms: \(p99 <= target ? "met" : "MISSED")")
        Task { await subscriber.disconnect() }
    }

    /// Lets `agent` start and settle for 2 s, then measures its CPU over `seconds` and its peak
    /// RSS, and stops it.
    static func measure(_ agent: Process, seconds: Double) -> (cpuPercent: Double, wall: Double, peakMB: Double) {
        Thread.sleep(forTimeInterval: 2)
        let cpuStart = BenchRig.processCPUSeconds(agent.processIdentifier)
        let wallStart = clock.now()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = BenchRig.processCPUSeconds(agent.processIdentifier) - cpuStart
        let wall = clock.now() - wallStart
        let peakKiB = BenchRig.peakRSSKiB(agent.processIdentifier)
        agent.terminate()
        agent.waitUntilExit()
        return (cpu / wall * 100, wall, Double(peakKiB) / 1024)
    }

    /// `plumb run` on the simulated sensor against the broker at `port`, device id `bench`, with
    /// `yaml` as its config file; nil (said why) when it cannot start.
    static func launch(_ plumb: URL, in directory: URL, port: Int, yaml: String, arguments: [String]) -> Process? {
        let config = directory.appendingPathComponent("plumb.yaml")
        try? yaml.write(to: config, atomically: true, encoding: .utf8)
        let agent = Process()
        agent.executableURL = plumb
        agent.arguments = ["run", "--config", config.path, "--sensor", "sim", "--broker", "mqtt://127.0.0.1:\(port)",
                           "--device-id", "bench", "--state-dir", directory.appendingPathComponent("state").path]
            + arguments
        agent.standardError = FileHandle.nullDevice
        do { try agent.run() } catch {
            print("agent benchmark: could not run \(plumb.path): \(error)")
            return nil
        }
        return agent
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
