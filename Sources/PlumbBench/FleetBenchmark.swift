import Accelerometers
import Contract
import Foundation
import MQTT

/// `plumb fleet --json` against a generated fleet: 10,000 devices' retained topics (status,
/// state, level, config, health, calibration, bubble, and vibration for half of them, as the agent
/// publishes them) on a mosquitto started on a free loopback port. Prints how long the release
/// `plumb fleet --json` takes and its peak RSS, against 2 s and 64 MB, and checks it listed
/// every device with every topic read.
struct FleetBenchmark {
    var devices = 10_000
    let plumb: URL

    func run() {
        guard let broker = BenchBroker(for: "fleet benchmark", directoryName: "plumb-bench-fleet") else { return }
        defer { broker.stop() }
        let port = broker.port, directory = broker.directory
        let generated = clock.now()
        guard let messages = publishFleet(port: port) else { return }
        let publishSeconds = clock.now() - generated

        let output = directory.appendingPathComponent("fleet.json")
        guard let run = Self.spawn(plumb.path, ["fleet", "--json", "--broker", "mqtt://127.0.0.1:\(port)"], stdout: output.path)
        else {
            print("fleet benchmark: could not run \(plumb.path)")
            return
        }
        let (listed, complete) = Self.check(output)
        let peakMB = Double(run.maxRSSKiB) / 1024
        print("fleet of \(devices):   \(messages) retained topics published in \(figure(publishSeconds, 1)) s;"
              + " plumb fleet --json listed \(listed) (\(complete) with every topic read) in \(figure(run.seconds, 2)) s,"
              + " peak RSS \(figure(peakMB, 1)) MB, exit \(run.status)")
        print("targets:           all listed: \(listed == devices && complete == devices ? "met" : "MISSED");"
              + " ≤ 2 s: \(run.seconds <= 2 ? "met" : "MISSED"); peak RSS ≤ 64 MB: \(peakMB <= 64 ? "met" : "MISSED")")
    }

