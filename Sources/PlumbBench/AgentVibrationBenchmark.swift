import Foundation
import MQTT

/// `plumb run` at 800 Hz on a simulated machine that runs and stops, with the vibration analysis
/// on, against a local mosquitto: the whole agent's CPU and peak RSS (targets: ≤ 2 % of one core,
/// ≤ 16 MB), and, for the cost of the analysis itself, the same with `vibration: false`.
///
/// The machine runs 4.5 mm/s at 50 Hz on z for 20 s, then stands 10 s, repeating, so the run holds
/// starts and stops, `P/vibration` publications and zone changes: the agent's whole vibration
/// road, not only the analysis.
struct AgentVibrationBenchmark {
    var seconds: Double
    let plumb: URL

    struct Figures {
        var cpuPercent: Double
        var peakMB: Double
        var wall: Double
        var vibrationMessages: Int
        var runningEvents: Int
    }

    func run() {
        guard seconds > 0 else { return }
        guard let on = measure(vibration: true), let off = measure(vibration: false) else { return }
        for (name, figures) in [("vibration on ", on), ("vibration off", off)] {
            print("agent at 800 Hz, \(name): \(figure(figures.wall, 1)) s, CPU \(figure(figures.cpuPercent, 2)) % of one core, "
                  + "peak RSS \(figure(figures.peakMB, 1)) MB; \(figures.vibrationMessages) P/vibration, "
                  + "\(figures.runningEvents) running events")
        }
        print("the analysis costs \(figure(on.cpuPercent - off.cpuPercent, 2)) % of one core and "
              + "\(figure(on.peakMB - off.peakMB, 1)) MB")
        print("targets:           CPU ≤ 2 %: \(on.cpuPercent <= 2 ? "met" : "MISSED"); "
              + "peak RSS ≤ 16 MB: \(on.peakMB <= 16 ? "met" : "MISSED")")
    }

    private func measure(vibration: Bool) -> Figures? {
        guard let broker = BenchBroker(for: "agent vibration benchmark", directoryName: "plumb-bench-vib") else { return nil }
        defer { broker.stop() }
        let port = broker.port, directory = broker.directory
        let yaml = """
            log_level: warning
            sensor:
              sample_rate_hz: 800
            vibration:
              vibration: \(vibration)
              running_start_s: 2
              running_stop_s: 5
            """
        guard let agent = AgentBenchmark.launch(plumb, in: directory, port: port, yaml: yaml,
                                                arguments: ["--sim-vibration", "z:4.5@50", "--sim-machine", "20:10"])
        else { return nil }
        defer { if agent.isRunning { agent.terminate(); agent.waitUntilExit() } }

        let counts = MessageCounts()
        let subscriber = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "bench-vib"))
        try? subscriber.subscribe(["plumb/bench/vibration", "plumb/bench/event"], qos: .atLeastOnce)
        let events = subscriber.events
        Task {
            for await event in events {
                guard case .message(let message) = event else { continue }
                if message.topic.hasSuffix("/vibration") {
                    // An empty one clears the retained figures (vibration off): not a publication of them.
                    if !message.payload.isEmpty { counts.vibration() }
                } else if let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                          let type = object["type"] as? String, type.hasPrefix("running_") {
                    counts.running()
                }
            }
        }
        try? subscriber.start()
        let (cpuPercent, wall, peakMB) = AgentBenchmark.measure(agent, seconds: seconds)
        Task { await subscriber.disconnect() }
        return Figures(cpuPercent: cpuPercent, peakMB: peakMB, wall: wall,
                       vibrationMessages: counts.vibrationCount, runningEvents: counts.runningCount)
    }
}

/// Message counts, written by the subscriber's task and read after the run.
final class MessageCounts: @unchecked Sendable {
    // @unchecked Sendable: every access to the counts holds `lock`.
    private let lock = NSLock()
    private var vibrations = 0
    private var runnings = 0
    func vibration() { lock.withLock { vibrations += 1 } }
    func running() { lock.withLock { runnings += 1 } }
    var vibrationCount: Int { lock.withLock { vibrations } }
    var runningCount: Int { lock.withLock { runnings } }
}
