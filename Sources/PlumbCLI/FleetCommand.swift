import Agent
import Configuration
import Fleet
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MQTT

/// `plumb fleet`: every device under a base topic, from the retained topics on the broker,
/// problems first. Reads only; the one message it publishes is its own end-of-burst marker
/// (``FleetCollector``).
struct FleetCommand: Subcommand {
    static let name = "fleet"
    static let summary = "List every device on the broker, problems first."
    static let usage = "plumb fleet [--broker mqtt://HOST:PORT | mqtts://HOST:PORT] [--base-topic TOPIC] [--config FILE]"
        + " [--json] [--watch]"
    static let specs: [OptionSpec] = [
        .value("--broker", "URL", "mqtt://HOST:PORT or mqtts://HOST:PORT: overrides mqtt.url, or the whole mqtt.brokers list."),
        .value("--base-topic", "TOPIC", "List the devices under TOPIC, at any depth (default: mqtt.base_topic, plumb)."),
        .value("--config", "FILE", "Config file with the broker, credentials and TLS, as for plumb run"
            + " (default \(AgentConfiguration.defaultPath) when present)."),
        .flag("--json", "One line of JSON: {\"base_topic\", \"count\", \"devices\": [...]}."),
        .flag("--watch", "Keep listening and show every change: redrawn in place on a terminal (q quits),"
            + " otherwise a new listing at most once a second."),
    ]
    static let helpSummary = "Lists every device that publishes under the base topic, from its retained topics:\n"
        + "problem, id, name, site, status, level, tilt in the device's unit, stable, sensor, running\n"
        + "and zone (with vibration analysis), the age of its last state, version and calibration date.\n"
        + "Offline devices come first, then sensor faults, alarms, and devices not level. The site is\n"
        + "the device's base topic after its first level (plumb/hall-2 → hall-2)."