    /// Publishes the fleet's retained topics from one client, QoS 0 (pipelined, no
    /// acknowledgements), then waits for a marker published behind them to come back: the broker
    /// handles one connection's messages in order, so by then it holds every one. The number of
    /// messages, or nil (said why) on failure.
    private func publishFleet(port: Int) -> Int? {
        let client = MosquittoClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port,
                                                                      clientID: "bench-fleet-publisher"))
        let marker = "bench/fleet-published"
        let seen = Flag()
        let connected = Flag()
        try? client.subscribe([marker], qos: .atMostOnce)
        let events = client.events
        Task {
            for await event in events {
                if case .connected = event { connected.raise() }
                if case .message(let message) = event, message.topic == marker { seen.raise() }
            }
        }
        defer {
            let done = DispatchSemaphore(value: 0)
            Task { await client.disconnect(); done.signal() }
            done.wait()
        }
        do { try client.start() } catch {
            print("fleet benchmark: \(error)")
            return nil
        }
        guard connected.wait(seconds: 10) else {
            print("fleet benchmark: the publisher could not connect to the broker")
            return nil
        }
        var count = 0
        do {
            for index in 0..<devices {
                for (topic, payload) in Self.retainedTopics(device: index) {
                    try client.publish(topic, payload: payload, qos: .atMostOnce, retain: true)
                    count += 1
                }
            }
            try client.publish(marker, payload: [1], qos: .atMostOnce, retain: false)
        } catch {
            print("fleet benchmark: publishing failed: \(error)")
            return nil
        }
        guard seen.wait(seconds: 120) else {
            print("fleet benchmark: the broker did not take the generated fleet within 120 s")
            return nil
        }
        return count
    }

    /// One device's retained topics, shaped and sized as the agent's (P/config 500 bytes,
    /// P/vibration 660, P/bubble an SVG of 900): one device in fifty offline, one in a hundred
    /// with a sensor fault, one in forty in alarm; ten sites; vibration on for every other one.
    static func retainedTopics(device index: Int) -> [(String, [UInt8])] {
        let id = "dev-\(index)"
        let topics = Topics(baseTopic: "plumb/hall-\(index % 10)", deviceID: id)
        let fault = index % 100 == 7
        let alarm = index % 40 == 3
        let tilt = alarm ? 6.25 : Double(index % 50) / 1000
        let state = """
            {"alarm":\(alarm),"gravity":{"x":0.00031,"y":0.0002,"z":0.99996},"level":\(tilt < 0.1),"pitch":-0.018,\
            "roll":0.011,"sensor":"\(fault ? "fault" : "ok")","seq":\(index),"stable":true,"tilt":\(tilt),\
            "ts":"2026-12-01T16:32:05.739Z","unit":"deg"}
            """
        let config = """
            {"alarm_threshold":5,"angle_unit":"deg","average_window_s":1,"filter":"mean","heartbeat_s":30,\
            "length_unit":"mm","level_dwell_s":3,"level_hysteresis":0.02,"level_tolerance":0.1,"min_interval_s":0.5,\
            "mount":"flat","name":"Machine \(index)","publish_deadband_deg":0.05,"running_hysteresis":0.25,\
            "running_start_s":5,"running_stop_s":120,"running_threshold":"1 mm/s","sample_rate_hz":100,\
            "vibration":\(index % 2 == 0),"vibration_class":"class_i","vibration_interval_s":10,"vibration_window_s":1}
            """
        let health = """
            {"analysis_windows":0,"dropped":0,"dropped_events":0,"i2c_errors":0,"queued_events":0,"reconnects":0,\
            "sample_rate_hz":100,"samples":\(index * 100),"uptime_s":\(index),"version":"0.1.0"}
            """
        let calibration = index % 3 == 0
            ? """
              {"calibration":{"matrix":[[1.002,0.001,0],[0,0.998,0.002],[0.001,0,1.001]],"offset_g":[0.01,-0.02,0.03]},\
              "chip":{"address":83,"bus":"/dev/i2c-1","devid":229},"date":"2026-11-30T10:00:00Z","method":"six_point",\
              "residual_mg":{"max":2.1,"rms":1.2},"reversal":null}
              """
            : #"{"calibration":null,"chip":null,"date":null,"method":null,"residual_mg":null,"reversal":null}"#
        let axis = #"{"acceleration_rms_g":0.01,"crest_factor":1.4,"dominant_hz":50,"peak_g":0.02,"velocity_rms_mm_s":0.3}"#
        let vibration = """
            {"acceleration_rms_g":0.012,"axes":{"x":\(axis),"y":\(axis),"z":\(axis)},"band_hz":[10,312.5],\
            "crest_factor":1.41,"dominant_hz":50,"peak_g":0.021,"peaks":[{"hz":50,"velocity_rms_mm_s":0.31}],\
            "rate_hz":800,"running":\(index % 4 == 0),"ts":"2026-12-01T16:32:05.700Z","velocity_rms_mm_s":0.31,\
            "vibration_class":"class_i","window_s":1,"zone":"A"}
            """
        let bubble = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 200 200\">"
            + String(repeating: "<circle cx=\"100\" cy=\"100\" r=\"90\" fill=\"none\" stroke=\"#888\"/>", count: 14) + "</svg>"
        var topicsAndPayloads: [(String, String)] = [
            (topics.status, index % 50 == 11 ? "offline" : "online"), (topics.state, state),
            (topics.level, tilt < 0.1 ? "ON" : "OFF"), (topics.config, config), (topics.health, health),
            (topics.calibration, calibration), (topics.bubble, bubble),
        ]
        if index % 2 == 0 { topicsAndPayloads.append((topics.vibration, vibration)) }
        return topicsAndPayloads.map { ($0.0, Array($0.1.utf8)) }
    }

    /// How many devices `plumb fleet --json` listed, and how many of them with status, state,
    /// config, health and calibration all read.
    private static func check(_ output: URL) -> (listed: Int, complete: Int) {
        guard let data = try? Data(contentsOf: output),
              let listing = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let devices = listing["devices"] as? [[String: Any]] else { return (0, 0) }
        let complete = devices.filter { device in
            device["status"] is String && device["tilt"] is NSNumber && device["name"] is String
                && device["version"] is String && device.keys.contains("calibration_method")
                && (device["malformed"] as? [Any])?.isEmpty == true
        }
        return (devices.count, complete.count)
    }

    /// `path arguments…` with stdout to `stdout`, waited for with wait4 for its peak RSS (the
    /// kernel's ru_maxrss, VmHWM at exit) and its wall time.
    static func spawn(_ path: String, _ arguments: [String], stdout: String)
        -> (status: Int32, seconds: Double, maxRSSKiB: Int)? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let start = clock.now()
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = clock.now() - start
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, seconds, usage.ru_maxrss)
    }
}

/// A flag raised once by an event task and waited for by the benchmark's thread.
final class Flag: @unchecked Sendable {
    // @unchecked Sendable: `raised` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var raised = false

    func raise() {
        condition.lock()
        raised = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether it was raised within `seconds`.
    func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !raised { if !condition.wait(until: deadline) { return raised } }
        return true
    }
}
