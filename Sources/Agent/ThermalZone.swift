import Persistence

/// The `thermal_zone:N` temperature source: Linux's thermal zone `N`, the SoC's sensor on a
/// Raspberry Pi (`/sys/class/thermal/thermal_zone0/temp`, whole millidegrees Celsius).
///
/// The SoC runs warmer than the air by a load-dependent margin (10–30 °C on a Pi 4), so it is a
/// proxy: it follows the workshop's swings, which is what a drift model needs, but its absolute
/// figure is not the room's. Read every ``pollSeconds`` from the agent's ticker: a sysfs read is
/// a few microseconds and never blocks.
struct ThermalZone: Sendable, Equatable {
    var zone: Int
    /// Where the zones are: `/sys/class/thermal`, or `PLUMB_THERMAL_ROOT` (the tests' fake tree).
    var root: String

    /// How often the zone is read, in seconds: the SoC's figure moves slowly, and the smoothing
    /// downstream spans half a minute.
    static let pollSeconds = 5

    static let defaultRoot = "/sys/class/thermal"

    /// The file read.
    var path: String { "\(root)/thermal_zone\(zone)/temp" }

    /// The zone's temperature in °C, or why it could not be read, saying what to check.
    func read() -> Result<Double, TemperatureMessageError> {
        switch FileSystem.read(path, limit: 64) {
        case .failure(let problem):
            return .failure(TemperatureMessageError("cannot read \(path): \(problem.description). ls \(root) lists the"
                                                    + " zones this machine has; set sensor.temperature to one of them, or none"))
        case .success(let bytes):
            var text = String(decoding: bytes, as: UTF8.self)
            while text.last == "\n" || text.last == " " { text.removeLast() }
            guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }),
                  let millidegrees = Int(text) else {
                return .failure(TemperatureMessageError("\(path) holds \"\(text.escapedForLog(limit: 24))\", not whole"
                                                        + " millidegrees Celsius; is it a thermal zone?"))
            }
            return .success(Double(millidegrees) / 1000)
        }
    }
}
