import PlumbDomain

/// The live settings as `settings.json` holds them: the live keys, angles as `{"radians": …}`
/// (the unit ``Angle`` stores, so the round trip is exact), units and mount by name.
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
    var publishDeadbandDeg: Double
    var minIntervalS: Double
    var heartbeatS: Double
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
        publishDeadbandDeg = settings.publishDeadbandDeg
        minIntervalS = settings.minIntervalS
        heartbeatS = settings.heartbeatS
        name = settings.name
    }

    /// The settings, checked exactly as an MQTT message would be: a file edited by hand, or
    /// written by a version with other rules, cannot bring in a value MQTT would refuse.
    package func validated() throws(SettingsRejection) -> LiveSettings {
        var settings = LiveSettings(name: name)
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
        try settings.checkCombination(changed: [])
        return settings
    }
}
