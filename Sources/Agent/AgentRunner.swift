import Accelerometers
import Configuration
import Contract
import Control
import FoundationEssentials
import HomeAssistant
import I2C
import Persistence
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import MQTT
import RulerService
import Sampling
import Settings
import Thermal

/// `plumb run`: the sampler, the publisher and the ticker as services under one supervisor, and
/// the graceful stop that SIGTERM/SIGINT trigger (publish `offline`, disconnect, exit 0).
public struct AgentRunner: Sendable {
    /// The validated configuration, file and CLI flags merged.
    public var configuration: AgentConfiguration
    /// Builds the chip driver; called again after every sensor fault.
    public var makeChip: @Sendable () throws -> any Accelerometer
    /// The chip `makeChip` builds and where, when known before it runs (a named `sensor.kind`,
    /// the simulated chip, or what a scan at start found): the discovery device's model and the
    /// owner record name it. The sampler's probe corrects both (``SamplingUpdate/chip(_:)``).
    public var expectedChip: ChipDescription?
    /// Re-reads and validates the config file, for SIGHUP.
    public var reloadConfiguration: @Sendable () throws -> AgentConfiguration
    /// Plumb's version, for `health` and the device block.
    public var version: String
    public var log: AgentLog

    public init(configuration: AgentConfiguration, makeChip: @escaping @Sendable () throws -> any Accelerometer,
                expectedChip: ChipDescription? = nil,
                reloadConfiguration: @escaping @Sendable () throws -> AgentConfiguration, version: String, log: AgentLog) {
        self.configuration = configuration
        self.makeChip = makeChip
        self.expectedChip = expectedChip ?? configuration.sensor.chip
        self.reloadConfiguration = reloadConfiguration
        self.version = version
        self.log = log
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status. Never throws: every failure is a
    /// message and a status.
    public func run() async -> Int32 {
        HeapTuning.apply()
        let topics = Topics(baseTopic: configuration.mqtt.baseTopic, deviceID: configuration.device.id)
        let store = StateStore(directory: configuration.stateDirectory)
        let defaults = configuration.level
        let loaded = store.load(defaults: defaults)
        for warning in loaded.warnings { log.warning(warning) }
        let settings = loaded.settings ?? defaults

        let mqttConfiguration = AgentRunner.mqttConfiguration(configuration, topics: topics)
        let client = MosquittoClient(configuration: mqttConfiguration)
        let sampling = SamplingService(rateHz: settings.sampleRateHz, rangeG: configuration.sensor.range,
                                       makeChip: ownedChip())
        let clock = MonotonicPacingClock()
        let homeAssistant = AgentRunner.homeAssistantOptions(configuration, version: version, chip: expectedChip)
        let core = AgentCore(topics: topics, mqtt: client, store: store, sampling: sampling, defaults: defaults,
                             settings: settings, settingsFromMQTT: loaded.settings != nil,
                             zeroGravity: loaded.zero?.referenceGravity, calibration: AgentRunner.calibration(store, log: log),
                             calibrationChip: chipRecord(), log: log, version: version,
                             homeAssistant: homeAssistant, temperatureSource: configuration.sensor.temperature,
                             temperatureStaleS: Double(configuration.sensor.temperatureStaleS),
                             driftLearning: AgentRunner.driftLearning(configuration.sensor), clock: { clock.now() })
        let requests = RequestService(topics: topics,
                                      reservedPrefixes: [configuration.mqtt.baseTopic + "/",
                                                         configuration.mqtt.discoveryPrefix + "/"],
                                      mqtt: client,
                                      requestsPerSecond: Double(configuration.service.requestsPerSecond),
                                      burst: Double(configuration.service.burst),
                                      requestTimeout: Double(configuration.service.requestTimeoutS),
                                      log: log, clock: { clock.now() }, wallClock: { Date().timeIntervalSince1970 },
                                      currentReading: { await core.currentReading() })
        let notifier = SystemdNotifier()
        let signals = SignalSource.signals()
        let control = startControlSocket(core: core, sampling: sampling)

        do {
            var filters = [topics.configSet, topics.configKeySetFilter, topics.commandFilter, topics.requestFilter]
            if let homeAssistant { filters.append(homeAssistant.statusTopic) }
            if case .mqtt(let topic) = configuration.sensor.temperature { filters.append(topic) }
            try client.subscribe(filters, qos: .atLeastOnce)
            // A stray published retained while we listen must be told from a passing one, to be
            // cleared (MQTT 5; on 3.1.1 every stray is cleared, as the flag cannot tell).
            try client.subscribe([topics.configStrayFilter], qos: .atLeastOnce, retainAsPublished: true)
            try client.start()
        } catch {
            log.error("\(error)")
            return 1
        }
        let brokers = mqttConfiguration.brokers.map(\.description).joined(separator: ", then ")
        log.info("plumb \(version) running as \(topics.prefix), broker \(brokers)")

        let samplingTask = Task {
            for await update in sampling.start() { await core.handle(update) }
        }
        let mqttTask = Task {
            for await event in client.events {
                // Requests never wait behind the agent's actor, and the actor never waits behind them.
                if case .message(let message) = event, requests.accepts(message) {
                    requests.submit(message)
                } else {
                    await core.handle(event)
                }
            }
        }
        let requestTask = Task { await requests.run() }
        let thermalZone = AgentRunner.thermalZone(configuration.sensor.temperature)
        let tickTask = Task {
            var ticks = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                if let thermalZone, ticks % ThermalZone.pollSeconds == 0 {
                    await core.takeThermalZone(thermalZone.read().mapError { $0 as any Error })
                }
                await core.tick()
                notifier.watchdog()
                ticks += 1
                // What a burst of hostile or large messages freed goes back to the kernel.
                if ticks % HeapTuning.trimIntervalTicks == 0 { HeapTuning.trim() }
            }
        }
        notifier.ready()

        for await signal in signals {
            switch signal {
            case .stop:
                log.info("stopping")
                notifier.stopping()
                tickTask.cancel()
                // The chip's standby and the broker's `offline` don't depend on each other: both
                // at once, so the exit waits for the slower of the two, not for their sum.
                async let chipInStandby: Void = sampling.stop()
                requests.finish()
                await requestTask.value
                control?.stop()
                await core.shutdown()
                await chipInStandby
                mqttTask.cancel()
                samplingTask.cancel()
                return 0
            case .reload:
                notifier.reloading()
                do {
                    let reloaded = try reloadConfiguration()
                    await core.reload(defaults: reloaded.level)
                    let calibration = store.loadCalibration()
                    await core.reload(calibration: calibration.record, warning: calibration.warning)
                    if reloaded.mqtt != configuration.mqtt || reloaded.sensor != configuration.sensor
                        || reloaded.device != configuration.device || reloaded.service != configuration.service {
                        log.warning("connection, sensor, device and service settings take effect at the next restart.")
                    }
                } catch {
                    log.error("config reload refused, keeping the running config: \(error)")
                }
                notifier.ready()
            }
        }
        return 0
    }
}

