import Contract
import Geometry
import Ruler
import Thermal

extension RulerRequestHandler {
    /// The surface under the level from the current reading, with the reading itself, or
    /// `no_reading` saying why there is none.
    static func surface(from reading: CurrentReading?) throws(RequestFailure) -> (SurfaceTilt, CurrentReading) {
        guard let reading else {
            throw RequestFailure(.noReading, "no current reading: the sensor is starting or faulty; retry in a few seconds.")
        }
        do {
            return (try SurfaceTilt(levelGravity: reading.levelGravity, standardError: reading.totalError), reading)
        } catch {
            throw RequestFailure(error)
        }
    }
}

extension RulerRequestHandler {
    /// What every rise and shim answer says of the reading's uncertainty: `uncertainty_deg`,
    /// the 95 % bound on the tilt's error, its largest term (`uncertainty_dominant`), and
    /// `precision_note`, a sentence when the answer's uncertainty is larger than the step it
    /// would be set to (``settingStep(_:)``), else null: a shim of 0.12 mm ± 0.3 mm is noise.
    static func uncertaintyFields(_ reading: CurrentReading, answerUncertainty: Length) -> [String: JSONValue] {
        let step = settingStep(answerUncertainty.unit)
        let note: JSONValue = if answerUncertainty.value > step {
            .string("The answer is uncertain to ±\(formatted(answerUncertainty.value)) \(answerUncertainty.unit.symbol), more"
                + " than the \(formatted(step)) \(answerUncertainty.unit.symbol) it would be set to; mostly from the"
                + " \(reading.uncertainty.dominant.rawValue). " + advice(reading.uncertainty.dominant))
        } else {
            .null
        }
        return [
            "uncertainty_deg": Reported.degrees(reading.uncertainty.bound),
            "uncertainty_dominant": .string(reading.uncertainty.dominant.rawValue),
            "precision_note": note,
        ]
    }

    /// The finest step a person sets a shim or reads a rise to in `unit`: a feeler gauge's
    /// 0.01 mm, a thou (0.001 in), and their equivalents.
    static func settingStep(_ unit: LengthUnit) -> Double {
        switch unit {
        case .mm: 0.01
        case .cm: 0.001
        case .m: 0.000_01
        case .in: 0.001
        case .ft: 0.000_1
        }
    }

    /// What shrinks the largest term.
    static func advice(_ term: UncertaintyTerm) -> String {
        switch term {
        case .noise: "Hold the machine still, or lengthen the window (window_s)."
        case .calibration: "Calibrate the chip (plumb calibrate six-point), then do a reversal on the machine."
        case .temperature: "Give Plumb a temperature (sensor.temperature) and calibrate at two temperatures, or run learn_drift."
        case .quantisation: "Average longer (window_s)."
        }
    }

    private static func formatted(_ value: Double) -> String {
        plain(value, 6)
    }
}
