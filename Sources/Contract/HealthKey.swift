/// The keys of the `P/health` JSON: written by the agent, read by Home Assistant's diagnostic
/// sensors' value templates. ``documentation(chipModels:)`` says what each counts, for the health-key table
/// ``MQTTReference`` writes to docs/reference/mqtt.md.
public enum HealthKey: String, Sendable, CaseIterable {
    /// Seconds since the agent started.
    case uptimeS = "uptime_s"
    /// Samples delivered since start.
    case samples
    /// The measured sample rate in Hz; 0 while the sensor is faulty, null before a measurement.
    case sampleRateHz = "sample_rate_hz"
    /// FIFO overruns: reads that found the chip's buffer full.
    case dropped
    /// Sensor failures.
    case i2cErrors = "i2c_errors"
    /// How register reads reach the chip: `rdwr-batched`, `rdwr` (the adapter refused batched
    /// reads), `smbus` or `simulated`; null before the first batch.
    case i2cMode = "i2c_mode"
    /// The chip's model, from its driver's description: `ADXL345`; null before the first start.
    case chip
    /// Connections to the broker after the first.
    case reconnects
    /// Times the broker stopped delivering QoS 1/2 messages to the agent (its probe on `P/probe`
    /// went unanswered) and the agent reconnected to repair it.
    case inboundStalls = "inbound_stalls"
    /// Events waiting for the broker.
    case queuedEvents = "queued_events"
    /// Events dropped because the queue was full.
    case droppedEvents = "dropped_events"
    /// Vibration analysis windows completed since start (0 while `vibration` is off).
    case analysisWindows = "analysis_windows"
    /// The agent's version.
    case version
    /// The broker the agent is connected to, `host:port` (one of `mqtt.brokers`).
    case broker
    /// Where the temperature comes from, as `sensor.temperature` is written once the chip is
    /// known: `chip`, `mqtt:<topic>`, `thermal_zone:<N>` or `none`.
    case temperatureSource = "temperature_source"
    /// Seconds since the source last gave a temperature; null before the first.
    case temperatureAgeS = "temperature_age_s"
    /// Whether the source has said nothing for `sensor.temperature_stale_s`; false for `none`.
    case temperatureStale = "temperature_stale"
    /// Values the source sent that were not temperatures, since start.
    case temperatureRejected = "temperature_rejected"
    /// Whether `learn_drift` is under way.
    case driftLearning = "drift_learning"
}

extension HealthKey {
    /// What the key says, in Markdown, for its row of the reference. `chipModels` are the models a
    /// probe reports (`chip`'s values), which only the drivers know: nothing above them names a chip.
    public func documentation(chipModels: [String]) -> String {
        switch self {
        case .uptimeS: "seconds since the agent started"
        case .samples: "samples delivered since start"
        case .sampleRateHz:
            """
            the rate the chip actually runs at, its offered rate nearest `sensor.sample_rate_hz`, measured since the \
            last health message; 0 while the sensor is faulty; null in the rare health sent before a rate could be \
            measured, after a recovery or a rate change: never a 0 that only means "not measured yet"
            """
        case .dropped: "FIFO overruns: reads that found the chip's buffer full, each losing at least one sample"
        case .i2cErrors: "sensor failures"
        case .i2cMode:
            """
            how register reads reach the chip: `rdwr-batched`, `rdwr` when the adapter refused batched reads and the \
            driver fell back to one read per transfer, which the log says once as \
            `I²C: the adapter refused batched reads …`, `smbus`, or `simulated`; null before the first batch
            """
        case .chip:
            """
            the chip's model as the sampler's probe found it, \(MQTTReference.alternatives(chipModels)); null until the \
            chip has been opened
            """
        case .reconnects: "connections to the broker after the first"
        case .inboundStalls:
            """
            times the broker stopped delivering QoS 1/2 messages to the agent, found by the probe on `P/probe` and \
            repaired by a reconnect: see [Inbound stalls](\(ContractTopic.inboundStalls))
            """
        case .queuedEvents: "events waiting for the broker"
        case .droppedEvents: "events dropped because the queue was full"
        case .analysisWindows: "vibration analysis windows since start, one every 0.1 s while `vibration` is on"
        case .version: "the agent's version"
        case .broker: "the broker it is on, `host:port`, one of `mqtt.brokers`"
        case .temperatureSource:
            "where the temperature comes from: `chip`, `mqtt:<topic>`, `thermal_zone:N` or `none`, as resolved"
        case .temperatureAgeS: "seconds since its last good value; null before one"
        case .temperatureStale: "bool: silent for `sensor.temperature_stale_s`; false for `none`"
        case .temperatureRejected: "values refused since start"
        case .driftLearning: "bool: a `learn_drift` session is under way"
        }
    }
}
