import Accelerometers
import Configuration
import Contract
import Drawing
import HomeAssistant
import I2C
import FoundationEssentials
import Persistence
import PictureRendering
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
import Calibrating

/// The agent: readings, MQTT events, ticks and signals in, MQTT publications out.
///
/// A supervisor, not a brain: it orchestrates value types that each own a part's state and
/// decisions. ``AgentEnvironment`` is what it talks to; ``SettingsState`` the settings and their
/// write order; ``SensorState`` the sensor's phase and self-test; ``BrokerLink`` the connection;
/// ``CalibrationState`` the calibration in force and the one in progress (a reversal or a
/// six-point tumble, and who started it); ``LevelPipeline`` measures and ``VibrationStage``
/// analyses; ``InboundRoute`` says where a message goes; ``StatePublisher``, ``EventQueue``,
/// ``HealthReporter``, ``DiscoveryPublisher`` and ``BubblePublisher`` say what goes out and when.
/// The actor acts on what they return, and every message leaves as a typed ``Publication``
/// through one outbox, ``send(_:)``.
///
/// An actor, so the sampling thread, the MQTT callbacks, the ticker and signals all reach the
/// state one at a time. Nothing here blocks: publishing is a non-blocking libmosquitto call.
public actor AgentCore {
    /// What the agent talks to and reports; fixed for its life.
    let environment: AgentEnvironment
    /// The settings in force, their source and write order.
    var settingsState: SettingsState
    /// The calibration in force and the one in progress.
    var calibrating: CalibrationState

    // The sensor
    /// Every reading's road from raw samples to angles, level and alarm.
    var pipeline: LevelPipeline
    /// Starting, running or faulty, whether a self-test holds the chip, and which chip it is.
    var sensor: SensorState

    // The connection
    /// The connection: its phase (whether anything may be published), facts and counters.
    var link = BrokerLink()

    // What goes out, each deciding when; all of it through ``send(_:)``
    /// `P/state`, and what the last one said.
    var state: StatePublisher
    /// `P/event`: the events kept while the broker is away.
    var events = EventQueue()
    /// `P/health`: the rate measurement and counters, and when it is due.
    var health = HealthReporter(interval: AgentCore.healthInterval)
    /// Home Assistant's discovery configs; nil when discovery is off.
    var discovery: DiscoveryPublisher?
    /// `P/bubble`, the picture of the last state.
    var bubble = BubblePublisher<Scene>()
    /// Windows, figures, zone, running state and `P/vibration`.
    var vibration: VibrationStage
    /// Who hears the events beside `P/event` (the control socket's clients).
    var listeners = EventListeners()

    // The temperature
    /// The source in force, its latest value, and what it sent that was refused.
    var temperature: TemperatureState
    /// `learn_drift` under way; nil when none is.
    var driftLearning: DriftLearning?
    /// The answer to the latest command this run (`P/result`), re-sent at each connect in case
    /// it was made while the broker was away.
    var lastResult: CommandResult?
    /// How `learn_drift` buckets and how long it must run (`sensor.learn_drift_*`).
    let driftLearningConfiguration: DriftLearning.Configuration

    /// Seconds between `P/health` messages: the period Home Assistant's diagnostics expect.
    static let healthInterval = Double(Discovery.healthPeriodS)

    /// - Parameters:
    ///   - defaults: The config file's settings. Only `settings` is kept: a reload passes the new
    ///     file's to ``reload(defaults:)``, which needs nothing of the old.
    public init(topics: Topics, mqtt: any MQTTClient, store: StateStore, sampling: SamplingService,
                defaults: LiveSettings, settings: LiveSettings, settingsFromMQTT: Bool, zeroGravity: Vector3?,
                calibration record: CalibrationRecord? = nil,
                calibrationChip: CalibrationRecord.Chip = AgentCore.unknownChip, log: AgentLog, version: String,
                homeAssistant: HomeAssistantOptions? = nil, temperatureSource: TemperatureSource = .automatic,
                temperatureStaleS: Double = Double(AgentConfiguration.SensorSettings.defaultTemperatureStaleS),
                driftLearning: DriftLearning.Configuration = .standard, clock: @escaping @Sendable () -> Double,
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        environment = AgentEnvironment(topics: topics, mqtt: mqtt, store: store, sampling: sampling, log: log,
                                       version: version, clock: clock, wallClock: wallClock)
        settingsState = SettingsState(settings, fromMQTT: settingsFromMQTT)
        discovery = homeAssistant.map { DiscoveryPublisher(options: $0, topics: topics) }
        calibrating = CalibrationState(record: record, chip: calibrationChip)
        sensor = SensorState(rateHz: settings.sampleRateHz)
        temperature = TemperatureState(source: temperatureSource, staleAfterSeconds: temperatureStaleS,
                                       startedAt: clock())
        driftLearningConfiguration = driftLearning
        // The stored zero was saved corrected by this same calibration: both come from the state
        // directory, and every change to one re-saves the other (``useCalibration(_:)``).
        let thermal = ThermalCompensation(record: record, chip: ChipCatalog.simulated, rangeG: nil,
                                          operatingPoint: sensor.operatingPoint)
        pipeline = LevelPipeline(settings: settings.pipelineSettings(calibration: record?.calibration ?? .identity,
                                                                     chip: sensor.operatingPoint, thermal: thermal),
                                 zeroGravity: zeroGravity)
        state = StatePublisher(settings: settings)
        vibration = VibrationStage(settings.vibration(atRateHz: sensor.operatingPoint.rateHz))
        if let refusal = vibration.refusal { log.warning(refusal) }
        // Only Home Assistant's camera shows the picture: without discovery none is drawn.
        if discovery != nil, let problem = environment.pictures.text.problem() {
            log.warning("the bubble picture will show no figures: \(problem).")
        }
    }

    // What the extensions read of the environment and the state, by their old names.
    var topics: Topics { environment.topics }
    var store: StateStore { environment.store }
    var sampling: SamplingService { environment.sampling }
    var log: AgentLog { environment.log }
    var clock: @Sendable () -> Double { environment.clock }
    var settings: LiveSettings { settingsState.current }
    var calibrationRecord: CalibrationRecord? { calibrating.record }

    // MARK: Readings

    /// Feeds one update from the sampling thread.
    public func handle(_ update: SamplingUpdate) {
        switch update {
        case .started(let sampling):
            log.info("sensor running at \(sampling.rateHz) Hz, ±\(sampling.rangeG) g")
            sensor.started()
            runsAtRange(sampling.rangeG)
            chipRuns(atRateHz: sampling.rateHz)
            health.restartRateMeasurement()
            // A start after a rate change: the windows begin again at the new rate.
            interruptVibration()
        case .recovered(let sampling):
            log.info("sensor recovered at \(sampling.rateHz) Hz")
            sensor.recovered()
            runsAtRange(sampling.rangeG)
            chipRuns(atRateHz: sampling.rateHz)
            health.restartRateMeasurement()
            emit(AgentEvent(type: .sensorRecovered, details: [:]))
            state.force()
        case .fault(let message, let retryIn):
            if sensor.fault(message) {
                failSixPoint(sensorFault: message)
                failDriftLearning(sensorFault: message)
                log.error(Sentences.join("sensor fault: \(message)", "Plumb waits for the sensor: it tries again in"
                                         + " \(retryIn) s, backing off to 30 s, and resumes on its own."))
                emit(AgentEvent(type: .sensorFault, details: [.error: .string(message)]))
                // Nothing from before the fault may be reported, zeroed on or averaged with what
                // comes after the recovery.
                pipeline.reset()
                interruptVibration()
                publishState(reason: .fault)
            } else {
                log.debug("sensor still faulty: \(message)")
            }
        case .resumed(let sampling):
            log.info("sampling resumed at \(sampling.rateHz) Hz after a job on the chip")
            health.restartRateMeasurement()
            chipRuns(atRateHz: sampling.rateHz)
            // Blocks from before the pause are not averaged with blocks after it, as for a fault.
            pipeline.reset()
            interruptVibration()
        case .chip(let found):
            opened(found)
        case .busMode(let mode):
            if let line = Self.busModeLine(mode, was: health.i2cMode) { log.info(line) }
            health.i2cMode = mode
        case .batch(let batch, let statistics):
            countSamples(statistics, at: clock())
            takeDieTemperature(of: batch)
            feedSixPoint(batch)
            ingest(batch)
            ingestVibration(batch, at: clock())
        }
    }

    /// Measures one batch of raw samples. Re-stamping its time copies no sample: the array stays
    /// the one the sampler made.
    func ingest(_ batch: SampleBatch) {
        var batch = batch
        // Dwell and a reading's age are measured on the agent's clock, like everything it times.
        batch.time = clock()
        let levelWasKnown = pipeline.isLevel != nil
        guard let measurement = pipeline.add(batch, temperature: temperature.reading(at: batch.time)) else { return }
        feedDriftLearning(measurement)
        // A turn between the reversal's two readings shows as a reading that is not stable.
        calibrating.noteReading(stable: measurement.isStable)
        for change in measurement.events {
            emit(AgentEvent(type: change.eventType,
                            details: [.tiltDeg: .number(measurement.attitude.tilt.degrees.rounded(toDecimals: 4))]))
        }
        // The first reading decides the state without an event; `P/level` still needs it.
        if !levelWasKnown || measurement.events.contains(where: { $0 == .levelEntered || $0 == .levelLeft }) {
            publishLevel()
        }
        if let reason = state.reason(for: measurement, at: batch.time) { publishState(reason: reason) }
    }

    /// The filtered reading for the ruler service's `rise` and `shim`; nil while there is none
    /// (starting, or a sensor fault).
    public func currentReading() -> CurrentReading? {
        guard sensor.mayReport, let measurement = pipeline.latest else { return nil }
        return CurrentReading(measurement, age: max(0, clock() - measurement.time), lengthUnit: settings.lengthUnit)
    }

    /// The log line for a bus mode learnt or changed; nil when it says nothing new.
    static func busModeLine(_ mode: I2CMode, was previous: I2CMode?) -> String? {
        guard mode != previous else { return nil }
        switch mode {
        case .rdwrBatched: return "I²C: batched reads (I2C_RDWR, a FIFO drain in one transfer; i2c_mode rdwr-batched)"
        case .smbus: return "I²C: SMBus block reads, the adapter has no plain I²C (i2c_mode smbus)"
        case .simulated: return nil
        case .rdwr:
            return "I²C: the adapter refused batched reads (one read message per transfer, as the Raspberry Pi 0–4's"
                + " i2c-bcm2835 takes): one register read per transfer from now on (i2c_mode rdwr), about one ioctl a"
                + " sample instead of one a drain (docs/development/benchmarks.md, FIFO draining)."
        }
    }

    /// The chip's correction in force: the record's, or ``Calibration/identity`` without one.
    var calibration: Calibration { calibrating.calibration }

    /// Recorded as the chip of a calibration when nothing better is known.
    public static let unknownChip = CalibrationRecord.Chip(bus: "unknown", address: "unknown", devid: "unknown")

    // MARK: Ticks

    /// Called every second: heartbeats while no readings arrive, health, queued events.
    public func tick() {
        let now = clock()
        if let reason = state.reasonOnTick(reading: sensor.mayReport ? pipeline.latest?.attitude : nil, at: now) {
            publishState(reason: reason)
        }
        publishHealthIfDue(at: now)
        publishBubbleIfChanged(at: now)
        flushEvents()
    }

    // MARK: Shutdown

    /// Publishes `offline` and disconnects: the graceful half of SIGTERM.
    public func shutdown() async {
        link.stop()
        // Whether or not the connect has reached this actor yet: a stop moments after the
        // CONNACK, before the birth, must still leave `offline` (the clean DISCONNECT that follows
        // drops the will). Not connected at all, the client refuses it, and nothing is lost.
        let offline = Publication.status(online: false)
        try? environment.mqtt.publish(offline.topic(in: topics), payload: offline.payload, qos: offline.qos,
                                      retain: offline.retain)
        // While disconnect() is awaited other calls reach the actor: none may publish after
        // `offline` (a late `online` would stand retained, with no will to correct it), which
        // the stopping phase, set above, already ensures.
        await environment.mqtt.disconnect()
    }

}

extension LevelEvent {
    /// The `type` of the MQTT event.
    var eventType: EventType {
        switch self {
        case .levelEntered: .levelEntered
        case .levelLeft: .levelLeft
        case .alarmRaised: .alarmRaised
        case .alarmCleared: .alarmCleared
        }
    }
}
