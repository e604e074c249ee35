import Foundation
import Geometry
import GeometryTesting
import Testing
import Thermal

@Suite("DriftModel: shift, gain, drift removal and strict JSON")
struct DriftModelTests {
    static let model = DriftModel(
        origin: .bench, referenceCelsius: 22.5, offsetPerDegree: Vector3(x: 0.0004, y: -0.0003, z: 0.0012),
        sensitivityPerDegree: Vector3(x: 1e-4, y: -2e-4, z: 5e-5), offsetPerDegreeSigma: Vector3(x: 2e-5, y: 2e-5, z: 3e-5),
        span: 15...30, residualRMS: Vector3(x: 1e-5, y: 2e-5, z: 0), points: 3)

    @Test("Shift and gain are zero and one at T₀ and linear in T")
    func shiftAndGain() {
        let m = Self.model
        expectClose(m.offsetShift(atCelsius: 22.5), .zero)
        expectClose(m.gainFactor(atCelsius: 22.5), Vector3(x: 1, y: 1, z: 1))
        expectClose(m.offsetShift(atCelsius: 32.5), Vector3(x: 0.004, y: -0.003, z: 0.012), tolerance: 1e-15)
        expectClose(m.gainFactor(atCelsius: 12.5), Vector3(x: 0.999, y: 1.002, z: 0.9995), tolerance: 1e-15)
    }

    @Test("Calibration applied after removeDrift is M·((raw − o − kΔT) ⊘ (1 + γΔT)), and undoes a simulated drift")
    func removeDriftRoundTrip() throws {
        let m = Self.model
        let matrix = try #require(Matrix3([[0.98, 0.004, 0], [-0.003, 1.01, 0.002], [0.001, 0, 0.995]]))
        let offset = Vector3(x: 0.02, y: -0.015, z: 0.03)
        let a = try #require(matrix.inverse)
        let truth = Vector3(x: 0.01, y: -0.02, z: 0.9997)
        for t in [-10.0, 5, 22.5, 40] {
            // The part at t: sensitivity row-scaled by the gain factor, offset moved by the shift.
            let gain = m.gainFactor(atCelsius: t)
            let sensed = a * truth
            let raw = Vector3(x: sensed.x * gain.x, y: sensed.y * gain.y, z: sensed.z * gain.z) + offset + m.offsetShift(atCelsius: t)
            let cleaned = m.removeDrift(from: raw, calibrationOffset: offset, atCelsius: t)
            expectClose(matrix * (cleaned - offset), truth, tolerance: 1e-12, "at \(t) °C")
            let centred = raw - offset - m.offsetShift(atCelsius: t)
            let formula = matrix * Vector3(x: centred.x / gain.x, y: centred.y / gain.y, z: centred.z / gain.z)
            expectClose(matrix * (cleaned - offset), formula, tolerance: 1e-15)
        }
    }

    @Test("Distance outside the span is zero inside and grows outside")
    func distance() {
        #expect(Self.model.distanceOutsideSpan(20) == 0)
        #expect(Self.model.distanceOutsideSpan(15) == 0)
        #expect(Self.model.distanceOutsideSpan(10) == 5)
        #expect(Self.model.distanceOutsideSpan(33) == 3)
    }

    @Test("Re-referencing moves the zero of the shift and keeps k")
    func referenced() {
        let moved = Self.model.referenced(toCelsius: 25)
        #expect(moved.referenceCelsius == 25 && moved.offsetPerDegree == Self.model.offsetPerDegree)
        expectClose(moved.offsetShift(atCelsius: 25), .zero)
        expectClose(moved.gainFactor(atCelsius: 30).x * Self.model.gainFactor(atCelsius: 25).x,
                    Self.model.gainFactor(atCelsius: 30).x, tolerance: 1e-8)
    }

