import Contract
import Geometry
import Ruler

/// How answers round what they report. Lengths get 6 decimals in their unit (a micrometre in
/// metres, well below what a level resolves), pixels 3, angles 4; the figures are worked out
/// unrounded and rounded only here.
enum Reported {
    static let lengthDecimals = 6
    static let pixelDecimals = 3
    static let angleDecimals = 4
    static let ageDecimals = 3

    /// `value` rounded to `decimals`; a value too large for that many decimals in a `Double`
    /// (beyond 10⁹) is left as it is rather than disturbed by the scaling.
    static func number(_ value: Double, decimals: Int) -> JSONValue {
        .number(abs(value) < 1e9 ? value.rounded(toDecimals: decimals) : value)
    }

    /// A length's value in its own unit.
    static func length(_ length: Length) -> JSONValue {
        number(length.value, decimals: lengthDecimals)
    }

    /// `{"mm":…,"cm":…,"m":…,"in":…,"ft":…}`: the length in every unit.
    static func everyUnit(_ length: Length) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: LengthUnit.allCases.map {
            ($0.symbol, self.length(length.converted(to: $0)))
        }))
    }

    /// An angle in degrees.
    static func degrees(_ angle: Angle) -> JSONValue {
        number(angle.degrees, decimals: angleDecimals)
    }
}
