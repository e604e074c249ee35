/// The keys of the `P/health` JSON: written by the agent, read by Home Assistant's diagnostic
/// sensors' value templates. The raw values are the wire names docs/reference/mqtt.md documents.
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
