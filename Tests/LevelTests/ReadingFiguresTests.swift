import Foundation
import Geometry
import Level
import Testing

@Suite("Reading figures: the unit's figures and their degree twins")
struct ReadingFiguresTests {
    static func json(_ figures: ReadingFigures) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(figures)) as? [String: Any])
    }

    @Test("roll_deg, pitch_deg, tilt_deg and uncertainty_deg are degrees whatever the unit", arguments: AngleUnit.allCases)
    func degreeTwins(unit: AngleUnit) throws {
        let gravity = Vector3(x: -0.02, y: 0.03, z: 0.999)
        let attitude = Attitude(gravity: gravity)
        let figures = ReadingFigures(attitude: attitude, unit: unit, level: false, stable: true, gravity: gravity,
                                     uncertainty: Angle(degrees: 0.0312))
        let object = try Self.json(figures)
        #expect(object["unit"] as? String == unit.rawValue)
        #expect(object["tilt_deg"] as? Double == (attitude.tilt.degrees * 1000).rounded() / 1000)
        #expect(object["roll_deg"] as? Double == (attitude.roll.degrees * 1000).rounded() / 1000)
        #expect(object["pitch_deg"] as? Double == (attitude.pitch.degrees * 1000).rounded() / 1000)
        // Rounded up, never down: 0.0312° is shown as 0.032°.
        #expect(object["uncertainty_deg"] as? Double == 0.032)
        if unit == .deg {
            #expect(object["tilt"] as? Double == object["tilt_deg"] as? Double)
        } else {
            #expect(object["tilt"] as? Double != object["tilt_deg"] as? Double, "the unit's figure is not degrees")
        }
    }

    @Test("Without a reading every figure is null, the degree twins too, and every key is present")
    func noReading() throws {
        let object = try Self.json(ReadingFigures(nil, unit: .mmPerM, level: nil))
        for key in ["roll", "pitch", "tilt", "uncertainty", "roll_deg", "pitch_deg", "tilt_deg", "uncertainty_deg"] {
            #expect(object[key] is NSNull, "\(key)")
        }
    }
}