extension AgentRunner {
    /// `makeChip` behind the chip lock (``ChipOwnership``), for a chip on a bus: taken before the
    /// first configuration, held for the agent's life; a chip another Plumb process holds is a
    /// sensor fault, retried with the fault's backoff.
    func ownedChip() -> @Sendable () throws -> any Accelerometer {
        let sensor = configuration.sensor
        guard sensor.kind != .sim else { return makeChip }
        let ownership = ChipOwnership(bus: sensor.bus)
        let makeChip = makeChip
        let known = sensor.chipAddress
        return {
            // Where the address is known (a named chip, or sensor.address) the lock comes first,
            // before the bus is even opened. With auto the scan (identification reads only, which
            // may run beside another owner) finds the address, and the lock is taken before the
            // sampler first configures the chip.
            if let known { try ownership.claim(address: known) }
            let chip = try makeChip()
            try ownership.claim(address: chip.address)
            return chip
        }
    }

    /// Serves `control.socket` (``ControlService``) and writes the owner record beside it;
    /// nil when it is off or cannot be served (logged: the agent runs on without it).
    func startControlSocket(core: AgentCore, sampling: SamplingService) -> ControlSocketService? {
        guard let path = configuration.control.socket else { return nil }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let sensor = configuration.sensor
        let address = (sensor.address ?? expectedChip?.addresses.first)?.description ?? "unknown"
        let owner = ChipOwner(pid: getpid(), unit: ChipOwner.currentUnit, bus: sensor.kind == .sim ? "simulated" : sensor.bus,
                              address: address, socket: path, version: version, model: expectedChip?.model)
        guard access(directory.isEmpty ? "/" : directory, W_OK) == 0 else {
            // Outside the unit (plumb run by hand) /run/plumb is not there: not an error.
            log.info("control socket off: \(directory) is not there or not writable (the unit's RuntimeDirectory=plumb"
                + " makes /run/plumb; set control.socket to a directory of yours, or to off). plumb commands cannot work"
                + " through this agent; it still holds its chip.")
            return nil
        }
        let log = self.log
        do {
            let clock = MonotonicPacingClock()
            let service = ControlService(core: core, sampling: sampling, owner: owner, clock: { clock.now() })
            let server = try ControlServer(path: path, handler: service,
                                           log: { log.info($0) })
            try? owner.write(directory: directory)
            log.info("control socket \(path): plumb commands work through the agent")
            return ControlSocketService(server: server, directory: directory)
        } catch {
            log.warning("control socket off: \(error)")
            return nil
        }
    }

