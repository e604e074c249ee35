import FoundationEssentials

/// One device as its retained topics describe it. Built by feeding it messages
/// (``receive(_:payload:)``); every field is nil until the topic that carries it has been seen
/// with a readable payload.
public struct FleetDevice: Sendable, Equatable {
    /// The device's own `base_topic` (``FleetTopic/baseTopic``).
    public var baseTopic: String
    public var id: String
    /// `P/status`: true for `online`, false for `offline`, nil when missing or malformed.
    public var online: Bool?
    /// `P/config`'s `name`.
    public var name: String?
    /// `P/state`'s `level`, or `P/level`'s when the state has none.
    public var level: Bool? { stateLevel ?? levelTopic }
    /// `P/state`'s `tilt`, in ``unit``.
    public var tilt: Double?
    /// `P/state`'s `unit` (`deg`, `percent`, `mm_per_m`, `in_per_ft`).
    public var unit: String?
    public var stable: Bool?
    /// `P/state`'s `sensor`: `ok` or `fault`.
    public var sensor: String?
    public var alarm: Bool?
    /// `P/state`'s `ts` as written.
    public var stateTimestamp: String?
    /// ``stateTimestamp`` read, for the age.
    public var stateTime: Date?
    /// Whether `P/vibration` holds figures (it is cleared while the analysis is off).
    public var hasVibration = false
    /// `P/vibration`'s `running`: nil until the agent decided, or without vibration.
    public var running: Bool?
    /// `P/vibration`'s `zone`.
    public var zone: String?
    /// `P/health`'s `version`.
    public var version: String?
    /// Whether `P/calibration` is there and says which calibration is in force (`method` null
    /// is none).
    public var calibrationMethod: String?
    /// `P/calibration`'s `date`.
    public var calibrationDate: String?
    /// The topics whose payload could not be read.
    public private(set) var malformed: Set<FleetLeaf> = []
    /// The topics seen with a payload (an empty retained payload clears one).
    public private(set) var present: Set<FleetLeaf> = []

    private var stateLevel: Bool?
    private var levelTopic: Bool?

    public init(baseTopic: String, id: String) {
        self.baseTopic = baseTopic
        self.id = id
    }

    /// `P`.
    public var prefix: String { baseTopic + "/" + id }

    /// ``FleetTopic/site(ofBaseTopic:)``.
    public var site: String? { FleetTopic.site(ofBaseTopic: baseTopic) }

    /// Takes in the latest payload of `leaf`, replacing what the previous one said. An empty
    /// payload is a cleared topic; a payload that cannot be read marks the topic malformed and
    /// leaves its fields empty. Never traps on any input.
    public mutating func receive(_ leaf: FleetLeaf, payload: [UInt8]) {
        clear(leaf)
        guard !payload.isEmpty else { return }
        present.insert(leaf)
        if !read(leaf, payload) { malformed.insert(leaf) }
    }

    private mutating func clear(_ leaf: FleetLeaf) {
        present.remove(leaf)
        malformed.remove(leaf)
        switch leaf {
        case .status: online = nil
        case .config: name = nil
        case .level: levelTopic = nil
        case .health: version = nil
        case .calibration: (calibrationMethod, calibrationDate) = (nil, nil)
        case .vibration: (hasVibration, running, zone) = (false, nil, nil)
        case .state:
            (stateLevel, tilt, unit, stable, sensor, alarm) = (nil, nil, nil, nil, nil, nil)
            (stateTimestamp, stateTime) = (nil, nil)
        }
    }

    /// Fills the fields of `leaf` from `payload`; false when it is malformed.
    private mutating func read(_ leaf: FleetLeaf, _ payload: [UInt8]) -> Bool {
        switch leaf {
        case .status:
            switch String(decoding: payload, as: UTF8.self) {
            case "online": online = true
            case "offline": online = false
            default: return false
            }
        case .level:
            switch String(decoding: payload, as: UTF8.self) {
            case "ON": levelTopic = true
            case "OFF": levelTopic = false
            default: return false
            }
        case .state:
            guard let fields = decodePayload(StateFields.self, from: payload) else { return false }
            (stateLevel, tilt, unit, stable, alarm) = (fields.level, fields.tilt, fields.unit, fields.stable, fields.alarm)
            sensor = fields.sensor
            stateTimestamp = fields.ts
            stateTime = fields.ts.flatMap(parseTimestamp)
        case .config:
            guard let fields = decodePayload(ConfigFields.self, from: payload) else { return false }
            name = fields.name
        case .health:
            guard let fields = decodePayload(HealthFields.self, from: payload) else { return false }
            version = fields.version
        case .calibration:
            guard let fields = decodePayload(CalibrationFields.self, from: payload) else { return false }
            (calibrationMethod, calibrationDate) = (fields.method, fields.date)
        case .vibration:
            guard let fields = decodePayload(VibrationFields.self, from: payload) else { return false }
            (hasVibration, running, zone) = (true, fields.running, fields.zone)
        }
        return true
    }

    /// The worst problem the device has, or nil when it is online, its sensor works, no alarm is
    /// raised and it is level.
    public var problem: FleetProblem? {
        if online != true { return .offline }
        if sensor == "fault" { return .sensorFault }
        if alarm == true { return .alarm }
        if level != true { return .notLevel }
        return nil
    }

    /// Seconds from `P/state`'s `ts` to `now`, or nil without a readable one. Negative when the
    /// device's clock is ahead of ours.
    public func stateAge(at now: Date) -> Double? {
        stateTime.map { now.timeIntervalSince($0) }
    }
}

/// What is wrong with a device, worst first: the order `plumb fleet` lists devices in.
public enum FleetProblem: String, Sendable, CaseIterable, Comparable {
    /// `P/status` is `offline` (the agent stopped, or its will), missing or unreadable.
    case offline
    /// `P/state`'s `sensor` is `fault`.
    case sensorFault = "sensor_fault"
    /// `P/state`'s `alarm` is true.
    case alarm
    /// `level` is false, or unknown (no reading yet, no state).
    case notLevel = "not_level"

    /// The words in the table.
    public var text: String {
        switch self {
        case .offline: "offline"
        case .sensorFault: "sensor fault"
        case .alarm: "alarm"
        case .notLevel: "not level"
        }
    }

    public static func < (lhs: FleetProblem, rhs: FleetProblem) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
