import Configuration
import Contract
import Control
import Geometry
import I2C
import Level
import Persistence
import Settings

/// What the control socket asks of the agent (``ControlService``): the same readings, windows
/// and figures the agent publishes, answered on its actor.
extension AgentCore {
    /// The current reading for `read` and `watch`, with what it went through; the reason when
    /// there is none.
    func controlReading() -> Result<AgentReading, ControlFailure> {
        guard sensor.mayReport, let measurement = pipeline.latest else {
            let why = sensor.faultMessage.map { "the sensor is faulty (\($0)); the agent retries on its own" }
                ?? "the sensor is starting or running a self-test"
            return .failure(ControlFailure(.noReading, "the agent has no current reading: \(why). Try again in a moment."))
        }
        let record = calibrationRecord
        return .success(AgentReading(
            measurement: measurement, age: max(0, clock() - measurement.time), calibrationMethod: record?.method.rawValue,
            calibrationDate: record?.date, mount: settings.mount.name, zeroed: pipeline.zeroGravity != nil,
            angleUnit: settings.angleUnit, tolerance: settings.levelTolerance))
    }

    /// The last vibration window, as `P/vibration` carries it, and its number (which tells a
    /// new window from the last one asked for); nil while there is none.
    func controlVibrationWindow() -> (window: Int, payload: JSONValue)? {
        vibration.latestPayload(machineClass: settings.vibration.machineClass).map { (vibration.windowsAnalysed, $0) }
    }

    /// Why ``controlVibrationWindow()`` has none, with what to do.
    func controlVibrationAbsence() -> ControlFailure {
        if let refusal = vibration.refusal { return ControlFailure(.noVibration, refusal) }
        guard settings.vibration.isEnabled else {
            return ControlFailure(.noVibration, "the agent's vibration analysis is off; turn it on with P/config/set"
                + " {\"vibration\": true}, or stop the agent and run plumb vibration --direct.")
        }
        return ControlFailure(.notYet, "the agent has not finished its first vibration window yet; try again in a few seconds.")
    }

    /// What the sampler sees of the bus, for `probe`: the mode and the samples per FIFO drain.
    func controlSamplingFigures() -> JSONValue {
        .object([
            "i2c_mode": health.i2cMode.map { .string($0.rawValue) } ?? .null,
            "samples_per_drain": health.samplesPerDrain.map { .number($0.rounded(toDecimals: 2)) } ?? .null,
            "sample_rate_hz": .number(settings.sampleRateHz),
        ])
    }
}

extension EventType {
    /// The events a calibration started on the control socket reports to its command.
    static let calibrationEvents: Set<EventType> = [.calibrationProgress, .calibrationApplied, .calibrationRejected]
}

extension AgentEvent {
    /// The `P/event` object: the details with `type` and `ts`.
    var wireObject: [String: JSONValue] {
        var object = details
        object["type"] = .string(type.rawValue)
        object["ts"] = .string(ts)
        return object
    }
}