    static func json(_ model: DriftModel) throws -> [String: Any] {
        let data = try JSONEncoder().encode(model)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("JSON has the documented keys in friendly units and reads back")
    func jsonRoundTrip() throws {
        let object = try Self.json(Self.model)
        #expect(Set(object.keys) == ["origin", "reference_c", "offset_mg_per_c", "sensitivity_ppm_per_c",
                                      "offset_sigma_mg_per_c", "span_c", "residual_mg", "points"])
        #expect(object["origin"] as? String == "bench")
        let k = try #require(object["offset_mg_per_c"] as? [Double])
        expectClose(k[0], 0.4, tolerance: 1e-12)
        let gamma = try #require(object["sensitivity_ppm_per_c"] as? [Double])
        expectClose(gamma[1], -200, tolerance: 1e-9)
        #expect(object["span_c"] as? [Double] == [15, 30])
        let back = try JSONDecoder().decode(DriftModel.self, from: JSONEncoder().encode(Self.model))
        #expect(back.origin == .bench && back.span == 15...30 && back.points == 3 && back.referenceCelsius == 22.5)
        expectClose(back.offsetPerDegree, Self.model.offsetPerDegree, tolerance: 1e-15)
        expectClose(back.sensitivityPerDegree, Self.model.sensitivityPerDegree, tolerance: 1e-15)
        expectClose(back.offsetPerDegreeSigma, Self.model.offsetPerDegreeSigma, tolerance: 1e-15)
        var inPlace = Self.model
        inPlace.origin = .inPlace
        #expect(try Self.json(inPlace)["origin"] as? String == "in_place")
    }

    static let good = #"{"origin":"in_place","reference_c":20,"offset_mg_per_c":[0.4,0.1,1],"#
        + #""sensitivity_ppm_per_c":[0,0,0],"offset_sigma_mg_per_c":[0.01,0.01,0.02],"span_c":[18,24],"#
        + #""residual_mg":[0.01,0.01,0.01],"points":40}"#

    @Test("The literal documented form decodes")
    func literal() throws {
        let model = try JSONDecoder().decode(DriftModel.self, from: Data(Self.good.utf8))
        #expect(model.origin == .inPlace && model.span == 18...24 && model.points == 40)
        expectClose(model.offsetPerDegree.x, 0.0004, tolerance: 1e-15)
    }

    @Test("Strict decoding refuses each damage, saying what and what to do", arguments: [
        (#""offset_mg_per_c":[0.4,0.1,1]"#, #""offset_mg_per_c":[0.4,0.1]"#, "three numbers"),
        (#""offset_mg_per_c":[0.4,0.1,1]"#, #""offset_mg_per_c":[0.4,0.1,6]"#, "beyond ±5"),
        (#""sensitivity_ppm_per_c":[0,0,0]"#, #""sensitivity_ppm_per_c":[0,2500,0]"#, "beyond ±2000"),
        (#""span_c":[18,24]"#, #""span_c":[24,18]"#, "low must come first"),
        (#""span_c":[18,24]"#, #""span_c":[18]"#, "two numbers"),
        (#""points":40"#, #""points":1"#, "at least 2"),
        (#""offset_sigma_mg_per_c":[0.01,0.01,0.02]"#, #""offset_sigma_mg_per_c":[0.01,-0.01,0.02]"#, "negative"),
        (#""origin":"in_place""#, #""origin":"guess""#, ""),
    ])
    func strict(original: String, damaged: String, message: String) throws {
        let text = Self.good.replacingOccurrences(of: original, with: damaged)
        #expect(text != Self.good)
        do {
            _ = try JSONDecoder().decode(DriftModel.self, from: Data(text.utf8))
            Issue.record("decoded \(text)")
        } catch let DecodingError.dataCorrupted(context) {
            if !message.isEmpty {
                #expect(context.debugDescription.contains(message), "\(context.debugDescription)")
                #expect(context.debugDescription.contains("calibration.json") && context.debugDescription.contains("again"))
            }
        } catch {
            #expect(message.isEmpty, "\(error)")
        }
    }
}
