import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PlumbDomain

extension ReadingFigures {
    /// `roll  +3.000°  pitch  -0.500°  tilt   3.041°  NOT LEVEL  g (+0.05233, +0.00000, +0.99863)`.
    func line() -> String {
        let decimals = unit.displayDecimals
        func figure(_ value: Double?, signed: Bool) -> String {
            let text = value.map { fixed($0, decimals, signed: signed) + unit.symbol } ?? "n/a"
            return text.rightAligned(to: 9 + unit.symbol.count)
        }
        let g = "g (\(fixed(gravity.x, 5, signed: true)), \(fixed(gravity.y, 5, signed: true)), \(fixed(gravity.z, 5, signed: true)))"
        return "roll \(figure(roll, signed: true))  pitch \(figure(pitch, signed: true))  "
            + "tilt \(figure(tilt, signed: false))  \(level == true ? "LEVEL    " : "NOT LEVEL")  \(g)"
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
