import Contract
import StrictJSON

/// A thermometer's message on the `mqtt:<topic>` temperature source, read strictly.
///
/// Accepted, as the thermometers people already have publish them:
/// - a plain number, `21.5` (ESPHome, Home Assistant's statestream), optionally with its unit
///   written after it: `21.5 °C`, `70.7°F`, `21.5C`;
/// - a JSON object with a number under `temperature` (Zigbee2MQTT, most bridges) or `value`, in
///   °C unless a `unit`, `temperature_unit` or `unit_of_measurement` key says `°F` (or `F`,
///   `fahrenheit`, `degF`; `°C`, `C`, `celsius`, `degC` say Celsius).
///
/// Everything else is refused with the reason, and the reading ignored: text that is no number,
/// JSON with neither key, a null or non-numeric value, an unknown unit, a message over 4 KiB.
/// Whether the figure is plausible is the ``TemperatureTracker``'s to judge.
enum TemperatureMessage {
    /// The largest message read: a thermometer's report is tens of bytes; bridges add a few
    /// more fields.
    static let maximumBytes = 4096

    /// The temperature in °C that `payload` carries.
    static func celsius(_ payload: [UInt8]) -> Result<Double, TemperatureMessageError> {
        guard payload.count <= maximumBytes else {
            return .failure(TemperatureMessageError("the message is \(payload.count) bytes; a temperature is a number"
                                                    + " or a small JSON object of at most \(maximumBytes) bytes"))
        }
        let trimmed = payload.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed()
        guard let first = trimmed.first else {
            return .failure(TemperatureMessageError("the message is empty"))
        }
        if first == UInt8(ascii: "{") { return object(Array(trimmed)) }
        return plain(Array(trimmed))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `21.5`, `21.5 °C`, `70.7°F`.
    private static func plain(_ bytes: [UInt8]) -> Result<Double, TemperatureMessageError> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(TemperatureMessageError("the message is not UTF-8 text"))
        }
        let number = text.prefix { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
        var rest = text.dropFirst(number.count)
        if rest.first == " " { rest = rest.dropFirst() }
        let scale: TemperatureScale?
        if rest.isEmpty {
            scale = .celsius
        } else {
            scale = TemperatureScale(unit: String(rest))
        }
        guard let scale else {
            return .failure(TemperatureMessageError("\"\(text.escapedForLog(limit: 32))\" is not a number of degrees;"
                                                    + " send a number such as 21.5, or JSON such as {\"temperature\": 21.5}"))
        }
        // JSON's number grammar, so `0x15`, `1_000`, `inf` and `nan` are refused as in JSON messages.
        guard case .success(let value) = Result(catching: { () throws(StrictJSONError) in
            try StrictJSON.parse(Array(number.utf8), allowingScalars: true)
        }), let celsius = value.numberValue else {
            return .failure(TemperatureMessageError("\"\(text.escapedForLog(limit: 32))\" is not a number of degrees;"
                                                    + " send a number such as 21.5, or JSON such as {\"temperature\": 21.5}"))
        }
        return .success(scale.celsius(celsius))
    }

    /// `{"temperature": 21.5}`, `{"value": 70.7, "unit": "°F"}`.
    private static func object(_ bytes: [UInt8]) -> Result<Double, TemperatureMessageError> {
        let parsed: JSONValue
        do throws(StrictJSONError) {
            parsed = try StrictJSON.parse(bytes, allowingScalars: false)
        } catch {
            return .failure(TemperatureMessageError("the message is not valid JSON (\(error.reason))"))
        }
        guard case .object(let object) = parsed else {
            return .failure(TemperatureMessageError("the message is not a JSON object"))
        }
        guard let key = ["temperature", "value"].first(where: { object[$0] != nil }), let field = object[key] else {
            return .failure(TemperatureMessageError("the JSON has neither \"temperature\" nor \"value\"; send"
                                                    + " {\"temperature\": 21.5}"))
        }
        guard let number = field.numberValue else {
            return .failure(TemperatureMessageError("\"\(key)\" is \(field.kindWord), not a number of degrees"))
        }
        var scale = TemperatureScale.celsius
        for unitKey in ["unit", "temperature_unit", "unit_of_measurement"] {
            guard let unit = object[unitKey] else { continue }
            guard case .string(let text) = unit, let named = TemperatureScale(unit: text) else {
                return .failure(TemperatureMessageError("\"\(unitKey)\" is not a temperature unit; write \"°C\" or \"°F\""))
            }
            scale = named
        }
        return .success(scale.celsius(number))
    }
}

/// Celsius or Fahrenheit, as a thermometer's message names it.
enum TemperatureScale: Sendable, Equatable {
    case celsius
    case fahrenheit

    /// `°C`, `C`, `celsius`, `degC`; `°F`, `F`, `fahrenheit`, `degF` (any case); nil for others.
    init?(unit: String) {
        switch unit.lowercased() {
        case "°c", "c", "celsius", "degc", "℃": self = .celsius
        case "°f", "f", "fahrenheit", "degf", "℉": self = .fahrenheit
        default: return nil
        }
    }

    func celsius(_ value: Double) -> Double {
        switch self {
        case .celsius: value
        case .fahrenheit: (value - 32) * 5 / 9
        }
    }
}

/// Why a thermometer's message was not read as a temperature.
struct TemperatureMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension JSONValue {
    /// `a string`, `null`, …: what a value is, for messages.
    fileprivate var kindWord: String {
        switch self {
        case .string: "a string"
        case .number, .integer: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}
