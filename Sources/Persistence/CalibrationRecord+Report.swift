#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Level
import Thermal

extension CalibrationRecord {
    /// The record for people, one line each, as `plumb calibrate show` prints it: the method,
    /// date and chip; the calibration; the temperature it holds at and each tumble's; the drift
    /// model (k per axis with its 1σ, γ, T₀, the span it covers, residuals, origin) and what it
    /// means near level (k against 1 g, in `unit` per °C); or, with no model, how to get one.
    public func report(unit: AngleUnit = .deg) -> [String] {
        func mg(_ g: Double, _ decimals: Int = 2) -> String { fixed(g * 1000, decimals, signed: true) + " mg" }
        func celsius(_ value: Double) -> String { fixed(value, 1) + " °C" }
        func residual(_ r: Residual) -> String {
            "rms \(fixed(r.rms, 2)) mg, max \(fixed(r.max, 2)) mg"
        }
        var lines = ["\(method.rawValue) calibration of \(chip.sentence), \(date)"]
        lines.append("offset       x \(mg(calibration.offset.x))   y \(mg(calibration.offset.y))   z \(mg(calibration.offset.z))")
        for (index, row) in calibration.matrix.rowArrays.enumerated() {
            lines.append((index == 0 ? "matrix       " : "             ") + row.map { fixed($0, 5, signed: true) }.joined(separator: "  "))
        }
        if method == .drift { lines.append("             (identity: the chip is not calibrated, only its drift is removed)") }
        if let residualMilliG {
            let worst = (benchPoints?.count ?? 0) > 1 && drift?.origin == .bench ? " (the worst of the tumbles)" : ""
            lines.append("residual     \(residual(residualMilliG))\(worst)")
        }
        if let reversal {
            lines.append("reversal     \(reversal.mount): zero pitch \(fixed(reversal.zeroPitchDeg, 3, signed: true))°"
                + (reversal.zeroRollDeg.map { ", roll \(fixed($0, 3, signed: true))°" } ?? ""))
        }
        if let temperatureC {
            let fitted = drift?.origin == .bench && (benchPoints?.count ?? 0) > 1 ? " (the tumbles' mean temperature, T₀)" : ""
            lines.append("temperature  \(celsius(temperatureC))\(fitted)")
        } else if method != .drift {
            lines.append("temperature  not recorded (no temperature source during the tumble, or a record made before Plumb kept it)")
        }
        if let benchPoints, !benchPoints.isEmpty {
            for (index, point) in benchPoints.enumerated() {
                lines.append((index == 0 ? "tumbles      " : "             ")
                    + "\(celsius(point.temperatureC))  \(point.date)  residual \(residual(point.residualMilliG))")
            }
        }
        guard let drift else {
            lines.append("drift        none: readings are not corrected for temperature, and the uncertainty counts the"
                + " datasheet's typical drift for every °C away from the calibration.")
            lines.append("             To learn it: calibrate six-point again at least"
                + " \(fixed(DriftFit.minimumBenchSpanCelsius, 0)) °C warmer or cooler (the tumbles are merged),"
                + " or run learn_drift on the mounted machine while its temperature moves"
                + " \(fixed(DriftFit.minimumLearningSpanCelsius, 0)) °C or more.")
            return lines
        }
        let origin = drift.origin == .bench ? "bench, \(drift.points) tumbles" : "learned in place, \(drift.points) minutes"
        lines.append("drift        \(origin); T₀ \(celsius(drift.referenceCelsius)), data over"
            + " \(celsius(drift.span.lowerBound))…\(celsius(drift.span.upperBound))")
        let axes: [(String, KeyPath<Vector3, Double>)] = [("x", \.x), ("y", \.y), ("z", \.z)]
        lines.append("  offset     " + axes.map { name, axis in
            "\(name) \(fixed(drift.offsetPerDegree[keyPath: axis] * 1000, 3, signed: true))"
                + " ± \(fixed(drift.offsetPerDegreeSigma[keyPath: axis] * 1000, 3)) mg/°C"
        }.joined(separator: "   "))
        if drift.origin == .bench {
            lines.append("  gain       " + axes.map { name, axis in
                "\(name) \(fixed(drift.sensitivityPerDegree[keyPath: axis] * 1e6, 0, signed: true)) ppm/°C"
            }.joined(separator: "   "))
        } else {
            lines.append("  gain       not learned in place (near level it hardly matters)")
        }
        lines.append("  residual   " + axes.map { name, axis in "\(name) \(fixed(drift.residualRMS[keyPath: axis] * 1000, 3)) mg" }
            .joined(separator: "   "))
        // The tilt a 1 °C change makes uncorrected, for an axis lying horizontal: atan(k / 1 g).
        let decimals = unit == .deg ? 4 : (unit == .mmPerM ? 3 : 5)
        lines.append("  near level " + axes.map { name, axis in
            let tilt = Angle(radians: atan(drift.offsetPerDegree[keyPath: axis])).value(in: unit) ?? .nan
            return "\(name) \(fixed(tilt, decimals, signed: true))\(unit.symbol)/°C"
        }.joined(separator: "   ") + " uncorrected, on an axis lying horizontal")
        lines.append("             Corrected within the data's span; beyond it the uncertainty grows by the ± per °C.")
        return lines
    }
}
