import Foundation
import PlumbDomain

extension ReadingFigures {
    /// `roll  +3.000°  pitch  -0.500°  tilt   3.041°  NOT LEVEL  g (+0.05233, +0.00000, +0.99863)`.
    func line() -> String {
        let decimals = unit.displayDecimals
        func figure(_ value: Double?, signed: Bool) -> String {
            let text = value.map { String(format: signed ? "%+.\(decimals)f" : "%.\(decimals)f", $0) + unit.symbol } ?? "n/a"
            return String(repeating: " ", count: max(0, 9 + unit.symbol.count - text.count)) + text
        }
        let g = String(format: "g (%+.5f, %+.5f, %+.5f)", gravity.x, gravity.y, gravity.z)
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
