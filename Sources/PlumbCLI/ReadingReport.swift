import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import Level

/// One object of `plumb read --json`: the keys of ``ReadingFigures`` (the `P/state` schema),
/// `calibration`, the method and date of the calibration applied, or null for raw, and `chip`,
/// the model that read it (its description's).
struct ReadReport: Encodable {
    let figures: ReadingFigures
    let calibration: CalibrationInUse
    let chip: String

    private enum CodingKeys: String, CodingKey { case calibration, chip }

    func encode(to encoder: any Encoder) throws {
        // The figures' own keys, then one more in the same object: the schema stays
        // ReadingFigures' and grows only here, on the command line.
        try figures.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(calibration.summary, forKey: .calibration)
        try container.encode(chip, forKey: .chip)
    }
}

extension ReadingFigures {
    /// `roll  +3.000°  pitch  -0.500°  tilt   3.041°  NOT LEVEL  g (+0.05233, +0.00000, +0.99863)  ±0.031°  21.5 °C`:
    /// the uncertainty (95 %) and the temperature last, when known.
    func line() -> String {
        let decimals = unit.displayDecimals
        func figure(_ value: Double?, signed: Bool) -> String {
            let text = value.map { fixed($0, decimals, signed: signed) + unit.symbol } ?? "n/a"
            return text.rightAligned(to: 9 + unit.symbol.count)
        }
        let g = "g (\(fixed(gravity.x, 5, signed: true)), \(fixed(gravity.y, 5, signed: true)), \(fixed(gravity.z, 5, signed: true)))"
        let bound = uncertainty.map { "  ±" + fixed($0, decimals, signed: false) + unit.symbol } ?? ""
        let celsius = temperature.map { "  " + fixed($0, 1, signed: false) + " °C" } ?? ""
        return "roll \(figure(roll, signed: true))  pitch \(figure(pitch, signed: true))  "
            + "tilt \(figure(tilt, signed: false))  \(level == true ? "LEVEL    " : "NOT LEVEL")  \(g)\(bound)\(celsius)"
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
