/// Where Plumb reads the temperature its drift compensation and uncertainty go by: the
/// `sensor.temperature` setting.
///
/// - `chip`: the accelerometer's own die sensor (the ADXL355's TEMP registers, the MPU-6050's
///   TEMP_OUT), read between FIFO drains; the default where the chip has one.
/// - `mqtt:<topic>`: a thermometer elsewhere publishing on the broker, a plain number or JSON with
///   `temperature` or `value` (°C, or °F when the message says so).
/// - `thermal_zone:N`: the Pi's SoC, `/sys/class/thermal/thermal_zoneN/temp` (millidegrees).
/// - `none`: no temperature; the uncertainty then assumes the workshop may be anywhere within
///   a band of the calibration's temperature.
public enum TemperatureSource: Sendable, Hashable, CustomStringConvertible {
    /// `chip` where the chip has a sensor, else `none`: the default, decided once the chip is known.
    case automatic
    case chip
    case mqtt(topic: String)
    case thermalZone(Int)
    case none

    /// The highest zone number accepted: Linux numbers them from 0, a Pi has one or two.
    public static let maximumZone = 999

    /// The forms `sensor.temperature` takes, for messages.
    public static let forms = "chip, mqtt:<topic>, thermal_zone:<N> or none"

    /// Parses a `sensor.temperature` value.
    ///
    /// - Throws: ``TemperatureSourceError`` saying what was wrong and what to write.
    public init(parsing text: String) throws(TemperatureSourceError) {
        switch text {
        case "chip": self = .chip
        case "none": self = .none
        case "auto": self = .automatic
        default:
            if text.hasPrefix("mqtt:") {
                let topic = String(text.dropFirst("mqtt:".count))
                if let problem = Self.topicProblem(topic) { throw TemperatureSourceError(text: text, problem: problem) }
                self = .mqtt(topic: topic)
            } else if text.hasPrefix("thermal_zone:") {
                let digits = text.dropFirst("thermal_zone:".count)
                guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                      let zone = Int(digits), zone <= Self.maximumZone else {
                    throw TemperatureSourceError(text: text, problem: "the zone is a whole number from 0 to"
                        + " \(Self.maximumZone), as in thermal_zone:0 (ls /sys/class/thermal lists them)")
                }
                self = .thermalZone(zone)
            } else {
                throw TemperatureSourceError(text: text, problem: "it is none of \(Self.forms)")
            }
        }
    }

    /// Why `topic` cannot be subscribed to for one thermometer's readings; nil when it can.
    static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty { return "name the topic after mqtt:, as in mqtt:workshop/temperature" }
        if topic.utf8.count > 65_535 { return "an MQTT topic is at most 65,535 bytes" }
        if topic.contains("+") || topic.contains("#") {
            return "the topic of one thermometer has no wildcards (+ or #); name its exact topic"
        }
        if topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "an MQTT topic has no control characters"
        }
        return nil
    }

    /// What `sensor.temperature` is written as: `mqtt:workshop/temperature`; `auto` for the default.
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .chip: "chip"
        case .mqtt(let topic): "mqtt:" + topic
        case .thermalZone(let zone): "thermal_zone:\(zone)"
        case .none: "none"
        }
    }

    /// The source in force once the chip is known: `automatic` becomes `chip` when it has a
    /// sensor and `none` when not; the others stay.
    public func resolved(chipHasSensor: Bool) -> TemperatureSource {
        guard self == .automatic else { return self }
        return chipHasSensor ? .chip : .none
    }
}

/// A `sensor.temperature` value Plumb cannot read.
public struct TemperatureSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value as written.
    public var text: String
    /// What is wrong, and what to write instead.
    public var problem: String

    public var description: String {
        "\"\(text)\" is not a temperature source: \(problem). Write \(TemperatureSource.forms)."
    }
}
