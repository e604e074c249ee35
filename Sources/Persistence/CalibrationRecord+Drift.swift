import Geometry
import Level
import Thermal

/// What ``CalibrationRecord/merging(_:)`` did with a new tumble, for the event and the command line.
public struct CalibrationMerge: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The drift was fitted across `points` tumbles spanning `spanCelsius`; the record holds the
        /// calibration at their mean temperature. `replacedCelsius`: an earlier tumble within
        /// ``CalibrationRecord/sameTemperatureCelsius`` of the new one that it replaced.
        case fitted(points: Int, spanCelsius: Double, replacedCelsius: Double?)
        /// The new tumble is in force alone, and its temperature is kept with the others for a
        /// later fit, which the span is still too small for.
        case kept(points: Int, spanCelsius: Double)
        /// The new record replaces the old one entirely.
        case replaced(Reason)
    }

    /// Why the new record replaced the old one entirely.
    public enum Reason: Hashable, Sendable {
        /// There was nothing to merge with (no earlier record, or one without a temperature).
        case first
        /// The new record is not a six-point tumble.
        case notSixPoint
        /// The new tumble has no temperature (no source).
        case noTemperature
        /// The earlier record is for another chip.
        case otherChip
        /// The only earlier tumble was within ``CalibrationRecord/sameTemperatureCelsius``, °C apart.
        case sameTemperature(apartCelsius: Double)
        /// The fit or the calibration it gave was refused.
        case refused(String)
    }

    /// The record to store.
    public var record: CalibrationRecord
    public var outcome: Outcome

    public init(record: CalibrationRecord, outcome: Outcome) {
        self.record = record
        self.outcome = outcome
    }

    /// One or two sentences for people: what happened and, when no drift was learned, how to.
    public var message: String {
        let needed = DriftFit.minimumBenchSpanCelsius
        let how = "calibrate again at least \(fixed(needed, 0)) °C warmer or cooler to learn the drift"
        switch outcome {
        case .fitted(let points, let span, let replaced):
            let replacing = replaced.map { " (replacing the one at \(fixed($0, 1)) °C)" } ?? ""
            return "Drift fitted across \(points) calibrations spanning \(fixed(span, 1)) °C\(replacing);"
                + " the calibration is now the one at their mean temperature, and readings are corrected for temperature."
        case .kept(let points, let span):
            return "The \(points) calibrations are \(fixed(span, 1)) °C apart, too close to fit a drift; \(how)."
        case .replaced(let reason):
            switch reason {
            case .first:
                return "First calibration with a temperature; \(how)."
            case .notSixPoint:
                return "Not a six-point tumble, so no drift is fitted from it."
            case .noTemperature:
                return "No temperature was known during the tumble, so it cannot join a drift fit; configure a temperature"
                    + " source (or use a chip that has one) and calibrate again."
            case .otherChip:
                return "The earlier calibration was for another chip, so it was replaced; \(how)."
            case .sameTemperature(let apart):
                return "The two calibrations are \(fixed(apart, 1)) °C apart, so the new one replaced the old; \(how)."
            case .refused(let why):
                return "The drift fit was refused, so the new calibration is in force alone: \(why)"
            }
        }
    }
}

extension CalibrationRecord {
    /// Tumbles closer than this, °C, count as the same temperature: the newer replaces the older.
    public static let sameTemperatureCelsius = 2.5

    /// This record's tumble(s) at known temperatures: the kept bench points, or the record itself
    /// when it is a plain six-point tumble with a temperature and a residual.
    public var tumblesAtTemperatures: [BenchPointRecord] {
        if let benchPoints { return benchPoints }
        guard method == .sixPoint, let temperatureC, let residualMilliG else { return [] }
        return [BenchPointRecord(temperatureC: temperatureC, date: date, calibration: calibration, residualMilliG: residualMilliG)]
    }

