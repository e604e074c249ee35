import Accelerometers
import Agent
import Configuration
import Contract
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import I2C

/// `plumb run`: the long-running MQTT agent.
struct RunCommand: Subcommand {
    static let name = "run"
    static let summary = "Run the MQTT agent (under systemd on a Pi)."
    static let usage = "plumb run [--config FILE] [--sensor sim [--sim-roll D --sim-pitch D …]] "
        + "[--broker mqtt://HOST:PORT | mqtts://HOST:PORT] [--device-id ID] [--state-dir DIR]"
    static let specs: [OptionSpec] = [
        .value("--config", "FILE", "Config file (default \(AgentConfiguration.defaultPath); defaults apply when it is absent)."),
        .value("--sensor", "KIND", "auto, " + ChipCatalog.all.map(\.kind).joined(separator: ", ") + " or sim: overrides sensor.kind."),
        .value("--broker", "URL", "mqtt://HOST:PORT or mqtts://HOST:PORT: overrides mqtt.url, or the whole mqtt.brokers list."),
        .value("--device-id", "ID", "Overrides device.id ([a-z0-9_-]); topics are <base_topic>/<id>/…"),
        .value("--state-dir", "DIR", "Overrides state_dir, where settings and the zero persist."),
        // Before the simulation flags, where the help has always listed it.
        .help,
    ] + SimulationOptions.specs
    static let helpSummary = "Samples the accelerometer and publishes roll, pitch, tilt, the level state and events over MQTT;\n"
        + "takes its settings from retained MQTT messages. SIGTERM/SIGINT publish `offline` and exit 0;\n"
        + "SIGHUP reloads the config file. The topics are in docs/reference/mqtt.md, the settings in docs/reference/settings.md."

    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32 {
        let kind = try parsed.choice("--sensor", from: SensorKind.names)
        let simulation = try SimulationOptions(parsed)
        let overrides = ConfigurationOverrides(
            sensorKind: kind.flatMap(SensorKind.init(name:)),
            broker: parsed.string("--broker"), deviceID: parsed.string("--device-id"),
            stateDirectory: parsed.string("--state-dir"))

        let loading = ConfigurationLoading(explicitPath: parsed.string("--config"), overrides: overrides)
        let configuration = try loading.loadForCommand()
        if let flag = simulation?.firstFlagGiven, configuration.sensor.kind != .sim {
            throw UsageError("\(flag) applies to the simulated chip only; add --sensor sim.")
        }

        let sensor = configuration.sensor
        let makeChip: @Sendable () throws -> any Accelerometer
        let expected: ChipDescription?
        switch sensor.kind {
        case .sim:
            // One simulated chip for the whole run: a fault's recovery finds the same part.
            let simulation = simulation ?? SimulationOptions()
            let chip = simulation.chip
            let address = sensor.address ?? chip.addresses[0]
            let bus = simulation.makeChip(address: address)
            makeChip = { ChipCatalog.driver(for: chip, bus: bus, address: address) }
            expected = chip
        case .chip, .auto:
            // One opener for the whole run: it tells a bus that went away from one never there.
            // With auto each open scans again (identification reads only), so a chip wired
            // while the agent waits is found, and one swapped for another is read as itself.
            let opener = LinuxI2CBusOpener(path: sensor.bus)
            makeChip = {
                let bus = try opener.open()
                guard let chip = try ChipScan.driver(for: sensor.kind, on: bus, address: sensor.address) else {
                    throw ChipScanError(reason: .noChip(addresses: []), bus: bus.name)
                }
                return chip
            }
            // What a scan at start finds names the chip in discovery at once; the sampler's
            // probe corrects it.
            expected = sensor.chip ?? (try? LinuxI2CBus(path: sensor.bus)).flatMap {
                try? ChipScan.locate(on: $0, address: sensor.address).chip
            }
        }
        let log = AgentLog(level: LogLevel(name: configuration.logLevel.rawValue) ?? .info)
        let runner = AgentRunner(configuration: configuration, makeChip: makeChip, expectedChip: expected,
                                 reloadConfiguration: loading.load,
                                 version: Plumb.version, log: log)
        return AgentMain.block { await runner.run() }
    }
}

/// Runs async work from the synchronous CLI and waits for its exit status.
enum AgentMain {
    static func block(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let result = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            result.set(await body())
            done.signal()
        }
        done.wait()
        return result.value
    }

    private final class ResultBox: @unchecked Sendable {
        // @unchecked Sendable: written once by the task before it signals the semaphore, and read
        // only after `wait()` returns, so the semaphore orders the two accesses.
        private(set) var value: Int32 = 1
        func set(_ value: Int32) { self.value = value }
    }
}
