import Foundation

/// One message as the real `mosquitto_sub` saw it.
public struct MosquittoMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// The retain flag as delivered: true for a retained message sent because we subscribed.
    public var retained: Bool
    /// The QoS it was delivered with (at most the subscription's).
    public var qos: Int
    /// The MQTT 5 response topic, when there was one.
    public var responseTopic: String?

    /// The payload as UTF-8 text (invalid bytes replaced).
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }
}

/// The real mosquitto command-line clients (`mosquitto_sub`, `mosquitto_pub`, `mosquitto_rr`),
/// for checking from the outside what a broker holds and what our code sends.
///
/// Every call targets 127.0.0.1:`port`; `extraArgs` go before the topic arguments (use
/// ``MosquittoBroker/tlsClientArguments`` for a TLS broker, `["-u", user, "-P", password]` for a
/// password file). All waits are `async` and never block a concurrency thread. MQTT 5 is used
/// throughout, so response topics are visible.
public enum MosquittoClients {
    /// Subscribes, waits for `count` messages or `timeout`, and returns what arrived (possibly
    /// fewer). Only retained messages can arrive unless something publishes meanwhile: to catch a
    /// live message, use ``startSubscriber(port:topic:count:timeout:qos:extraArgs:)`` first.
    public static func subscribe(port: Int, topic: String, count: Int = 1, timeout: Duration = .seconds(5),
                                 qos: Int = 1, extraArgs: [String] = []) async throws -> [MosquittoMessage] {
        let subscriber = try await startSubscriber(port: port, topic: topic, count: count, timeout: timeout, qos: qos,
                                                   extraArgs: extraArgs)
        return await subscriber.messages()
    }

    /// Starts `mosquitto_sub -C count -W timeout` and returns once the broker has acknowledged the
    /// subscription, so anything published afterwards is seen.
    public static func startSubscriber(port: Int, topic: String, count: Int = 1, timeout: Duration = .seconds(5),
                                       qos: Int = 1, extraArgs: [String] = []) async throws -> MosquittoSubscriber {
        let id = "harness-sub-\(UInt32.random(in: 0...UInt32.max))"
        // -d prints "received SUBACK" (our readiness signal); -F prints each message as one line
        // that cannot be confused with debug output: the payload in hex, the topic last.
        let arguments = connection(port) + ["-V", "mqttv5", "-i", id, "-d", "-q", String(qos),
                                            "-C", String(count), "-W", String(wholeSeconds(timeout)),
                                            "-F", "\(MosquittoSubscriber.marker)\t%r\t%q\t%x\t%R\t%t"]
            + extraArgs + ["-t", topic]
        // mosquitto_sub flushes each message but not its debug lines: line-buffer its stdout
        // (coreutils' stdbuf) so "received SUBACK" reaches us when it happens.
        let child = try ChildProcess(try executablePath("stdbuf"),
                                     ["-oL", try executablePath("mosquitto_sub")] + arguments)
        guard await child.waitForOutput(containing: "received SUBACK", timeout: .seconds(5)) else {
            child.signal(SIGKILL)
            throw BrokerHarnessError("mosquitto_sub did not subscribe to \(topic) on 127.0.0.1:\(port).\n"
                + "command: \(child.commandLine)\nstdout: \(child.stdout)\nstderr: \(child.stderr)")
        }
        return MosquittoSubscriber(child: child, timeout: timeout)
    }

    /// The retained messages on `topic` (a filter may match several). Returns about 0.3 s after
    /// the subscription is acknowledged, which is when mosquitto has sent them all: an absent
    /// message costs no long timeout.
    public static func retained(port: Int, topic: String, extraArgs: [String] = []) async throws -> [MosquittoMessage] {
        let subscriber = try await startSubscriber(port: port, topic: topic, count: 1000, timeout: .seconds(5),
                                                   extraArgs: ["--retained-only"] + extraArgs)
        try? await Task.sleep(for: .milliseconds(300))
        return await subscriber.stop()
    }

