import Agent
import Configuration
import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HomeAssistant
import MQTT
import PlumbSync

/// `plumb forget`: clears every retained topic of a decommissioned device, so it leaves nothing
/// behind on the broker or in Home Assistant.
struct ForgetCommand: Subcommand {
    static let name = "forget"
    static let summary = "Clear every retained topic of a decommissioned device."
    static let usage = "plumb forget --device-id ID [--config FILE] [--broker mqtt://HOST:PORT | mqtts://HOST:PORT] "
        + "[--wait SECONDS] [--force]"
    static let specs: [OptionSpec] = [
        .value("--device-id", "ID", "The device to forget (its topics are <base_topic>/<ID>/…). Required."),
        .value("--config", "FILE", "Config file with the broker, credentials, base_topic and discovery_prefix"
            + " (default \(AgentConfiguration.defaultPath) when present)."),
        .value("--broker", "URL", "mqtt://HOST:PORT or mqtts://HOST:PORT: overrides mqtt.url."),
        .value("--wait", "SECONDS", "How long to gather the retained messages after connecting (default 1)."),
        .flag("--force", "Clear even when the device says it is online (its agent would publish again)."),
    ]
    static let helpSummary = "Clears every retained topic of a device with empty retained messages: its Home Assistant\n"
        + "discovery configs, status, state, level, config, health, bubble and any desired config left\n"
        + "under config/set. Prints each topic it cleared. Stop the device's agent first."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        guard let deviceID = parsed.string("--device-id") else {
            throw UsageError("--device-id is required: the id of the device to forget, such as --device-id workshop-lathe.")
        }
        let wait = try parsed.double("--wait", in: 0.1...60, what: "seconds") ?? 1
        let overrides = ConfigurationOverrides(broker: parsed.string("--broker"), deviceID: deviceID)
        let configuration = try ConfigurationLoading(explicitPath: parsed.string("--config"), overrides: overrides)
            .loadForCommand()
        let topics = Topics(baseTopic: configuration.mqtt.baseTopic, deviceID: configuration.device.id)
        let homeAssistantID = DiscoveryDevice.homeAssistantID(deviceID: configuration.device.id,
                                                              baseTopic: configuration.mqtt.baseTopic)
        let filters = [topics.prefix + "/#", Discovery.topicFilter(prefix: configuration.mqtt.discoveryPrefix,
                                                                   homeAssistantID: homeAssistantID)]
        let connection = AgentRunner.brokerConnection(configuration, clientID: "plumb-forget-\(getpid())", will: nil)
        let force = parsed.has("--force")

        let outcome = AgentMain.block {
            await Self.forget(filters: filters, status: topics.status, connection: connection, wait: wait, force: force,
                              output: output)
        }
        return outcome
    }

    private static func forget(filters: [String], status: String, connection: MQTTConfiguration, wait: Double,
                               force: Bool, output: Console) async -> Int32 {
        let found: [String: [UInt8]]
        switch await gather(filters: filters, connection: connection.withClientID(suffix: "gather"), wait: wait) {
        case .failure(let message):
            output.error("plumb forget: error: \(message)")
            return 1
        case .success(let messages):
            found = messages
        }
        if !force, let payload = found[status], payload == Array("online".utf8) {
            output.error("plumb forget: error: the device is online (\(status) says online); its agent would publish"
                + " everything again. Stop it first (sudo systemctl stop plumb), or add --force.")
            return 1
        }
        guard !found.isEmpty else {
            output.print("nothing retained under \(filters.joined(separator: " or ")); nothing to clear.")
            return 0
        }
        // A second connection with no subscriptions: the first would receive its own clearing
        // messages back, and a socket closed with unread data is reset, which can make the
        // broker lose what it had not read yet.
        let client = MosquittoClient(configuration: connection.withClientID(suffix: "clear"))
        if case .failure(let message) = await connect(client) {
            output.error("plumb forget: error: \(message)")
            await client.disconnect()
            return 1
        }
        var failures = 0
        for topic in found.keys.sorted() {
            do {
                // QoS 0: queued in order ahead of the DISCONNECT, which the client sends once they
                // are written. QoS 1 messages beyond the in-flight window would instead wait for
                // acknowledgements that the DISCONNECT cuts off.
                try client.publish(topic, payload: [], qos: .atMostOnce, retain: true)
                output.print("cleared \(topic)")
            } catch {
                output.error("could not clear \(topic): \(error)")
                failures += 1
            }
        }
        // Check with the broker rather than trust that the messages went out, and only then
        // disconnect: until the broker has them, the clearing connection stays up and keeps
        // writing (on a busy machine that can take longer than a disconnect waits).
        var left: [String: [UInt8]] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            guard case .success(let remaining) = await gather(filters: filters,
                                                              connection: connection.withClientID(suffix: "check"),
                                                              wait: 0.3) else { break }
            left = remaining
        } while !left.isEmpty && ContinuousClock.now < deadline
        await client.disconnect()
        if !left.isEmpty {
            for topic in left.keys.sorted() { output.error("still retained: \(topic)") }
            output.error("plumb forget: error: \(left.count) retained topic\(left.count == 1 ? " is" : "s are") still there;"
                + " check that this user may publish to them (the broker's ACL), or whether something republished them.")
            return 1
        }
        output.print("cleared \(found.count - failures) retained topic\(found.count - failures == 1 ? "" : "s").")
        return failures == 0 ? 0 : 1
    }

    /// The retained messages under `filters`, gathered for `wait` seconds after connecting.
    private static func gather(filters: [String], connection: MQTTConfiguration,
                               wait: Double) async -> Result<[String: [UInt8]], Failure> {
        let client = MosquittoClient(configuration: connection)
        let retained = Locked<[String: [UInt8]]>([:])
        do {
            try client.subscribe(filters, qos: .atLeastOnce)
        } catch {
            return .failure(Failure(message: "\(error)"))
        }
        let result = await connect(client) { message in
            guard message.retain, !message.payload.isEmpty else { return }
            retained.withLock { $0[message.topic] = message.payload }
        }
        if case .success = result { try? await Task.sleep(for: .seconds(wait)) }
        await client.disconnect()
        return result.map { retained.withLock { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Starts `client` and waits for the broker's first answer: a refusal or no answer in 10 s is
    /// reported at once. Messages go to `receive`.
    private static func connect(_ client: MosquittoClient,
                                receive: @escaping @Sendable (MQTTMessage) -> Void = { _ in }) async -> Result<Void, Failure> {
        let answer = Locked<Result<Void, Failure>?>(nil)
        let events = client.events
        Task {
            for await event in events {
                switch event {
                case .connected: answer.withLock { if $0 == nil { $0 = .success(()) } }
                case .connectionFailed(let error): answer.withLock { if $0 == nil { $0 = .failure(Failure(message: "\(error)")) } }
                case .message(let message): receive(message)
                default: break
                }
            }
        }
        do {
            try client.start()
        } catch {
            return .failure(Failure(message: "\(error)"))
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let result = answer.withLock({ $0 }) { return result }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return .failure(Failure(message: "no answer from the broker within 10 s; check --broker and that the broker runs."))
    }
}

extension MQTTConfiguration {
    /// The same connection under `<client id>-<suffix>`: each of forget's connections has its own
    /// id, so a later one never takes over (and cuts short) an earlier one still finishing.
    fileprivate func withClientID(suffix: String) -> MQTTConfiguration {
        var copy = self
        copy.clientID += "-" + suffix
        return copy
    }
}