    /// At most one listing a second when the output is no terminal (a pipe, a log).
    static let printInterval = Duration.seconds(1)

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let configuration = try ConfigurationLoading(explicitPath: parsed.string("--config"),
                                                     overrides: ConfigurationOverrides(broker: parsed.string("--broker")))
            .loadForCommand()
        let baseTopic = try parsed.string("--base-topic").map(checkedBaseTopic) ?? configuration.mqtt.baseTopic
        let mode = Mode(json: parsed.has("--json"), watch: parsed.has("--watch"),
                        interactive: parsed.has("--watch") && !parsed.has("--json") && WatchTerminal.isInteractive)
        let connection = brokerConnection(configuration)
        let brokerURL = configuration.mqtt.url
        return AgentMain.block {
            await list(baseTopic: baseTopic, connection: connection, brokerURL: brokerURL, mode: mode, output: output)
        }
    }

    /// The connection `plumb run` would use (broker, TLS, credentials), under a client id of
    /// this run's own. The one place the broker is chosen.
    static func brokerConnection(_ configuration: AgentConfiguration) -> MQTTConfiguration {
        AgentRunner.brokerConnection(configuration, clientID: "plumb-fleet-\(getpid())", will: nil)
    }

    /// `topic` when it can be a base topic to list under; a usage error saying why not otherwise.
    static func checkedBaseTopic(_ topic: String) throws(UsageError) -> String {
        func refuse(_ reason: String) -> UsageError {
            UsageError("--base-topic \(reason); give the base topic the agents publish under, such as --base-topic plumb.")
        }
        if topic.isEmpty { throw refuse("is empty") }
        if topic.contains(where: { $0 == "+" || $0 == "#" }) { throw refuse("'\(topic)' has a wildcard (+ or #)") }
        if topic.hasPrefix("$") { throw refuse("'\(topic)' starts with $, which the broker reserves") }
        if topic.hasPrefix("/") || topic.hasSuffix("/") || topic.contains("//") {
            throw refuse("'\(topic)' has an empty level (a leading, trailing or doubled /)")
        }
        if topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse("has a control character")
        }
        return topic
    }

    struct Mode: Sendable {
        var json: Bool
        var watch: Bool
        /// Redrawn in place on a terminal.
        var interactive: Bool
    }

    private static func list(baseTopic: String, connection: MQTTConfiguration, brokerURL: String, mode: Mode,
                             output: Console) async -> Int32 {
        let collector = FleetCollector(connection: connection, baseTopic: baseTopic)
        do {
            try await collector.connect()
        } catch {
            output.error("plumb fleet: error: \(error.message)")
            await collector.disconnect()
            return 1
        }
        if !(await collector.awaitRetainedBurst()) {
            output.error("plumb fleet: warning: the broker kept sending for \(Int(FleetCollector.limitSeconds)) s and"
                + " dropped this command's end marker (may this user publish under \(baseTopic)?); listing what came.")
        }
        guard mode.watch else {
            await collector.disconnect()
            let fleet = collector.snapshot().fleet
            output.print(render(fleet.devices, baseTopic: baseTopic, mode: mode, brokerURL: brokerURL).joined(separator: "\n"))
            return 0
        }
        InterruptFlag.install()
        let terminal: WatchTerminal?
        do {
            terminal = mode.interactive ? try WatchTerminal(console: output) : nil
        } catch {
            output.error("plumb fleet: error: \(error.message)")
            await collector.disconnect()
            return 1
        }
        await watch(collector, terminal: terminal, mode: mode, brokerURL: brokerURL, output: output)
        terminal?.restore()
        await collector.disconnect()
        return 0
    }

    /// Shows the fleet until q or a signal: on a terminal redrawn on every change and every
    /// second (the ages move), otherwise printed again on a change, at most once a second.
    private static func watch(_ collector: FleetCollector, terminal: WatchTerminal?, mode: Mode, brokerURL: String,
                              output: Console) async {
        var shown = -1
        var lastShown = ContinuousClock.now - .seconds(60)
        while !InterruptFlag.raised {
            if let terminal, terminal.keys().contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") }) {
                break
            }
            let now = ContinuousClock.now
            let (fleet, generation) = collector.snapshot()
            if let terminal {
                if generation != shown || now - lastShown >= .seconds(1) {
                    let (connected, problem) = collector.connection
                    let devices = fleet.devices
                    var lines = [header(devices, baseTopic: fleet.baseTopic, brokerURL: brokerURL, connected: connected,
                                        problem: problem), ""]
                    lines += render(devices, baseTopic: fleet.baseTopic, mode: mode, brokerURL: brokerURL)
                    terminal.draw(lines)
                    (shown, lastShown) = (generation, now)
                }
            } else if generation != shown, now - lastShown >= printInterval {
                let lines = render(fleet.devices, baseTopic: fleet.baseTopic, mode: mode, brokerURL: brokerURL)
                output.print((mode.json ? lines : lines + [""]).joined(separator: "\n"))
                (shown, lastShown) = (generation, now)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The listing as lines: the table, or the JSON on one line.
    static func render(_ devices: [FleetDevice], baseTopic: String, mode: Mode, brokerURL: String) -> [String] {
        let now = Date()
        if mode.json { return [FleetListing(baseTopic: baseTopic, devices: devices, now: now).json] }
        guard !devices.isEmpty else { return ["no devices under \(baseTopic)/ on \(brokerURL)."] }
        return FleetTable(devices: devices, now: now).lines
    }

    /// The watch's first line: what is listed, how many have a problem, the connection.
    static func header(_ devices: [FleetDevice], baseTopic: String, brokerURL: String, connected: Bool,
                       problem: String?) -> String {
        let problems = devices.count { $0.problem != nil }
        let link = connected ? brokerURL : "reconnecting to \(brokerURL)" + (problem.map { ": \($0)" } ?? "")
        return "plumb fleet: \(devices.count) device\(devices.count == 1 ? "" : "s") under \(baseTopic)/,"
            + " \(problems) with a problem; \(link). q quits."
    }
}