    /// Publishes with `mosquitto_pub` and waits until it has finished (QoS 1 and 2: acknowledged).
    public static func publish(port: Int, topic: String, message: String, retain: Bool = false, qos: Int = 0,
                               extraArgs: [String] = []) async throws {
        let arguments = connection(port) + ["-V", "mqttv5", "-q", String(qos)] + (retain ? ["-r"] : []) + extraArgs
            + ["-t", topic, "-m", message]
        _ = try await ChildProcess.run(try executablePath("mosquitto_pub"), arguments)
    }

    /// Publishes the contents of `file` `times` times with one `mosquitto_pub` (`-f`, `--repeat`),
    /// and waits until it has finished: for a flood of large messages without holding them in the
    /// test's memory.
    public static func publish(port: Int, topic: String, file: String, qos: Int, times: Int,
                               timeout: Duration = .seconds(120)) async throws {
        let arguments = connection(port) + ["-V", "mqttv5", "-q", String(qos), "--repeat", String(times),
                                            "-t", topic, "-f", file]
        _ = try await ChildProcess.run(try executablePath("mosquitto_pub"), arguments, timeout: timeout)
    }

    /// Deletes the retained message on `topic` (an empty retained publish, `-n -r`).
    public static func publishNull(port: Int, topic: String, extraArgs: [String] = []) async throws {
        let arguments = connection(port) + ["-V", "mqttv5", "-n", "-r", "-q", "1"] + extraArgs + ["-t", topic]
        _ = try await ChildProcess.run(try executablePath("mosquitto_pub"), arguments)
    }

    /// Sends a request with `mosquitto_rr` (MQTT 5 response topic `responseTopic`) and returns the
    /// payload of the first reply.
    /// - Throws: when no reply arrives within `timeout`.
    public static func request(port: Int, topic: String, responseTopic: String, message: String,
                               timeout: Duration = .seconds(5), extraArgs: [String] = []) async throws -> String {
        let arguments = connection(port) + ["-V", "mqttv5", "-W", String(wholeSeconds(timeout))] + extraArgs
            + ["-t", topic, "-e", responseTopic, "-m", message]
        let output = try await ChildProcess.run(try executablePath("mosquitto_rr"), arguments,
                                                timeout: timeout + .seconds(2))
        return output.hasSuffix("\n") ? String(output.dropLast()) : output
    }

    private static func connection(_ port: Int) -> [String] {
        ["-h", "127.0.0.1", "-p", String(port)]
    }

    /// mosquitto's clients take whole seconds; round up so a short timeout still waits. Scaled
    /// (``TestTimeScale``): what they wait for may come from a slow, sanitized agent.
    private static func wholeSeconds(_ duration: Duration) -> Int {
        max(1, Int(TestTimeScale.scaled(duration).timeInterval.rounded(.up)))
    }
}

/// A running `mosquitto_sub`, subscribed and collecting messages.
public final class MosquittoSubscriber: Sendable {
    // Plain letters: `@` and `%` start format escapes in mosquitto_sub -F.
    static let marker = "MSG>"
    private let child: ChildProcess
    private let timeout: Duration

    init(child: ChildProcess, timeout: Duration) {
        self.child = child
        self.timeout = timeout
    }

    /// Waits until `mosquitto_sub` ends (its count reached or its timeout passed) and returns the
    /// messages it printed.
    public func messages() async -> [MosquittoMessage] {
        if !(await child.waitForExit(timeout: timeout + .seconds(2))) {
            child.signal(SIGKILL)
            _ = await child.waitForExit(timeout: .seconds(2))
        }
        return received
    }

    /// Stops `mosquitto_sub` now and returns what it had printed.
    public func stop() async -> [MosquittoMessage] {
        child.signal(SIGTERM)
        _ = await child.waitForExit(timeout: .seconds(2))
        return received
    }

    /// What arrived so far.
    public var received: [MosquittoMessage] {
        child.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == Self.marker else { return nil }
            return MosquittoMessage(topic: String(fields[5]), payload: Self.bytes(fromHex: fields[3]),
                                    retained: fields[1] == "1", qos: Int(fields[2]) ?? 0,
                                    responseTopic: fields[4].isEmpty ? nil : String(fields[4]))
        }
    }

    private static func bytes(fromHex hex: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }
}
