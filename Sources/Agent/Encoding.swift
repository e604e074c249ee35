import Contract
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Geometry

/// Compact JSON with sorted keys.
func encodeJSON(_ value: some Encodable) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
}

/// ISO 8601 UTC with milliseconds: `2026-11-30T17:42:37.123Z`.
func timestamp(_ date: Date = Date()) -> String {
    date.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true)
        .timeSeparator(.colon).dateSeparator(.dash).dateTimeSeparator(.standard))
}

extension Vector3 {
    /// `{"x": …, "y": …, "z": …}` in g, rounded, for events.
    func jsonG(decimals: Int) -> JSONValue {
        .object(["x": .number(x.rounded(toDecimals: decimals)), "y": .number(y.rounded(toDecimals: decimals)),
                 "z": .number(z.rounded(toDecimals: decimals))])
    }
}
