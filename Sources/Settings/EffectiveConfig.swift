import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level
import VibrationVocabulary

/// The settings in force, as `P/config` reports them: every live key, always.
///
/// Thresholds are numbers of degrees whatever `angle_unit` says (the unit only changes how
/// readings are shown), rounded to nine decimals so 0.1 reads 0.1. Units, `filter` and
/// `vibration_class` are their raw names, the mount its name (`flat`, `upright`, `x,-z,y`),
/// `vibration` a boolean, and `running_threshold` text with its unit (`0.5 mm/s`, `0.02 g`),
/// since it is a velocity or an acceleration. Sending this object back as a `P/config/set`
/// message is accepted and changes nothing measurable.
public struct EffectiveConfig: Sendable, Equatable, Codable {
    public var angleUnit: String
    public var lengthUnit: String
    public var levelTolerance: Double
    public var levelHysteresis: Double
    public var alarmThreshold: Double
    public var levelDwellS: Double
    public var mount: String
    public var sampleRateHz: Double
    public var averageWindowS: Double
    public var filter: String
    public var publishDeadbandDeg: Double
    public var minIntervalS: Double
    public var heartbeatS: Double
    public var vibration: Bool
    public var vibrationWindowS: Double
    public var vibrationIntervalS: Double
    public var vibrationClass: String
    /// `0.5 mm/s`, `0.02 g`.
    public var runningThreshold: String
    public var runningHysteresis: Double
    public var runningStartS: Double
    public var runningStopS: Double
    public var name: String

    // The live keys, spelled once in LiveKey.
    typealias CodingKeys = LiveKey
}

extension LiveSettings {
    /// The effective config: every key, thresholds in degrees.
    public var effective: EffectiveConfig {
        EffectiveConfig(
            angleUnit: angleUnit.rawValue,
            lengthUnit: lengthUnit.rawValue,
            levelTolerance: roundedToNanos(levelTolerance.degrees),
            levelHysteresis: roundedToNanos(levelHysteresis.degrees),
            alarmThreshold: roundedToNanos(alarmThreshold.degrees),
            levelDwellS: levelDwellS,
            mount: mount.name,
            sampleRateHz: sampleRateHz,
            averageWindowS: averageWindowS,
            filter: filter.rawValue,
            publishDeadbandDeg: publishDeadbandDeg,
            minIntervalS: minIntervalS,
            heartbeatS: heartbeatS,
            vibration: isVibrationEnabled,
            vibrationWindowS: vibrationWindowS,
            vibrationIntervalS: vibrationIntervalS,
            vibrationClass: vibrationClass.rawValue,
            runningThreshold: runningThreshold.description,
            runningHysteresis: runningHysteresis,
            runningStartS: runningStartS,
            runningStopS: runningStopS,
            name: name
        )
    }

    /// ``effective`` as compact JSON with sorted keys, for the retained `P/config`: equal
    /// settings give equal bytes.
    public func encodedEffectiveConfig() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field is a finite number, a boolean or a string, so encoding cannot fail.
        return (try? encoder.encode(effective)).map(Array.init) ?? Array("{}".utf8)
    }
}
