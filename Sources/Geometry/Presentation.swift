#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AngleUnit {
    /// Decimals worth showing in this unit: about a tenth of the ADXL345's resolution near level.
    /// `plumb read --json` and the MQTT state round to the same figures.
    public var displayDecimals: Int {
        switch self {
        case .deg, .percent: 3
        case .mmPerM: 2
        case .inPerFt: 4
        }
    }
}

extension Double {
    /// Rounded to `decimals` places, never `-0`. Swift prints the shortest form that reads back,
    /// so the JSON stays clean.
    public func rounded(toDecimals decimals: Int) -> Double {
        let scale = pow(10, Double(decimals))
        let result = (self * scale).rounded() / scale
        return result == 0 ? 0 : result
    }
}

extension Vector3 {
    /// Each component rounded to `decimals` places.
    public func rounded(toDecimals decimals: Int) -> Vector3 {
        Vector3(x: x.rounded(toDecimals: decimals), y: y.rounded(toDecimals: decimals), z: z.rounded(toDecimals: decimals))
    }
}
