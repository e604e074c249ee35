import Foundation
import Geometry
import Level
import Persistence
import Testing
import Thermal

@Suite("CalibrationRecord with temperatures: merging tumbles into a drift fit, old records, the report")
struct CalibrationDriftRecordTests {
    static let chip = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5", model: "ADXL345")
    static let k = Vector3(x: 0.0004, y: -0.0003, z: 0.0012)
    static let gamma = Vector3(x: 1e-4, y: -1e-4, z: 2e-4)
    static let offset0 = Vector3(x: 0.021, y: -0.013, z: 0.034)
    static let sensitivity0 = Matrix3([[1.02, 0.004, -0.003], [-0.002, 0.985, 0.005], [0.003, -0.001, 1.01]])!
    static let t0 = 22.5

    /// The six-point record a part with the true drift gives at `t` °C.
    static func tumble(at t: Double?, residual: Double = 0.3, chip: CalibrationRecord.Chip = chip, date: String = "2026-12-01T10:00:00Z")
        throws -> CalibrationRecord {
        let delta = (t ?? t0) - t0
        let scale = Matrix3(diagonal: Vector3(x: 1 + gamma.x * delta, y: 1 + gamma.y * delta, z: 1 + gamma.z * delta))
        let calibration = try Calibration(matrix: (scale * sensitivity0).inverse!, offset: offset0 + k * delta)
        return CalibrationRecord(method: .sixPoint, date: date, chip: chip, residualMilliG: .init(rms: residual, max: residual * 1.5),
                                 calibration: calibration, temperatureC: t)
    }

    @Test("Tumbles at 15 and 30 °C merge into the calibration at 22.5 °C and the bench drift")
    func mergeRecovers() throws {
        let merge = try Self.tumble(at: 15).merging(try Self.tumble(at: 30, residual: 0.4, date: "2026-12-02T10:00:00Z"))
        guard case .fitted(let points, let span, let replaced) = merge.outcome else { Issue.record("\(merge.outcome)"); return }
        #expect(points == 2 && span == 15 && replaced == nil)
        let record = merge.record
        #expect(record.method == .sixPoint && record.temperatureC == 22.5 && record.date == "2026-12-02T10:00:00Z")
        #expect(record.benchPoints?.map(\.temperatureC) == [15, 30])
        #expect(record.residualMilliG == .init(rms: 0.4, max: 0.6000000000000001) || record.residualMilliG?.rms == 0.4)
        let drift = try #require(record.drift)
        #expect(drift.origin == .bench && drift.span == 15...30)
        #expect((drift.offsetPerDegree - Self.k).magnitude < 1e-15)
        #expect((drift.sensitivityPerDegree - Self.gamma).magnitude < 1e-12)
        #expect((record.calibration.offset - Self.offset0).magnitude < 1e-15)
        #expect(record.calibration.matrix.maxDifference(from: Self.sensitivity0.inverse!) < 1e-12)
        #expect(merge.message.contains("spanning 15.0 °C"))
        // It survives the file, and a third tumble refits all three.
        let back = try JSONDecoder().decode(CalibrationRecord.self, from: JSONEncoder().encode(record))
        #expect(back.benchPoints?.count == 2 && back.drift?.points == 2 && back.temperatureC == 22.5)
        let third = back.merging(try Self.tumble(at: 40))
        guard case .fitted(3, 25, nil) = third.outcome else { Issue.record("\(third.outcome)"); return }
        #expect(third.record.temperatureC.map { abs($0 - 85.0 / 3) < 1e-12 } == true)
    }

    @Test("A tumble within 2.5 °C of a kept one replaces it")
    func replacesNearby() throws {
        let fitted = try Self.tumble(at: 15).merging(try Self.tumble(at: 30)).record
        let merge = fitted.merging(try Self.tumble(at: 31.5, date: "2026-12-03T10:00:00Z"))
        guard case .fitted(2, let span, 30) = merge.outcome else { Issue.record("\(merge.outcome)"); return }
        #expect(span == 16.5 && merge.record.benchPoints?.map(\.temperatureC) == [15, 31.5])
        #expect(merge.message.contains("replacing the one at 30.0 °C"))
        let lone = try Self.tumble(at: 20).merging(try Self.tumble(at: 22.1))
        #expect(lone.outcome == .replaced(.sameTemperature(apartCelsius: 2.1000000000000014)))
        #expect(lone.record.temperatureC == 22.1 && lone.record.drift == nil)
        #expect(lone.message.contains("2.1 °C apart") && lone.message.contains("at least 5 °C warmer or cooler"), "\(lone.message)")
    }

