import Contract
import Geometry
import Vibration
import VibrationVocabulary

/// `P/vibration` and `plumb vibration --json`: one window's figures with the band, the zone
/// and the running state, keyed by ``VibrationKey`` (the payload table of docs/guides/vibration.md).
///
/// Figures are rounded to what the chip can tell apart: velocity to 0.01 mm/s, acceleration to
/// 0.1 mg, frequencies to 0.1 Hz (the default window's bins are 1 Hz wide; interpolation
/// resolves a tone to a fraction of a bin, not to more).
public struct VibrationPayload: Sendable {
    public var figures: VibrationFigures
    public var zone: SeverityZone?
    public var machineClass: MachineClass
    public var running: Bool?
    /// When the window ended, as `P/state`'s `ts`.
    public var ts: String

    /// - Parameter ts: now when nil: a window is published as soon as it ends.
    public init(_ figures: VibrationFigures, zone: SeverityZone?, machineClass: MachineClass, running: Bool?,
                ts: String? = nil) {
        self.figures = figures
        self.zone = zone
        self.machineClass = machineClass
        self.running = running
        self.ts = ts ?? timestamp()
    }

    /// The payload as a JSON value.
    public var json: JSONValue {
        var object = Self.object(figures.overall)
        object[VibrationKey.axes.rawValue] = .object(Dictionary(uniqueKeysWithValues: VibrationAxis.allCases.map {
            ($0.rawValue, JSONValue.object(Self.object(figures[$0])))
        }))
        object[VibrationKey.bandHz.rawValue] = .array([.number(figures.band.low.rounded(toDecimals: 2)),
                                                       .number(figures.band.high.rounded(toDecimals: 2))])
        object[VibrationKey.zone.rawValue] = zone.map { .string($0.rawValue) } ?? .null
        object[VibrationKey.vibrationClass.rawValue] = .string(machineClass.rawValue)
        object[VibrationKey.running.rawValue] = running.map(JSONValue.bool) ?? .null
        object[VibrationKey.windowS.rawValue] = .number(figures.windowSeconds.rounded(toDecimals: 3))
        object[VibrationKey.rateHz.rawValue] = .number(figures.rateHz)
        object[VibrationKey.ts.rawValue] = .string(ts)
        return .object(object)
    }

    /// Compact JSON with sorted keys.
    public var bytes: [UInt8] { json.bytes }

    /// The six figures of one axis (or of the vector, overall).
    static func object(_ axis: AxisFigures) -> [String: JSONValue] {
        [
            VibrationKey.velocityRMSMillimetresPerSecond.rawValue: .number(axis.velocityRMS.rounded(toDecimals: 2)),
            VibrationKey.accelerationRMSG.rawValue: .number(axis.accelerationRMS.rounded(toDecimals: 4)),
            VibrationKey.peakG.rawValue: .number(axis.peak.rounded(toDecimals: 4)),
            VibrationKey.crestFactor.rawValue: .number(axis.crestFactor.rounded(toDecimals: 2)),
            VibrationKey.dominantHz.rawValue: .number(axis.dominantHz.rounded(toDecimals: 1)),
            VibrationKey.peaks.rawValue: .array(axis.peaks.map { peak in
                .object([VibrationKey.hz.rawValue: .number(peak.frequencyHz.rounded(toDecimals: 1)),
                         VibrationKey.velocityRMSMillimetresPerSecond.rawValue:
                            .number(peak.velocityRMS.rounded(toDecimals: 2))])
            }),
        ]
    }
}
