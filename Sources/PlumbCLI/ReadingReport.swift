import Foundation
import PlumbDomain

/// One reading as `plumb read` prints it; the MQTT state message extends the same schema.
///
/// JSON keys: `roll`, `pitch`, `tilt` (in `unit`; null for a slope unit at 90° or more, where
/// no finite slope exists), `unit`, `level`, `gravity` {`x`,`y`,`z`} in g (device frame).
struct ReadingReport: Encodable {
    var roll: Double?
    var pitch: Double?
    var tilt: Double?
    var unit: String
    var level: Bool
    var gravity: GravityFigures

    struct GravityFigures: Encodable {
        var x: Double
        var y: Double
        var z: Double
    }

    private enum CodingKeys: String, CodingKey { case roll, pitch, tilt, unit, level, gravity }

    init(attitude: Attitude, unit: AngleUnit, tolerance: Angle, deviceGravity: Vector3) {
        let decimals = unit.displayDecimals
        roll = attitude.roll.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        pitch = attitude.pitch.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        tilt = attitude.tilt.value(in: unit).map { $0.rounded(toDecimals: decimals) }
        self.unit = unit.rawValue
        level = attitude.isLevel(tolerance: tolerance)
        let figures = deviceGravity.rounded(toDecimals: 5)
        gravity = GravityFigures(x: figures.x, y: figures.y, z: figures.z)
    }

    // Explicit so that nil angles are written as null rather than left out: a consumer can rely
    // on every key being present.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roll, forKey: .roll)
        try container.encode(pitch, forKey: .pitch)
        try container.encode(tilt, forKey: .tilt)
        try container.encode(unit, forKey: .unit)
        try container.encode(level, forKey: .level)
        try container.encode(gravity, forKey: .gravity)
    }

    /// `roll  +3.000°  pitch  -0.500°  tilt   3.041°  NOT LEVEL  g (+0.05233, +0.00000, +0.99863)`.
    func line(tolerance: Angle, unitSymbol: String) -> String {
        let decimals = (AngleUnit(rawValue: unit) ?? .deg).displayDecimals
        func figure(_ value: Double?, signed: Bool) -> String {
            let text = value.map { String(format: signed ? "%+.\(decimals)f" : "%.\(decimals)f", $0) + unitSymbol } ?? "n/a"
            return String(repeating: " ", count: max(0, 9 + unitSymbol.count - text.count)) + text
        }
        let g = String(format: "g (%+.5f, %+.5f, %+.5f)", gravity.x, gravity.y, gravity.z)
        return "roll \(figure(roll, signed: true))  pitch \(figure(pitch, signed: true))  "
            + "tilt \(figure(tilt, signed: false))  \(level ? "LEVEL    " : "NOT LEVEL")  \(g)"
    }
}

/// One JSON object per line. Keys are sorted, so the same reading always prints the same text.
func jsonLine(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else {
        return "{}"
    }
    return text
}