    /// The calibration to start with: `calibration.json` in the state directory, or nil (raw)
    /// when there is none or it is damaged, which the log says (escaped: it quotes the file).
    /// SIGHUP reads it again.
    static func calibration(_ store: StateStore, log: AgentLog) -> CalibrationRecord? {
        let loaded = store.loadCalibration()
        if let warning = loaded.warning { log.warning(warning.escapedForLog(limit: 2000)) }
        if let record = loaded.record {
            log.info("calibrated: \(record.method.rawValue) of \(record.date)")
        }
        return loaded.record
    }

    /// The chip as a calibration made by the agent records it until the sampler's probe says
    /// (``AgentCore``, at ``SamplingUpdate/chip(_:)``): the bus, the address and the
    /// identification register and model of the chip expected.
    func chipRecord() -> CalibrationRecord.Chip {
        let sensor = configuration.sensor
        let id = expectedChip?.identification.first?.expected.first
        return CalibrationRecord.Chip(bus: sensor.kind == .sim ? "simulated" : sensor.bus,
                                      address: (sensor.address ?? expectedChip?.addresses.first)?.description ?? "unknown",
                                      devid: id.map { "0x" + String($0, radix: 16, uppercase: true) } ?? "unknown",
                                      model: expectedChip?.model)
    }

    /// Discovery settings from `mqtt.discovery`, `mqtt.discovery_prefix` and `device`; nil when
    /// discovery is off.
    static func homeAssistantOptions(_ configuration: AgentConfiguration, version: String,
                                     chip: ChipDescription?) -> HomeAssistantOptions? {
        guard configuration.mqtt.discovery else { return nil }
        return HomeAssistantOptions(prefix: configuration.mqtt.discoveryPrefix,
                                    device: DiscoveryDevice(id: DiscoveryDevice.homeAssistantID(
                                                                deviceID: configuration.device.id,
                                                                baseTopic: configuration.mqtt.baseTopic),
                                                            version: version,
                                                            configurationURL: configuration.device.configurationURL,
                                                            chipModel: chip?.model ?? DiscoveryDevice.unknownChipModel))
    }

    /// The client's configuration: the connection from the file (MQTT can never change it), a
    /// last will of `offline` retained on `P/status`, MQTT 5 with a fallback to 3.1.1.
    /// A persistent session (`mqtt.session_expiry_s` above 0) keeps the QoS 1 desired-config
    /// writes and commands made while the agent is away, delivered in write order at the
    /// reconnect; failover to the next of `mqtt.brokers` after a failed connect or a lost
    /// connection, and back to the first every `mqtt.failback_s` at most.
    ///
    /// Incoming payloads are bounded for memory under a flood: cut past the largest any handler
    /// reads (a config message's 64 KiB; what is cut is refused as too large, quoting the length
    /// as sent), and MQTT 5 asks the broker for no packet over ``maximumPacketSize``.
    static func mqttConfiguration(_ configuration: AgentConfiguration, topics: Topics) -> MQTTConfiguration {
        var connection = brokerConnection(configuration, clientID: configuration.mqtt.clientID,
                                          will: MQTTWill(topic: topics.status, payload: "offline", qos: .atLeastOnce,
                                                         retain: true))
        connection.cleanSession = configuration.mqtt.sessionExpiryS == 0
        connection.sessionExpiry = .seconds(configuration.mqtt.sessionExpiryS)
        connection.maximumIncomingPayload = LiveSettings.maximumPayloadBytes
        connection.maximumPacketSize = maximumPacketSize
        connection.receiveMaximum = configuration.mqtt.receiveMaximum
        connection.inboundProbe = inboundProbe(configuration, topics: topics)
        return connection
    }

