import Thermal

/// The temperature as the agent knows it: the source in force, its tracker, and what it sent
/// that was refused. A value with no I/O: ``AgentCore`` feeds it the chip's die readings, the
/// thermometer's messages or the thermal zone's, and asks it for the reading the pipeline and
/// the uncertainty go by.
struct TemperatureState: Sendable, Equatable {
    /// `sensor.temperature` as configured.
    let configured: TemperatureSource
    /// The source in force: `configured` once the chip said whether it has a sensor
    /// (``TemperatureSource/resolved(chipHasSensor:)``); `automatic` until then.
    private(set) var source: TemperatureSource
    private(set) var tracker: TemperatureTracker
    /// Values refused since start.
    private(set) var rejectedTotal = 0
    /// Refusals not yet reported in a `temperature_rejected` event.
    private var unreported = 0
    /// When the last `temperature_rejected` went out.
    private var lastReport = -Double.infinity

    /// At most one `temperature_rejected` event per this many seconds: a thermometer that sends
    /// garbage every second is one event a minute, with the count.
    static let rejectionReportInterval = 60.0

    /// When the agent started listening: a source that never said anything is stale once
    /// `temperature_stale_s` has passed since.
    private let startedAt: Double

    init(source: TemperatureSource, staleAfterSeconds: Double, startedAt: Double) {
        configured = source
        self.source = source
        tracker = TemperatureTracker(staleAfterSeconds: staleAfterSeconds)
        self.startedAt = startedAt
    }

    /// The chip opened and said whether it has a sensor: the source in force from now on, and a
    /// warning when `chip` was asked for on a chip without one (then there is none).
    mutating func chipOpened(model: String, hasSensor: Bool) -> String? {
        source = configured.resolved(chipHasSensor: hasSensor)
        guard configured == .chip, !hasSensor else { return nil }
        source = .none
        return "sensor.temperature is chip, but the \(model) has no temperature sensor: Plumb reads no temperature, and"
            + " the uncertainty assumes the workshop may have changed by \(Int(UncertaintyBudget.unknownBandCelsius)) °C."
            + " Set sensor.temperature to mqtt:<topic> (a thermometer on the broker), thermal_zone:0 (the Pi's own)"
            + " or none."
    }

    /// Whether die readings from the chip are the temperature.
    var readsChip: Bool { source == .chip }

    /// The MQTT topic the thermometer publishes on; nil for other sources.
    var topic: String? {
        if case .mqtt(let topic) = configured { return topic }
        return nil
    }

    /// The thermal zone read; nil for other sources.
    var zone: Int? {
        if case .thermalZone(let zone) = configured { return zone }
        return nil
    }

    /// A value from the source at `time`, °C; the refusal when it is not plausible.
    mutating func accept(_ celsius: Double, at time: Double) -> TemperatureRejection? {
        do throws(TemperatureRejection) {
            try tracker.accept(celsius: celsius, at: time)
            return nil
        } catch {
            return error
        }
    }

    /// Counts one refused value at `time`; the number to report when a `temperature_rejected`
    /// event is due (the first, then one a minute), nil when it is held back.
    mutating func countRejection(at time: Double) -> Int? {
        rejectedTotal += 1
        unreported += 1
        guard time - lastReport >= Self.rejectionReportInterval else { return nil }
        lastReport = time
        defer { unreported = 0 }
        return unreported
    }

    /// The temperature at `time`, as the pipeline and the budget take it.
    func reading(at time: Double) -> TemperatureReading {
        tracker.reading(at: time)
    }

    /// Whether the source has gone quiet for `temperature_stale_s` (or never spoke in as long
    /// since the start); false without one.
    func isStale(at time: Double) -> Bool {
        switch reading(at: time) {
        case .stale: return true
        case .fresh: return false
        case .unknown: return source != .none && source != .automatic && time - startedAt >= tracker.staleAfterSeconds
        }
    }

    /// Seconds since the last value; nil before the first.
    func age(at time: Double) -> Double? {
        switch reading(at: time) {
        case .unknown: nil
        case .fresh(_, let age), .stale(_, let age): age
        }
    }
}
