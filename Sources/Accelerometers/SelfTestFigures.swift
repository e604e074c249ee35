import Geometry

/// A ``SelfTestReport`` as `plumb selftest --json` prints it and the agent's `selftest` event
/// carries it: `passed` at the top, figures rounded to 0.01 LSB for people. One encoder for both,
/// so the command line and MQTT can never report the same test differently.
///
/// ```json
/// {"passed":true,"model":"ADXL345","supply_voltage":3.3,"samples_per_mean":20,
///  "axes":[{"name":"x","off":1.2,"on":301.5,"delta":300.3,"minimum":88.5,"maximum":955.8,"passed":true},…]}
/// ```
public struct SelfTestFigures: Codable, Sendable, Hashable {
    public var passed: Bool
    public var model: String
    public var supplyVoltage: Double
    public var samplesPerMean: Int
    public var axes: [SelfTestReport.Axis]
    /// ``SelfTestReport/conditions``; absent from an agent older than the other chips.
    public var conditions: String?

    enum CodingKeys: String, CodingKey {
        case passed, model, supplyVoltage = "supply_voltage", samplesPerMean = "samples_per_mean", axes, conditions
    }

    public init(_ report: SelfTestReport) {
        passed = report.passed
        model = report.model
        supplyVoltage = report.supplyVoltage
        samplesPerMean = report.samplesPerMean
        conditions = report.conditions
        axes = report.axes.map { axis in
            var rounded = SelfTestReport.Axis(name: axis.name, off: axis.off.rounded(toDecimals: 2), on: axis.on.rounded(toDecimals: 2),
                                              minimum: axis.minimum.rounded(toDecimals: 2), maximum: axis.maximum.rounded(toDecimals: 2))
            // The difference of two rounded figures is not one (−442.59999999999997): round it too.
            rounded.delta = axis.delta.rounded(toDecimals: 2)
            return rounded
        }
    }
}
