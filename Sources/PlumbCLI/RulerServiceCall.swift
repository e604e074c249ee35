import Contract
import Geometry
import RulerService
import Sampling

/// The agent's ruler service (`P/request/<service>`) asked in-process.
///
/// `ruler`, `convert`, `rise` and `shim` check their arguments with messages that name the
/// command's flags, then send the same request an MQTT client would to the same handler: `--json`
/// prints the reply's `data` unchanged and the text is read from it, so the command line and the
/// service can't drift apart.
enum RulerServiceCall {
    /// The `data` of `service`'s reply to `request`.
    ///
    /// - Parameter reading: the reading `rise` and `shim` work from; nil for `ruler` and `convert`.
    /// - Throws: ``UsageError`` for a `bad_request` (something the command's own checks let
    ///   through), ``CommandFailure`` for any other error (`too_large`, `no_reading`), each with
    ///   the service's message.
    static func data(_ service: RulerServiceName, _ request: [String: JSONValue],
                     reading: CurrentReading? = nil) throws -> JSONValue {
        let reply = RulerRequestHandler().reply(to: service, payload: JSONValue.object(request).bytes,
                                                reading: reading)
        if reply.code == nil, let data = reply.data { return data }
        let message = reply.error ?? "the \(service.rawValue) service gave no answer."
        if reply.code == .badRequest { throw UsageError(message) }
        throw CommandFailure(message)
    }
}

extension RulerServiceCall {
    /// `plumb rise` and `plumb shim`: one averaged reading in the mount's level frame, the
    /// service's answer to `request` about it, and that answer printed: `--json` as the data
    /// object with the reading's source added, else as `text` and the calibration it was read with.
    static func printMeasured(_ service: RulerServiceName, for command: String, parsed: ParsedArguments,
                              output: Console, request: (LengthUnit) -> [String: JSONValue],
                              text: (JSONValue, LengthUnit) -> String) throws {
        let resultUnit = try parsed.lengthUnit("--result-unit") ?? Frame.defaultResultUnit
        let (reading, taken) = try CurrentReading.measuring(
            SensorOptions(parsed), for: command, parsed: parsed, mount: parsed.mount(), lengthUnit: resultUnit,
            calibrating: CalibrationOptions(parsed), output: output)
        let data = try data(service, request(resultUnit), reading: reading)
        guard !parsed.has("--json") else { return output.print(data.adding(source: taken.source).jsonText) }
        output.print(text(data, resultUnit) + "\nsensor     " + taken.calibration.label
            + (taken.source == .agent ? " (through the running agent)" : ""))
    }
}

extension CurrentReading {
    /// The reading `rise` and `shim` work from: the running agent's while it owns the chip (its
    /// mount, zero and calibration), else one second's measurement read here in the level frame
    /// of `mount`, with the standard error of that mean. Read here, the agent's zero reference is
    /// not applied: like `plumb read`, the command reads the sensor as mounted.
    static func measuring(_ sensor: SensorOptions, for command: String, parsed: ParsedArguments, mount: Mount,
                          lengthUnit: LengthUnit, calibrating options: CalibrationOptions,
                          output: Console) throws -> (CurrentReading, CommandReading) {
        let reading = try sensor.commandReading(for: command, parsed: parsed, mount: mount, calibrating: options, output: output)
        return (CurrentReading(reading.measurement, age: 0, lengthUnit: lengthUnit), reading)
    }
}

extension JSONValue {
    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// A string's text; nil for anything else.
    var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// An array's elements; empty for anything else.
    var elements: [JSONValue] {
        guard case .array(let elements) = self else { return [] }
        return elements
    }

    /// The object with `"source"` added (`agent` or `chip`), for a command's `--json`.
    func adding(source: ReadingSource) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members["source"] = .string(source.rawValue)
        return .object(members)
    }

    /// Compact JSON with sorted keys, as the service publishes it.
    var jsonText: String { String(decoding: bytes, as: UTF8.self) }
}
