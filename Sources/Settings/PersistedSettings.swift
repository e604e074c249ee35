import Geometry
import Level
import VibrationVocabulary

/// The live settings as `settings.json` holds them: the live keys, angles as `{"radians": …}`
/// (the unit ``Angle`` stores, so the round trip is exact), units, choices and mount by name,
/// the running threshold as text with its unit (`0.5 mm/s`, which reads back exactly).
///
/// The keys added with the vibration analysis are optional when reading: a file written before
/// them lacks them, and is still the user's settings. ``validated(defaults:)`` fills them in.
package struct PersistedSettings: Codable, Equatable {
    var angleUnit: String
    var lengthUnit: String
    var levelTolerance: Angle
    var levelHysteresis: Angle
    var alarmThreshold: Angle
    var levelDwellS: Double
    var mount: String
    var sampleRateHz: Double
    var averageWindowS: Double
    var filter: String?
    var publishDeadbandDeg: Double
    var minIntervalS: Double
    var heartbeatS: Double
    var vibration: Bool?
    var vibrationWindowS: Double?
    var vibrationIntervalS: Double?
    var vibrationClass: String?
    var runningThreshold: String?
    var runningHysteresis: Double?
    var runningStartS: Double?
    var runningStopS: Double?
    var name: String

    // The live keys, spelled once in LiveKey.
    typealias CodingKeys = LiveKey

    package init(_ settings: LiveSettings) {
        angleUnit = settings.angleUnit.rawValue
        lengthUnit = settings.lengthUnit.rawValue
        levelTolerance = settings.levelTolerance
        levelHysteresis = settings.levelHysteresis
        alarmThreshold = settings.alarmThreshold
        levelDwellS = settings.levelDwellS
        mount = settings.mount.name
        sampleRateHz = settings.sampleRateHz
        averageWindowS = settings.averageWindowS
        filter = settings.filter.rawValue
        publishDeadbandDeg = settings.publishDeadbandDeg
        minIntervalS = settings.minIntervalS
        heartbeatS = settings.heartbeatS
        vibration = settings.isVibrationEnabled
        vibrationWindowS = settings.vibrationWindowS
        vibrationIntervalS = settings.vibrationIntervalS
        vibrationClass = settings.vibrationClass.rawValue
        runningThreshold = settings.runningThreshold.description
        runningHysteresis = settings.runningHysteresis
        runningStartS = settings.runningStartS
        runningStopS = settings.runningStopS
        name = settings.name
    }

    /// The settings, checked exactly as an MQTT message would be: a file edited by hand, or
    /// written by a version with other rules, cannot bring in a value MQTT would refuse.
    ///
    /// - Parameter defaults: where a key the file lacks (one added after it was written) takes
    ///   its value from: the config file's settings, as if MQTT had never changed that key.
    package func validated(defaults: LiveSettings = LiveSettings()) throws(SettingsRejection) -> LiveSettings {
        var settings = defaults
        // Text values go through the same parsers as MQTT's.
        try settings.set(.angleUnit, .string(angleUnit))
        try settings.set(.lengthUnit, .string(lengthUnit))
        try settings.set(.mount, .string(mount))
        try settings.set(.name, .string(name))
        // Numbers are range-checked without conversion, so they are kept exactly.
        for (key, angle) in [(LiveKey.levelTolerance, levelTolerance), (.levelHysteresis, levelHysteresis),
                             (.alarmThreshold, alarmThreshold)] {
            guard angle.isFinite else {
                throw SettingsRejection(key, value: "\(angle.radians)", reason: "\(key.rawValue) is not a finite angle.")
            }
            try LiveSettings.checkRange(key, angle.degrees, shown: formatNumber(angle.degrees))
        }
        settings.levelTolerance = levelTolerance
        settings.levelHysteresis = levelHysteresis
        settings.alarmThreshold = alarmThreshold
        try settings.set(.levelDwellS, .number(levelDwellS))
        try settings.set(.sampleRateHz, .number(sampleRateHz))
        try settings.set(.averageWindowS, .number(averageWindowS))
        try settings.set(.publishDeadbandDeg, .number(publishDeadbandDeg))
        try settings.set(.minIntervalS, .number(minIntervalS))
        try settings.set(.heartbeatS, .number(heartbeatS))
        let optional: [(LiveKey, SettingInput?)] = [
            (.filter, filter.map(SettingInput.string)),
            (.vibration, vibration.map(SettingInput.bool)),
            (.vibrationWindowS, vibrationWindowS.map(SettingInput.number)),
            (.vibrationIntervalS, vibrationIntervalS.map(SettingInput.number)),
            (.vibrationClass, vibrationClass.map(SettingInput.string)),
            (.runningThreshold, runningThreshold.map(SettingInput.string)),
            (.runningHysteresis, runningHysteresis.map(SettingInput.number)),
            (.runningStartS, runningStartS.map(SettingInput.number)),
            (.runningStopS, runningStopS.map(SettingInput.number)),
        ]
        for case let (key, input?) in optional {
            try settings.set(key, input)
        }
        try settings.checkCombination(changed: [])
        return settings
    }
}
