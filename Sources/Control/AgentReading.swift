import Contract
import Geometry
import Level
import Thermal

/// A reading as the agent answers `read` and `watch`: its measurement after its calibration,
/// mount, zero and filter, how old it is, and what it went through.
///
/// The command line turns it back into the ``Measurement`` its own readings would be, so every
/// command prints the agent's readings the way it prints the chip's.
public struct AgentReading: Sendable, Hashable {
    public var measurement: Measurement
    /// Seconds since the newest block of the reading was complete.
    public var age: Double
    /// The calibration applied (`six_point`, `reversal`), and its date; nil when the agent reads raw.
    public var calibrationMethod: String?
    public var calibrationDate: String?
    /// The mount in force, as the settings name it.
    public var mount: String
    /// Whether a zero reference is in force.
    public var zeroed: Bool
    /// The agent's `angle_unit`, for a client that prints in it by default.
    public var angleUnit: AngleUnit
    /// The agent's level tolerance, which decided ``Measurement/isLevel``.
    public var tolerance: Angle

    public init(measurement: Measurement, age: Double, calibrationMethod: String?, calibrationDate: String?,
                mount: String, zeroed: Bool, angleUnit: AngleUnit, tolerance: Angle) {
        self.tolerance = tolerance
        self.measurement = measurement
        self.age = age
        self.calibrationMethod = calibrationMethod
        self.calibrationDate = calibrationDate
        self.mount = mount
        self.zeroed = zeroed
        self.angleUnit = angleUnit
    }

    /// The `reading` object.
    public var json: JSONValue {
        func vector(_ v: Vector3, _ decimals: Int) -> JSONValue {
            .array([v.x, v.y, v.z].map { .number($0.rounded(toDecimals: decimals)) })
        }
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        return .object([
            "gravity_g": vector(measurement.deviceGravity, 6),
            "level_gravity_g": vector(measurement.levelGravity, 6),
            "standard_error_g": vector(measurement.standardError, 7),
            "noise_g": vector(measurement.noise, 7),
            "stillness": .string(measurement.stillness.wireName),
            "level": flag(measurement.isLevel),
            "alarm": flag(measurement.isAlarm),
            "age_s": .number(age.rounded(toDecimals: 3)),
            "calibration": calibrationMethod.map { .object(["method": .string($0), "date": .string(calibrationDate ?? "")]) }
                ?? .null,
            "mount": .string(mount),
            "zeroed": .bool(zeroed),
            "angle_unit": .string(angleUnit.rawValue),
            "tolerance_deg": .number(tolerance.degrees.rounded(toDecimals: 6)),
            "temperature_c": measurement.temperatureCelsius.map { .number($0.rounded(toDecimals: 3)) } ?? .null,
            // The budget's terms, 1σ in g, so the client reports the agent's uncertainty exactly.
            "uncertainty_g": .object([
                "noise": .number(measurement.uncertainty.noise.rounded(toDecimals: 9)),
                "calibration": .number(measurement.uncertainty.calibration.rounded(toDecimals: 9)),
                "temperature": .number(measurement.uncertainty.temperature.rounded(toDecimals: 9)),
                "quantisation": .number(measurement.uncertainty.quantisation.rounded(toDecimals: 9)),
            ]),
        ])
    }

    /// Reads a `reading` object; `now` (monotonic seconds) dates the measurement from its age.
    ///
    /// - Throws: ``ControlFailure`` `malformed` naming the field that is missing or wrong.
    public init(json value: JSONValue, now: Double) throws(ControlFailure) {
        guard case .object(let fields) = value else { throw Self.bad("reading") }
        func vector(_ key: String) throws(ControlFailure) -> Vector3 {
            guard case .array(let items)? = fields[key], items.count == 3 else { throw Self.bad(key) }
            var values: [Double] = []
            for item in items {
                switch item {
                case .number(let v) where v.isFinite: values.append(v)
                case .integer(let v): values.append(Double(v))
                default: throw Self.bad(key)
                }
            }
            return Vector3(x: values[0], y: values[1], z: values[2])
        }
        func flag(_ key: String) throws(ControlFailure) -> Bool? {
            switch fields[key] {
            case .bool(let v)?: return v
            case .null?: return nil
            default: throw Self.bad(key)
            }
        }
        let levelGravity = try vector("level_gravity_g")
        guard case .string(let stillnessName)? = fields["stillness"],
              let stillness = Stillness(wireName: stillnessName) else { throw Self.bad("stillness") }
        let age: Double
        switch fields["age_s"] {
        case .number(let v)? where v.isFinite && v >= 0: age = v
        case .integer(let v)? where v >= 0: age = Double(v)
        default: throw Self.bad("age_s")
        }
        guard case .string(let mount)? = fields["mount"] else { throw Self.bad("mount") }
        guard case .bool(let zeroed)? = fields["zeroed"] else { throw Self.bad("zeroed") }
        guard case .string(let unitName)? = fields["angle_unit"], let unit = AngleUnit(rawValue: unitName) else {
            throw Self.bad("angle_unit")
        }
        switch fields["tolerance_deg"] {
        case .number(let v)? where v.isFinite && v >= 0: tolerance = Angle(degrees: v)
        case .integer(let v)? where v >= 0: tolerance = Angle(degrees: Double(v))
        default: throw Self.bad("tolerance_deg")
        }
        switch fields["calibration"] {
        case .null?:
            calibrationMethod = nil
            calibrationDate = nil
        case .object(let calibration)?:
            guard case .string(let method)? = calibration["method"], case .string(let date)? = calibration["date"] else {
                throw Self.bad("calibration")
            }
            calibrationMethod = method
            calibrationDate = date
        default: throw Self.bad("calibration")
        }
        let temperature: Double?
        switch fields["temperature_c"] {
        case .number(let v)? where v.isFinite: temperature = v
        case .integer(let v)?: temperature = Double(v)
        case .null?: temperature = nil
        default: throw Self.bad("temperature_c")
        }
        guard case .object(let terms)? = fields["uncertainty_g"] else { throw Self.bad("uncertainty_g") }
        func term(_ key: String) throws(ControlFailure) -> Double {
            switch terms[key] {
            case .number(let v)? where v.isFinite && v >= 0: return v
            case .integer(let v)? where v >= 0: return Double(v)
            default: throw Self.bad("uncertainty_g." + key)
            }
        }
        let uncertainty = UncertaintyBudget(noise: try term("noise"), calibration: try term("calibration"),
                                            temperature: try term("temperature"), quantisation: try term("quantisation"))
        measurement = Measurement(
            deviceGravity: try vector("gravity_g"), levelGravity: levelGravity, attitude: Attitude(gravity: levelGravity),
            standardError: try vector("standard_error_g"), noise: try vector("noise_g"), stillness: stillness,
            isLevel: try flag("level"), isAlarm: try flag("alarm"), events: [], time: now - age,
            temperatureCelsius: temperature, uncertainty: uncertainty)
        self.age = age
        self.mount = mount
        self.zeroed = zeroed
        angleUnit = unit
    }

    private static func bad(_ field: String) -> ControlFailure {
        ControlFailure(.malformed, "the agent's reading has no valid \"\(field)\"; is the agent the same version as this"
            + " command (plumb --version)?")
    }
}

extension Stillness {
    /// `settling`, `stable` or `moving`.
    public var wireName: String {
        switch self {
        case .settling: "settling"
        case .stable: "stable"
        case .moving: "moving"
        }
    }

    init?(wireName: String) {
        switch wireName {
        case "settling": self = .settling
        case "stable": self = .stable
        case "moving": self = .moving
        default: return nil
        }
    }
}