    /// The record to store after a new calibration `new`, and what became of this one.
    ///
    /// When `new` is a six-point tumble with a temperature for the same chip (``Chip/matches(_:)``)
    /// as this record, which has tumbles at known temperatures, all tumbles are kept, the new one
    /// replacing any within ``sameTemperatureCelsius``. With two or more spanning at least
    /// ``DriftFit/minimumBenchSpanCelsius`` the drift is fitted (``DriftFit/bench(_:)``): the
    /// record's calibration becomes the one at their mean temperature `T₀` (validated), its drift
    /// the bench model, its `temperatureC` `T₀`, its method six-point and its residual the worst of
    /// the tumbles'. A stored reversal and an in-place model are superseded: the tumbles are new
    /// evidence about the part, and a reversal can be repeated on top.
    ///
    /// Otherwise `new` is in force alone (``CalibrationMerge/Outcome`` says why), keeping the
    /// other tumbles in `temperatures` when only the span is short, so a third can complete it.
    /// A drift learned in place on this chip carries over to it (``withLearnedDrift(_:)``): it
    /// belongs to the part as mounted, not to one calibration.
    public func merging(_ new: CalibrationRecord) -> CalibrationMerge {
        guard chip.matches(new.chip) else { return CalibrationMerge(record: new, outcome: .replaced(.otherChip)) }
        var merge = mergingSameChip(new)
        // A drift learned in place belongs to the part as mounted, not to its calibration: when no
        // bench fit replaced it, it carries over to the new calibration, re-referenced to its temperature.
        if case .fitted = merge.outcome {} else if merge.record.drift == nil, let drift, drift.origin == .inPlace {
            merge.record = merge.record.withLearnedDrift(drift)
        }
        return merge
    }

    private func mergingSameChip(_ new: CalibrationRecord) -> CalibrationMerge {
        func alone(_ reason: CalibrationMerge.Reason) -> CalibrationMerge { CalibrationMerge(record: new, outcome: .replaced(reason)) }
        guard new.method == .sixPoint else { return alone(.notSixPoint) }
        guard let newTemperature = new.temperatureC, let newPoint = new.tumblesAtTemperatures.last else {
            return alone(.noTemperature)
        }
        let earlier = tumblesAtTemperatures
        guard !earlier.isEmpty else { return alone(.first) }
        let replaced = earlier.filter { abs($0.temperatureC - newTemperature) < Self.sameTemperatureCelsius }
        var points = earlier.filter { abs($0.temperatureC - newTemperature) >= Self.sameTemperatureCelsius } + [newPoint]
        points.sort { $0.temperatureC < $1.temperatureC }
        if points.count == 1 {
            return alone(.sameTemperature(apartCelsius: abs(replaced[0].temperatureC - newTemperature)))
        }
        let span = (points.last?.temperatureC ?? newTemperature) - (points.first?.temperatureC ?? newTemperature)
        var kept = new
        kept.benchPoints = points
        guard span >= DriftFit.minimumBenchSpanCelsius else {
            return CalibrationMerge(record: kept, outcome: .kept(points: points.count, spanCelsius: span))
        }
        let fit: DriftFit.BenchResult
        let calibration: Calibration
        do {
            fit = try DriftFit.bench(points.map(\.benchPoint))
            calibration = try Calibration(matrix: fit.matrix, offset: fit.offset)
        } catch let error as DriftFitError {
            return CalibrationMerge(record: kept, outcome: .replaced(.refused(error.description)))
        } catch {
            return CalibrationMerge(record: kept, outcome: .replaced(.refused("\(error)")))
        }
        let worst = Residual(rms: points.map(\.residualMilliG.rms).max() ?? 0, max: points.map(\.residualMilliG.max).max() ?? 0)
        let record = CalibrationRecord(
            method: .sixPoint, date: new.date, chip: new.chip, residualMilliG: worst, calibration: calibration,
            faces: new.faces, reversal: nil, temperatureC: fit.referenceCelsius, benchPoints: points, drift: fit.drift)
        return CalibrationMerge(record: record, outcome: .fitted(
            points: points.count, spanCelsius: span, replacedCelsius: replaced.first?.temperatureC))
    }

    /// Whether the record's drift came from tumbles at several temperatures.
    public var hasBenchDrift: Bool { drift?.origin == .bench }

    /// The same record with a drift learned in place (``DriftLearning``) in force.
    ///
    /// Calling this is the asking: an in-place model replaces a bench one, because it is measured
    /// on the machine as mounted (its heat, its mount's own expansion), which the bench never
    /// sees; the bench tumbles are kept, so a later tumble can refit them. When the record knows
    /// its calibration's temperature the model is re-referenced there
    /// (``DriftModel/referenced(toCelsius:)``): the calibration is right at its own temperature, so
    /// the correction must vanish there.
    public func withLearnedDrift(_ model: DriftModel) -> CalibrationRecord {
        var record = self
        record.drift = temperatureC.map(model.referenced(toCelsius:)) ?? model
        return record
    }

    /// A record for an uncalibrated chip holding only a drift learned in place: the identity
    /// calibration, method `drift`, the model's own reference temperature.
    public static func learnedDrift(_ model: DriftModel, chip: Chip, date: String = CalibrationRecord.timestamp())
        -> CalibrationRecord {
        CalibrationRecord(method: .drift, date: date, chip: chip, calibration: .identity, temperatureC: nil, drift: model)
    }
}
