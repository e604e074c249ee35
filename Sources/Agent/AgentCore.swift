import Accelerometers
import Configuration
import Contract
import HomeAssistant
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MQTT
import PlumbDomain
import RulerService
import Sampling
import Settings

/// The agent's state and decisions: readings in, MQTT publications out.
///
/// An actor, so the sampling thread, the MQTT callbacks, the ticker and signals all reach the
/// state one at a time. Nothing here blocks: publishing is a non-blocking libmosquitto call.
public actor AgentCore {
    let topics: Topics
    let mqtt: any MQTTClient
    let store: StateStore
    let sampling: SamplingService
    let log: AgentLog
    let version: String
    let startTime: Double
    let clock: @Sendable () -> Double

    // Settings
    var defaults: LiveSettings
    var settings: LiveSettings
    /// Whether the settings came from MQTT (now or persisted) rather than from the file.
    var settingsFromMQTT: Bool
    /// The zero reference as the device-frame gravity it was taken at; see ``attitude(of:)``.
    var zeroGravity: Vector3?
    var zero: ZeroReference?

    // Pipeline state
    var window: MovingAverage
    var averaged: Vector3?
    var attitude: Attitude?
    var levelMachine: LevelStateMachine
    var policy: PublishPolicy
    var sensorOK = false
    var sensorFaultMessage: String?

    // Publishing state
    var connected = false
    var connections = 0
    var seq = 0
    var events: BoundedQueue<AgentEvent>
    /// When `P/health` was last sent, and whether it ever was (the first waits for a rate).
    var lastHealth = -Double.infinity
    var healthSent = false
    var samplesDelivered = 0
    /// The sample counter where the current rate measurement starts, and at the last reading.
    var rateMark: SampleCount?
    var latestSampleCount: SampleCount?
    var overruns = 0
    var stopping = false
    /// When the last block reached the average, for the age of a reading.
    var lastIngestTime: Double?
    /// The standard error of the last block's mean, device frame: the noise estimate while the
    /// window holds fewer than two blocks (just started, or a 0.1 s window).
    var lastBlockStandardError = Vector3.zero

    // Home Assistant
    let homeAssistant: HomeAssistantOptions?
    var publishedDiscovery: [String: [UInt8]] = [:]
    var homeAssistantGeneration = 0
    /// Level-frame gravity of the last state message: what the bubble picture shows.
    var stateGravity: Vector3?
    var lastBubble: String?
    var lastBubbleTime = -Double.infinity
    var bubbleNeedsSending = true

    /// Seconds between `P/health` messages: the period Home Assistant's diagnostics expect.
    static let healthInterval = Double(Discovery.healthPeriodS)
    /// Events kept while the broker is away.
    static let eventQueueCapacity = 200

    public init(topics: Topics, mqtt: any MQTTClient, store: StateStore, sampling: SamplingService,
                defaults: LiveSettings, settings: LiveSettings, settingsFromMQTT: Bool, zeroGravity: Vector3?, log: AgentLog,
                version: String, homeAssistant: HomeAssistantOptions? = nil, clock: @escaping @Sendable () -> Double) {
        self.topics = topics
        self.mqtt = mqtt
        self.store = store
        self.sampling = sampling
        self.defaults = defaults
        self.settings = settings
        self.settingsFromMQTT = settingsFromMQTT
        self.log = log
        self.version = version
        self.homeAssistant = homeAssistant
        self.clock = clock
        startTime = clock()
        levelMachine = LevelStateMachine(thresholds: Self.thresholds(settings))
        policy = Self.policy(settings)
        events = BoundedQueue(capacity: Self.eventQueueCapacity)
        window = MovingAverage(capacity: Self.windowBlocks(settings))
        self.zeroGravity = zeroGravity
        zero = Self.zeroReference(zeroGravity, mount: settings.mount)
    }

    // MARK: Readings

    /// Feeds one update from the sampling thread.
    public func handle(_ update: SamplingUpdate) {
        switch update {
        case .started(let sampling):
            log.info("sensor running at \(sampling.rateHz) Hz, ±\(sampling.rangeG) g")
            sensorOK = true
            restartRateMeasurement()
        case .recovered(let sampling):
            log.info("sensor recovered at \(sampling.rateHz) Hz")
            sensorOK = true
            restartRateMeasurement()
            sensorFaultMessage = nil
            emit(AgentEvent(type: .sensorRecovered, details: [:]))
            policy.force()
        case .fault(let message, let retryIn):
            if sensorFaultMessage == nil {
                log.error(Sentences.join("sensor fault: \(message)", "Retrying in \(retryIn) s, backing off to 30 s."))
                emit(AgentEvent(type: .sensorFault, details: ["error": .string(message)]))
                sensorOK = false
                sensorFaultMessage = message
                // Nothing from before the fault may be reported, zeroed on or averaged with what
                // comes after the recovery.
                window.reset()
                averaged = nil
                attitude = nil
                lastIngestTime = nil
                publishState(reason: "fault")
            } else {
                log.debug("sensor still faulty: \(message)")
            }
        case .reading(let reading, let statistics):
            overruns = statistics.overruns
            countSamples(statistics.samples, at: clock())
            let root = Double(max(1, reading.samples)).squareRoot()
            lastBlockStandardError = Vector3(x: reading.spread.x / root, y: reading.spread.y / root, z: reading.spread.z / root)
            ingest(reading.gravity)
        }
    }

    func ingest(_ block: Vector3) {
        window.resize(capacity: Self.windowBlocks(settings))
        window.add(block)
        guard let mean = window.mean else { return }
        averaged = mean
        let current = attitude(of: mean)
        attitude = current
        let now = clock()
        lastIngestTime = now
        let levelWasKnown = levelMachine.isLevel != nil
        let changes = levelMachine.update(tilt: current.tilt, at: now)
        for change in changes {
            emit(AgentEvent(type: change.eventType, details: ["tilt_deg": .number(current.tilt.degrees.rounded(toDecimals: 4))]))
        }
        // The first reading decides the state without an event; `P/level` still needs it.
        if !levelWasKnown || changes.contains(where: { $0 == .levelEntered || $0 == .levelLeft }) {
            publishLevel()
        }
        if let reason = policy.decide(attitude: current, flipped: !changes.isEmpty, at: now) {
            publishState(reason: "\(reason)")
        }
    }

    /// Device-frame gravity → mount → zero reference → angles.
    func attitude(of deviceGravity: Vector3) -> Attitude {
        Attitude(gravity: levelGravity(of: deviceGravity))
    }

    /// Device-frame gravity → mount → zero reference: gravity as the machine's surface sees it.
    func levelGravity(of deviceGravity: Vector3) -> Vector3 {
        let gravity = settings.mount.levelFrame(deviceGravity)
        return zero?.corrected(gravity) ?? gravity
    }

    /// The filtered reading for the ruler service's `rise` and `shim`; nil while there is none
    /// (starting, or a sensor fault).
    public func currentReading() -> CurrentReading? {
        guard sensorOK, let averaged, let lastIngestTime else { return nil }
        // The zero reference turns the frame by the mounting error, a few degrees at most: too
        // little to mix the axes' noise meaningfully, so only the mount's remap is applied.
        let spread = settings.mount.levelFrame(window.standardError ?? lastBlockStandardError)
        let standardError = Vector3(x: abs(spread.x), y: abs(spread.y), z: abs(spread.z))
        return CurrentReading(levelGravity: levelGravity(of: averaged), standardError: standardError,
                              age: max(0, clock() - lastIngestTime), lengthUnit: settings.lengthUnit)
    }

    // MARK: Ticks

    /// Called every second: heartbeats while no readings arrive, health, queued events.
    public func tick() {
        let now = clock()
        if let attitude, sensorOK {
            if let reason = policy.decide(attitude: attitude, flipped: false, at: now) { publishState(reason: "\(reason)") }
        } else if now - policy.lastPublishTime >= settings.heartbeatS {
            publishState(reason: "heartbeat")
        }
        publishHealthIfDue(at: now)
        publishBubbleIfChanged(at: now)
        flushEvents()
    }

    // MARK: Shutdown

    /// Publishes `offline` and disconnects: the graceful half of SIGTERM.
    public func shutdown() async {
        stopping = true
        if connected {
            try? mqtt.publish(topics.status, payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
        }
        // While disconnect() is awaited other calls reach the actor: none may publish after
        // `offline` (a late `online` would stand retained, with no will to correct it).
        connected = false
        await mqtt.disconnect()
    }

    /// Block means in the moving average: `average_window_s` of samples in blocks of the size
    /// the sampling service uses at this rate (longer than 0.1 s at low rates).
    static func windowBlocks(_ settings: LiveSettings) -> Int {
        let perBlock = Double(SamplingService.samplesPerBlock(rateHz: settings.sampleRateHz))
        return max(1, Int((settings.averageWindowS * settings.sampleRateHz / perBlock).rounded()))
    }

    static func thresholds(_ settings: LiveSettings) -> LevelThresholds {
        LevelThresholds(tolerance: settings.levelTolerance, hysteresis: settings.levelHysteresis,
                        alarmThreshold: settings.alarmThreshold, dwell: settings.levelDwellS)
    }

    static func policy(_ settings: LiveSettings) -> PublishPolicy {
        PublishPolicy(deadband: Angle(degrees: settings.publishDeadbandDeg), minInterval: settings.minIntervalS,
                      heartbeat: settings.heartbeatS)
    }

    static func zeroReference(_ deviceGravity: Vector3?, mount: Mount) -> ZeroReference? {
        deviceGravity.flatMap { ZeroReference(referenceGravity: mount.levelFrame($0)) }
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