    @Test("Tumbles too close to fit are kept together for a third")
    func keptForLater() throws {
        let merge = try Self.tumble(at: 20).merging(try Self.tumble(at: 24))
        #expect(merge.outcome == .kept(points: 2, spanCelsius: 4))
        #expect(merge.record.benchPoints?.count == 2 && merge.record.drift == nil && merge.record.temperatureC == 24)
        #expect(merge.message.contains("4.0 °C apart") && merge.message.contains("5 °C warmer or cooler"))
        guard case .fitted(3, 7, nil) = merge.record.merging(try Self.tumble(at: 27)).outcome else {
            Issue.record("no fit across three"); return
        }
    }

    @Test("Another chip, no temperature, a reversal or a first tumble: the new record alone")
    func refusals() throws {
        let other = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x1D", devid: "0xE5")
        let base = try Self.tumble(at: 15)
        #expect(base.merging(try Self.tumble(at: 30, chip: other)).outcome == .replaced(.otherChip))
        #expect(base.merging(try Self.tumble(at: nil)).outcome == .replaced(.noTemperature))
        #expect(try Self.tumble(at: nil).merging(try Self.tumble(at: 30)).outcome == .replaced(.first))
        var reversal = try Self.tumble(at: 30)
        reversal.method = .reversal
        #expect(base.merging(reversal).outcome == .replaced(.notSixPoint))
        #expect(CalibrationMerge(record: base, outcome: .replaced(.first)).message.contains("calibrate again at least 5 °C"))
    }

    @Test("A reversal folded in later keeps the drift, the temperature and the tumbles")
    func reversalKeepsDrift() throws {
        let fitted = try Self.tumble(at: 15).merging(try Self.tumble(at: 30)).record
        let (record, _) = try CalibrationRecord.reversal(
            first: Attitude.gravity(roll: Angle(degrees: 0.3), pitch: Angle(degrees: -0.2)),
            second: Attitude.gravity(roll: Angle(degrees: -0.3), pitch: Angle(degrees: 0.2)), mount: .flat,
            base: fitted, chip: Self.chip)
        #expect(record.method == .sixPointAndReversal && record.drift == fitted.drift)
        #expect(record.temperatureC == 22.5 && record.benchPoints == fitted.benchPoints)
    }

    @Test("A drift learned in place is re-referenced to the calibration's temperature; an uncalibrated chip gets a drift-only record")
    func learned() throws {
        let model = DriftModel(origin: .inPlace, referenceCelsius: 27, offsetPerDegree: Vector3(x: 0.0002, y: 0, z: 0),
                               offsetPerDegreeSigma: Vector3(x: 1e-5, y: 1e-5, z: 1e-5), span: 24...30,
                               residualRMS: .zero, points: 300)
        let fitted = try Self.tumble(at: 15).merging(try Self.tumble(at: 30)).record
        #expect(fitted.hasBenchDrift)
        let replaced = fitted.withLearnedDrift(model)
        #expect(replaced.drift?.origin == .inPlace && replaced.drift?.referenceCelsius == 22.5 && !replaced.hasBenchDrift)
        #expect(replaced.benchPoints == fitted.benchPoints && replaced.calibration == fitted.calibration)
        let unknown = try Self.tumble(at: nil).withLearnedDrift(model)
        #expect(unknown.drift == model)
        let only = CalibrationRecord.learnedDrift(model, chip: Self.chip, date: "2026-12-02T10:00:00Z")
        #expect(only.method == .drift && only.calibration == .identity && only.drift == model)
        let text = String(decoding: try JSONEncoder().encode(only), as: UTF8.self)
        #expect(text.contains(#""method":"drift""#) && text.contains(#""origin":"in_place""#), "\(text)")
        #expect(try JSONDecoder().decode(CalibrationRecord.self, from: Data(text.utf8)) == only)
    }

    @Test("A drift learned in place carries over to a new tumble of the same chip, not to another chip's")
    func inPlaceCarriesOver() throws {
        let model = DriftModel(origin: .inPlace, referenceCelsius: 27, offsetPerDegree: Vector3(x: 0.0002, y: 0, z: 0),
                               offsetPerDegreeSigma: Vector3(x: 1e-5, y: 1e-5, z: 1e-5), span: 24...30,
                               residualRMS: .zero, points: 300)
        let learned = CalibrationRecord.learnedDrift(model, chip: Self.chip)
        let merge = learned.merging(try Self.tumble(at: 21))
        #expect(merge.outcome == .replaced(.first))
        #expect(merge.record.drift?.origin == .inPlace && merge.record.drift?.referenceCelsius == 21)
        #expect(merge.record.method == .sixPoint && merge.record.temperatureC == 21)
        let other = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x1D", devid: "0xE5")
        #expect(learned.merging(try Self.tumble(at: 21, chip: other)).record.drift == nil)
    }