    /// The inbound probe on `P/probe`: after `mqtt.inbound_probe_s` without a QoS 1/2 delivery,
    /// waiting at most ``inboundProbeTimeoutS`` for its echo.
    static func inboundProbe(_ configuration: AgentConfiguration, topics: Topics) -> InboundProbeSettings {
        let silence = configuration.mqtt.inboundProbeS
        return InboundProbeSettings(topic: topics.inboundProbe, silence: .seconds(silence),
                                    timeout: .seconds(min(inboundProbeTimeoutS, silence)))
    }

    /// The longest the inbound probe waits for its echo, seconds: a loaded broker answers a QoS 1
    /// round trip in milliseconds, and 10 s keeps the worst detection at 60 s with a 50 s silence.
    public static let inboundProbeTimeoutS = 10

    /// The largest MQTT 5 packet the broker may send the agent: a request up to this size is still
    /// answered `too_large`, a larger one never reaches it (the broker drops it). It bounds what
    /// libmosquitto allocates for one message, which it does before the payload can be cut.
    public static let maximumPacketSize = 1024 * 1024

    /// The connection the config file describes (the brokers in order, failback, TLS,
    /// credentials), under `clientID`, with a clean session. Used by the agent, and by commands
    /// that talk to the broker on its behalf (`plumb forget`); the first of ``MQTTConfiguration/brokers``
    /// (`configuration.mqtt.host` and `port`) is the broker to use for a single connection.
    public static func brokerConnection(_ configuration: AgentConfiguration, clientID: String,
                                        will: MQTTWill?) -> MQTTConfiguration {
        let mqtt = configuration.mqtt
        let tls = mqtt.tls.map { settings in
            MQTTConfiguration.TLS(caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile,
                                  insecure: settings.insecure)
        }
        return MQTTConfiguration(
            host: mqtt.host, port: mqtt.port,
            failoverBrokers: mqtt.brokers.dropFirst().map { MQTTConfiguration.Broker(host: $0.host, port: $0.port) },
            clientID: clientID, keepAlive: mqtt.keepalive,
            // Without a config file nothing resolved the password yet: PLUMB_MQTT_PASSWORD still counts.
            username: mqtt.username, password: mqtt.password ?? (try? mqtt.resolvePassword()) ?? nil,
            will: will, tls: tls, failbackInterval: .seconds(mqtt.failbackS))
    }
}

/// The running control socket and its owner record, stopped together.
struct ControlSocketService: Sendable {
    let server: ControlServer
    let directory: String

    func stop() {
        server.stop()
        ChipOwner.remove(directory: directory)
    }
}

extension AgentRunner {
    /// `learn_drift`'s buckets and minimum run, from `sensor.learn_drift_*`: progress every ten
    /// buckets.
    static func driftLearning(_ sensor: AgentConfiguration.SensorSettings) -> DriftLearning.Configuration {
        let bucket = Double(sensor.learnDriftBucketS)
        return DriftLearning.Configuration(bucketSeconds: bucket,
                                           minimumDurationSeconds: Double(sensor.learnDriftMinimumS),
                                           progressEverySeconds: 10 * bucket)
    }

    /// The thermal zone `source` reads, under `PLUMB_THERMAL_ROOT` when set (a test's fake
    /// tree) or /sys/class/thermal; nil for other sources.
    static func thermalZone(_ source: TemperatureSource) -> ThermalZone? {
        guard case .thermalZone(let zone) = source else { return nil }
        let root = getenv("PLUMB_THERMAL_ROOT").map { String(cString: $0) } ?? ThermalZone.defaultRoot
        return ThermalZone(zone: zone, root: root.isEmpty ? ThermalZone.defaultRoot : root)
    }
}
