import Foundation
import Geometry
import GeometryTesting
import Level
import Testing

private let gain = DomainMatrix(
    rows: Vector3(x: 1.02, y: 0.004, z: -0.006), Vector3(x: -0.003, y: 0.985, z: 0.008), Vector3(x: 0.005, y: 0.002, z: 1.01)
)
private let offset = Vector3(x: 0.021, y: -0.033, z: 0.038)

private func reason(_ matrix: DomainMatrix, _ offset: Vector3) -> CalibrationError.Reason? {
    expectThrows(CalibrationError.self) { _ = try Calibration(matrix: matrix, offset: offset) }?.reason
}

@Suite("Calibration")
struct CalibrationTests {
    @Test("identity corrects nothing; apply is M · (raw − offset)")
    func apply() throws {
        let raw = Vector3(x: 0.1, y: -0.2, z: 0.97)
        #expect(Calibration.identity.apply(raw) == raw)
        let calibration = try Calibration(matrix: gain, offset: offset)
        let shifted = raw - offset
        let expected = Vector3(
            x: 1.02 * shifted.x + 0.004 * shifted.y - 0.006 * shifted.z,
            y: -0.003 * shifted.x + 0.985 * shifted.y + 0.008 * shifted.z,
            z: 0.005 * shifted.x + 0.002 * shifted.y + 1.01 * shifted.z
        )
        expectClose(calibration.apply(raw), expected, tolerance: 1e-15)
    }

    @Test("Codable with stable keys matrix and offset_g, round trip exact")
    func codable() throws {
        let calibration = try Calibration(matrix: gain, offset: offset)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(calibration)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["matrix", "offset_g"])
        #expect(object["offset_g"] as? [Double] == [0.021, -0.033, 0.038])
        #expect((object["matrix"] as? [[Double]])?.first == [1.02, 0.004, -0.006])
        #expect(try JSONDecoder().decode(Calibration.self, from: data) == calibration)
        let identity = try encoder.encode(Calibration.identity)
        #expect(String(decoding: identity, as: UTF8.self) == #"{"matrix":[[1,0,0],[0,1,0],[0,0,1]],"offset_g":[0,0,0]}"#)
    }

    @Test("Decoding refuses implausible or malformed parameters, with the reason in the message")
    func decodingRefuses() {
        let cases = [
            #"{"matrix":[[1,0,0],[0,1,0],[0,0,1]],"offset_g":[0,0.3,0]}"#,
            #"{"matrix":[[1,0,0],[0,1,0],[0,0,1]],"offset_g":[0,0]}"#,
            #"{"matrix":[[2,0,0],[0,1,0],[0,0,1]],"offset_g":[0,0,0]}"#,
            #"{"matrix":[[1,0,0],[0,1,0]],"offset_g":[0,0,0]}"#,
            #"{"offset_g":[0,0,0]}"#,
        ]
        for json in cases {
            #expect(throws: DecodingError.self, "\(json)") {
                try JSONDecoder().decode(Calibration.self, from: Data(json.utf8))
            }
        }
        do {
            _ = try JSONDecoder().decode(Calibration.self, from: Data(cases[0].utf8))
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("y offset is 300 mg"))
            #expect(context.debugDescription.contains("Recalibrate"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("Validation refuses non-finite parameters")
    func notFinite() {
        #expect(reason(.identity, Vector3(x: .nan, y: 0, z: 0)) == .notFinite)
        #expect(reason(DomainMatrix(diagonal: Vector3(x: 1, y: .infinity, z: 1)), .zero) == .notFinite)
    }

    @Test("Validation refuses an offset beyond 0.2 g, naming the axis")
    func offsetTooLarge() throws {
        #expect(reason(.identity, Vector3(x: 0, y: 0, z: -0.25)) == .offsetTooLarge(axis: "z", offsetG: -0.25, limitG: 0.2))
        _ = try Calibration(matrix: .identity, offset: Vector3(x: 0.2, y: -0.2, z: 0.2))
        let error = try #require(expectThrows(CalibrationError.self) {
            _ = try Calibration(matrix: .identity, offset: Vector3(x: 0.21, y: 0, z: 0))
        })
        #expect(error.description.contains("x offset is 210 mg, beyond ±200 mg"))
        #expect(error.description.contains("Recalibrate"))
    }

    @Test("Validation refuses a gain outside 0.8…1.25 and cross-axis terms beyond 0.1")
    func matrixLimits() {
        #expect(reason(DomainMatrix(diagonal: Vector3(x: 1, y: 0.7, z: 1)), .zero)
            == .gainOutOfRange(axis: "y", gain: 0.7, range: 0.8...1.25))
        #expect(reason(DomainMatrix(diagonal: Vector3(x: 1, y: 1, z: -1)), .zero)
            == .gainOutOfRange(axis: "z", gain: -1, range: 0.8...1.25))
        var coupled = DomainMatrix.identity
        coupled[2, 0] = 0.15
        #expect(reason(coupled, .zero) == .crossAxisTooLarge(row: "z", column: "x", value: 0.15, limit: 0.1))
        // Each element is in bounds, but together they stretch (1, 1, 1) by 1.2 + 0.2 = 1.4.
        let stretch = DomainMatrix(
            rows: Vector3(x: 1.2, y: 0.1, z: 0.1), Vector3(x: 0.1, y: 1.2, z: 0.1), Vector3(x: 0.1, y: 0.1, z: 1.2)
        )
        guard case .stretchOutOfRange(let value, _) = reason(stretch, .zero) else {
            Issue.record("expected a stretch out of range")
            return
        }
        expectClose(value, 1.4, tolerance: 1e-12)
    }

    @Test("Custom limits are honoured")
    func customLimits() throws {
        let wide = Calibration.Limits(maxOffset: 0.5, gainRange: 0.5...2, maxOffDiagonal: 0.3)
        _ = try Calibration(matrix: DomainMatrix(diagonal: Vector3(x: 1.5, y: 1, z: 1)), offset: Vector3(x: 0.4, y: 0, z: 0), limits: wide)
    }

    @Test("shifted(by:) subtracts a zero shift after the matrix, by moving only the offset")
    func shifted() throws {
        let calibration = try Calibration(matrix: gain, offset: offset)
        let shift = Vector3(x: 0.004, y: -0.007, z: 0)
        let moved = try calibration.shifted(by: shift)
        #expect(moved.matrix == calibration.matrix)
        var random = SplitMix64(seed: 5)
        for _ in 0..<20 {
            let raw = random.unitVector()
            expectClose(moved.apply(raw), calibration.apply(raw) - shift, tolerance: 1e-15)
        }
        #expect(throws: CalibrationError.self) { try calibration.shifted(by: Vector3(x: 0.3, y: 0, z: 0)) }
    }
}