    @Test("A record from before temperatures decodes, with none, and encodes without the new keys")
    func oldRecord() throws {
        let old = #"{"format":1,"method":"six_point","date":"2026-11-20T09:00:00Z","#
            + #""chip":{"bus":"/dev/i2c-1","address":"0x53","devid":"0xE5"},"residual_mg":{"rms":0.4,"max":0.6},"#
            + #""calibration":{"matrix":[[0.97,-0.007,0.004],[0.008,0.99,-0.004],[0.0077,-0.0078,1.01]],"#
            + #""offset_g":[0.0289,-0.03,-0.0055]},"faces":[{"face":"+z","mean_g":[0.033,-0.034,0.998],"samples":200}]}"#
        let record = try JSONDecoder().decode(CalibrationRecord.self, from: Data(old.utf8))
        #expect(record.temperatureC == nil && record.benchPoints == nil && record.drift == nil && record.chip.model == nil)
        let text = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(!text.contains("temperature") && !text.contains("drift"), "\(text)")
        #expect(record.report().contains { $0.hasPrefix("temperature  not recorded") })
    }

    @Test("A damaged drift model in the record is refused with its message")
    func damagedDrift() throws {
        let fitted = try Self.tumble(at: 15).merging(try Self.tumble(at: 30)).record
        var text = String(decoding: try JSONEncoder().encode(fitted), as: UTF8.self)
        text = text.replacingOccurrences(of: #""points":2"#, with: #""points":1"#)
        do {
            _ = try JSONDecoder().decode(CalibrationRecord.self, from: Data(text.utf8))
            Issue.record("decoded a damaged drift")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("points is 1"), "\(context.debugDescription)")
        }
    }

    @Test("The report names the tumbles' temperatures, the drift with its σ, and what it means near level")
    func report() throws {
        let fitted = try Self.tumble(at: 15).merging(try Self.tumble(at: 30, date: "2026-12-02T10:00:00Z")).record
        let lines = fitted.report()
        let text = lines.joined(separator: "\n")
        #expect(lines[0] == "six_point calibration of the ADXL345 at 0x53 on /dev/i2c-1 (ID 0xE5), 2026-12-02T10:00:00Z")
        for expected in ["offset       x +21.00 mg   y -13.00 mg   z +34.00 mg",
                         "temperature  22.5 °C (the tumbles' mean temperature, T₀)",
                         "tumbles      15.0 °C  2026-12-01T10:00:00Z  residual rms 0.30 mg, max 0.45 mg",
                         "             30.0 °C  2026-12-02T10:00:00Z",
                         "drift        bench, 2 tumbles; T₀ 22.5 °C, data over 15.0 °C…30.0 °C",
                         "  offset     x +0.400 ± 0.028 mg/°C   y -0.300 ± 0.028 mg/°C   z +1.200 ± 0.028 mg/°C",
                         "  gain       x +100 ppm/°C   y -100 ppm/°C   z +200 ppm/°C",
                         "  near level x +0.0229°/°C   y -0.0172°/°C   z +0.0688°/°C"] {
            #expect(text.contains(expected), "\(expected) in\n\(text)")
        }
        let mm = fitted.report(unit: .mmPerM).joined(separator: "\n")
        #expect(mm.contains("x +0.400mm/m/°C"), "\(mm)")
        let plain = try Self.tumble(at: 21).report().joined(separator: "\n")
        #expect(plain.contains("temperature  21.0 °C") && plain.contains("drift        none")
            && plain.contains("calibrate six-point again at least 5 °C warmer or cooler") && plain.contains("learn_drift"), "\(plain)")
        let learned = CalibrationRecord.learnedDrift(
            DriftModel(origin: .inPlace, referenceCelsius: 27, offsetPerDegree: .zero, offsetPerDegreeSigma: .zero, span: 24...30,
                       residualRMS: .zero, points: 300), chip: Self.chip).report().joined(separator: "\n")
        #expect(learned.contains("learned in place, 300 minutes") && learned.contains("identity") && learned.contains("not learned in place"))
    }
}
