import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import StrictJSON
import VibrationVocabulary

/// One value for a live key, as it arrived, before the key decides what it means.
package enum SettingInput: Sendable {
    /// A JSON number: degrees for an angle key.
    case number(Double)
    case bool(Bool)
    /// A JSON string or a quoted YAML scalar: text, never a number.
    case string(String)
    /// A raw MQTT payload or a plain YAML scalar: untyped text, read as the key needs (a number
    /// for `level_dwell_s`, an angle with or without unit for `level_tolerance`).
    case text(String)
    case null
    case array
    case object

    /// The value for ``SettingsRejection/value``.
    var shown: String {
        switch self {
        case .number(let value): formatNumber(value)
        case .bool(let value): String(value)
        case .string(let text), .text(let text): text
        case .null: "null"
        case .array: "[…]"
        case .object: "{…}"
        }
    }

    /// "the text \"0.5\"", for "found …".
    var kindDescription: String {
        switch self {
        case .number(let value): "the number \(formatNumber(value))"
        case .bool(let value): "the boolean \(value)"
        case .string(let text): "the text \"\(text.truncatedForMessage)\""
        case .text(let text): "\"\(text.truncatedForMessage)\""
        case .null: "null"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

extension LiveSettings {
    /// The largest config message accepted, in bytes.
    public static let maximumPayloadBytes = 64 * 1024

    /// These settings with a `P/config/set` message applied: a JSON object of live keys, partial
    /// or full.
    ///
    /// All or nothing: when any key or value is invalid, the whole message is rejected and
    /// nothing changes (the receiver is a value; it is never modified).
    ///
    /// Angle keys take a JSON number in degrees, or a string with a unit (`"1.5 mm/m"`,
    /// `"0.2%"`, `"0.1deg"`); `running_threshold` a JSON number in mm/s, or a string with its
    /// unit (`"0.5 mm/s"`, `"0.02 g"`); `vibration` a JSON boolean; the other numeric keys a
    /// JSON number; the rest a string.
    ///
    /// The payload must be strict RFC 8259 JSON (`StrictJSON`): a trailing comma, a comment,
    /// `NaN`, a leading zero, single quotes, invalid UTF-8, `\u0000` in a string, the same key
    /// twice, or anything after the object rejects the whole message, the reason naming the
    /// problem and its line and column.
    ///
    /// - Throws: ``SettingsRejection`` for a payload over 64 KiB, text that is not strict JSON,
    ///   JSON that is not an object, an unknown key (never ignored; the message lists the valid
    ///   ones), a wrong type (a boolean or a string for a number), a non-finite number, a value
    ///   out of its ``rules``, and a broken combination (see ``rules``).
    public func applying(json payload: [UInt8]) throws(SettingsRejection) -> LiveSettings {
        try applying(Self.desiredConfig(json: payload))
    }

    /// Reads a `P/config/set` message: one strict JSON object of settings, perhaps stamped with
    /// `written_at` (Unix seconds, a positive number).
    /// - Throws: ``SettingsRejection`` when it is over 64 KiB, not strict JSON, not an object, or
    ///   its `written_at` is not a positive number. Unknown keys are refused by ``applying(_:)``.
    public static func desiredConfig(json payload: [UInt8]) throws(SettingsRejection) -> DesiredConfig {
        try checkSize(payload)
        let value: JSONValue
        do {
            value = try StrictJSON.parse(payload, allowingScalars: true)
        } catch {
            throw SettingsRejection(nil, value: String(decoding: payload, as: UTF8.self), reason:
                "the message is \(error); nothing was applied. Send one JSON object such as {\"level_tolerance\": 0.1}.")
        }
        guard case .object(var object) = value else {
            throw SettingsRejection(nil, value: String(decoding: payload, as: UTF8.self), reason:
                "a config message is a JSON object of settings, such as {\"level_tolerance\": 0.1},"
                + " not \(value.kindDescription); to set one key alone, publish the bare value to"
                + " P/config/<key>/set.")
        }
        var writtenAt: Double?
        switch object.removeValue(forKey: DesiredConfig.writtenAtKey) {
        case nil, .null?: break
        case .number(let time)? where time > 0: writtenAt = time
        case .integer(let time)? where time > 0: writtenAt = Double(time)
        case let other?:
            throw SettingsRejection(key: DesiredConfig.writtenAtKey, value: other.input.shown, reason:
                "\"written_at\" is when the writer wrote the message, in Unix seconds (a positive number such as"
                + " 1764626400.25); nothing was applied.")
        }
        return DesiredConfig(settings: object, writtenAt: writtenAt)
    }

    /// These settings with a read `P/config/set` message applied (its `written_at` is the
    /// caller's business: see ``WriteOrder``). All or nothing, as ``applying(json:)``.
    public func applying(_ desired: DesiredConfig) throws(SettingsRejection) -> LiveSettings {
        let object = desired.settings
        let unknown = object.keys.filter { LiveKey(rawValue: $0) == nil }.sorted()
        if let first = unknown.first {
            let names = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
            throw SettingsRejection(key: first, value: object[first].map { $0.input.shown }, reason:
                "unknown key\(unknown.count > 1 ? "s" : "") \(names); nothing was applied."
                + " The settings are: \(LiveKey.list).")
        }
        var result = self
        var changed = Set<LiveKey>()
        for key in LiveKey.allCases {
            guard let value = object[key.rawValue] else { continue }
            try result.set(key, value.input)
            changed.insert(key)
        }
        try result.checkCombination(changed: changed)
        return result
    }

    /// These settings with one `P/config/<key>/set` value applied: the bare value as text
    /// (`0.25`, `mm_per_m`, `1.5 mm/m`, `flat`, `true`), with or without JSON quotes. A value
    /// that starts with a quote must be one strict JSON string (`"flat"`, `"1.5 mm\/m"`), with
    /// nothing after it and no `\u0000`.
    ///
    /// - Throws: ``SettingsRejection`` for an unknown key (the message lists the valid ones), a
    ///   payload over 64 KiB or not UTF-8, an invalid value, or a broken combination.
    public func applying(key: String, rawValue payload: [UInt8]) throws(SettingsRejection) -> LiveSettings {
        guard let liveKey = LiveKey(rawValue: key) else {
            throw SettingsRejection(key: key, value: nil, reason:
                "unknown key \"\(key)\"; the settings are: \(LiveKey.list).")
        }
        try Self.checkSize(payload)
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw SettingsRejection(liveKey, value: nil, reason: "the value is not UTF-8 text.")
        }
        var value = String(text.trimmingWhitespace)
        if value.hasPrefix("\"") {
            let quoted: JSONValue
            do {
                quoted = try StrictJSON.parse(value.utf8, allowingScalars: true)
            } catch {
                throw SettingsRejection(liveKey, value: value, reason:
                    "the value starts with a quote but is \(error); send it bare or as one JSON string \"…\".")
            }
            guard case .string(let unquoted) = quoted else {
                throw SettingsRejection(liveKey, value: value, reason:
                    "the value starts with a quote but is not a JSON string; send it bare or as one JSON string \"…\".")
            }
            value = unquoted
        }
        var result = self
        try result.set(liveKey, .text(value))
        try result.checkCombination(changed: [liveKey])
        return result
    }

    private static func checkSize(_ payload: [UInt8]) throws(SettingsRejection) {
        guard payload.count <= maximumPayloadBytes else {
            throw SettingsRejection(key: nil, value: nil, reason:
                "the message is \(payload.count) bytes; a config message is at most \(maximumPayloadBytes) bytes (64 KiB).")
        }
    }

    /// Sets one key, checking its type and its own rule (not the combination rules).
    package mutating func set(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) {
        switch key {
        case .angleUnit:
            angleUnit = try Self.choice(key, input, "angle unit", AngleUnit.allCases.map(\.rawValue), AngleUnit.init(parsing:))
        case .lengthUnit:
            lengthUnit = try Self.choice(key, input, "length unit", LengthUnit.allCases.map(\.rawValue),
                                         LengthUnit.init(parsing:))
        case .levelTolerance:
            levelTolerance = try Self.angle(key, input)
        case .levelHysteresis:
            levelHysteresis = try Self.angle(key, input)
        case .alarmThreshold:
            alarmThreshold = try Self.angle(key, input)
        case .levelDwellS:
            levelDwellS = try Self.number(key, input)
        case .mount:
            let text = try Self.text(key, input)
            do {
                mount = try Mount(parsing: text)
            } catch {
                throw SettingsRejection(key, value: text, reason: error.description)
            }
        case .sampleRateHz:
            // The rule accepts exactly the listed rates (all exact binary fractions), nothing near them.
            sampleRateHz = try Self.number(key, input)
        case .averageWindowS:
            averageWindowS = try Self.number(key, input)
        case .filter:
            filter = try Self.choice(key, input, "filter", GravityFilter.allCases.map(\.rawValue), GravityFilter.init(rawValue:))
        case .publishDeadbandDeg:
            publishDeadbandDeg = try Self.number(key, input)
        case .minIntervalS:
            minIntervalS = try Self.number(key, input)
        case .heartbeatS:
            heartbeatS = try Self.number(key, input)
        case .vibration:
            isVibrationEnabled = try Self.bool(key, input)
        case .vibrationWindowS:
            vibrationWindowS = try Self.number(key, input)
        case .vibrationIntervalS:
            vibrationIntervalS = try Self.number(key, input)
        case .vibrationClass:
            vibrationClass = try Self.choice(key, input, "machine class", MachineClass.allCases.map(\.rawValue),
                                             MachineClass.init(rawValue:))
        case .runningThreshold:
            runningThreshold = try Self.runningThreshold(key, input)
        case .runningHysteresis:
            runningHysteresis = try Self.number(key, input)
        case .runningStartS:
            runningStartS = try Self.number(key, input)
        case .runningStopS:
            runningStopS = try Self.number(key, input)
        case .name:
            name = try Self.checkName(try Self.text(key, input))
        }
    }

    /// A unit or another choice named by its raw value (or what `parse` also reads, such as a
    /// unit's symbol).
    private static func choice<Choice>(_ key: LiveKey, _ input: SettingInput, _ what: String, _ names: [String],
                                       _ parse: (String) -> Choice?) throws(SettingsRejection) -> Choice {
        let text = try text(key, input)
        guard let choice = parse(text) else {
            throw SettingsRejection(key, value: text, reason:
                "unknown \(what); \(key.rawValue) is one of \(names.joined(separator: ", ")).")
        }
        return choice
    }

    /// A JSON boolean, or the text `true` or `false` (a raw MQTT value, a plain YAML scalar).
    /// Nothing else: `on`, `1` or `"true"` in JSON are refused, as YAML 1.2 and JSON read them.
    private static func bool(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) -> Bool {
        switch input {
        case .bool(let value):
            return value
        case .text("true"):
            return true
        case .text("false"):
            return false
        default:
            var reason = "\(key.rawValue) takes true or false, not \(input.kindDescription)."
            if case .text(let text) = input, ["on", "off", "yes", "no", "1", "0"].contains(text.lowercased()) {
                reason += " Write true or false."
            }
            throw SettingsRejection(key, value: input.shown, reason: reason, isWrongType: true)
        }
    }

    /// A JSON number of mm/s, or text with a unit (`RunningThreshold(parsing:)`: `0.5 mm/s`,
    /// `0.02 g`, a bare number being mm/s), range-checked in its unit.
    private static func runningThreshold(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) -> RunningThreshold {
        let threshold: RunningThreshold
        switch input {
        case .number(let value):
            guard let parsed = RunningThreshold(value: value, unit: .millimetresPerSecond) else {
                throw SettingsRejection(key, value: input.shown, reason:
                    "\(key.rawValue) must be a positive, finite number of mm/s, or text with a unit such as \"0.02 g\".")
            }
            threshold = parsed
        case .string(let text), .text(let text):
            do {
                threshold = try RunningThreshold(parsing: text)
            } catch {
                throw SettingsRejection(key, value: text, reason: error.description)
            }
        default:
            throw SettingsRejection(key, value: input.shown, reason:
                "\(key.rawValue) takes a velocity or an acceleration: a number of mm/s, or text with its unit such as"
                + " \"0.5 mm/s\" or \"0.02 g\", not \(input.kindDescription).", isWrongType: true)
        }
        try checkRunningThreshold(key, threshold, shown: input.shown)
        return threshold
    }

    private static func text(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) -> String {
        switch input {
        case .string(let text), .text(let text):
            return text
        default:
            throw SettingsRejection(key, value: input.shown, reason:
                "\(key.rawValue) takes text, not \(input.kindDescription).", isWrongType: true)
        }
    }

    /// A plain number in its rule's unit, range-checked.
    private static func number(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) -> Double {
        let rule = rule(key)
        let value: Double
        switch input {
        case .number(let number):
            value = number
        case .text(let text):
            guard let number = DecimalText.finiteValue(text.trimmingWhitespace) else {
                throw SettingsRejection(key, value: text, reason:
                    "\(key.rawValue) takes a finite decimal number \(rule.quantity),"
                    + " such as \(formatNumber(rule.minimum + rule.step)); \"\(text.truncatedForMessage)\" is not one.",
                    isWrongType: true)
            }
            value = number
        default:
            throw SettingsRejection(key, value: input.shown, reason:
                "\(key.rawValue) takes a number, not \(input.kindDescription).", isWrongType: true)
        }
        guard value.isFinite else {
            throw SettingsRejection(key, value: input.shown, reason: "\(key.rawValue) must be a finite number.")
        }
        try checkRange(key, value, shown: formatNumber(value))
        return value
    }

    /// A number of degrees, or text with a unit (`Angle.parse`), range-checked in degrees.
    private static func angle(_ key: LiveKey, _ input: SettingInput) throws(SettingsRejection) -> Angle {
        let angle: Angle
        switch input {
        case .number(let degrees):
            guard degrees.isFinite else {
                throw SettingsRejection(key, value: input.shown, reason: "\(key.rawValue) must be a finite angle.")
            }
            angle = Angle(degrees: degrees)
        case .string(let text), .text(let text):
            do {
                angle = try Angle.parse(text)
            } catch {
                throw SettingsRejection(key, value: text, reason: error.description)
            }
        default:
            throw SettingsRejection(key, value: input.shown, reason:
                "\(key.rawValue) takes an angle: a number of degrees, or text with a unit such as \"1.5 mm/m\","
                + " not \(input.kindDescription).", isWrongType: true)
        }
        try checkRange(key, angle.degrees, shown: input.shown)
        return angle
    }
}

extension JSONValue {
    var input: SettingInput {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let value): .number(value)
        case .integer(let value): .number(Double(value))
        case .string(let value): .string(value)
        case .array: .array
        case .object: .object
        }
    }

    var kindDescription: String { input.kindDescription }
}
