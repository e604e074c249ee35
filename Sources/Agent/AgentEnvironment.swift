import Configuration
import Contract
import HomeAssistant
import MQTT
import Persistence
import PictureRendering

/// What the agent talks to and reports, fixed for its life: the topics, the broker client, the
/// state directory, the sampling service, the log, the version, and its clocks.
///
/// One `Sendable` value, so ``AgentCore`` keeps its state apart from its surroundings.
struct AgentEnvironment: Sendable {
    let topics: Topics
    let mqtt: any MQTTClient
    let store: StateStore
    let sampling: SamplingService
    let log: AgentLog
    let version: String
    /// Monotonic seconds: every duration the agent measures (dwell, ages, rates, timeouts).
    let clock: @Sendable () -> Double
    /// Unix seconds, for the writers' `written_at`.
    let wallClock: @Sendable () -> Double
    /// ``clock`` at the start, for `uptime_s`.
    let startTime: Double
    /// Draws the bubble picture's PNG.
    let pictures = PictureRenderer(scale: BubblePicture.pngScale)

    init(topics: Topics, mqtt: any MQTTClient, store: StateStore, sampling: SamplingService, log: AgentLog,
         version: String, clock: @escaping @Sendable () -> Double, wallClock: @escaping @Sendable () -> Double) {
        self.topics = topics
        self.mqtt = mqtt
        self.store = store
        self.sampling = sampling
        self.log = log
        self.version = version
        self.clock = clock
        self.wallClock = wallClock
        startTime = clock()
    }
}
