import Contract
import FoundationEssentials
import Geometry
import GeometryTesting
import RulerService
import Testing

/// A reply's bytes read back as JSON, the way a client reads them.
struct DecodedReply {
    let object: [String: JSONValue]

    init(_ reply: ServiceReply, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(reply.bytes))
        guard case .object(let object) = value else {
            Issue.record("the reply is not a JSON object: \(value)", sourceLocation: sourceLocation)
            self.object = [:]
            return
        }
        self.object = object
    }

    var status: String? { object["status"]?.string }
    var code: String? { object["code"]?.string }
    var error: String? { object["error"]?.string }
    var transaction: String? { object["transaction"]?.string }
    var data: JSONValue? { object["data"] }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var number: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    var array: [JSONValue]? {
        if case .array(let values) = self { values } else { nil }
    }
}

/// A request payload from a JSON text.
func payload(_ json: String) -> [UInt8] { Array(json.utf8) }

/// A reading of a level at rest on a surface at `roll` and `pitch`, with a little noise.
func reading(roll: Double = 0, pitch: Double = 0, noise: Double = 0.0001, unit: LengthUnit = .mm,
             stable: Bool = true) -> CurrentReading {
    CurrentReading(levelGravity: Attitude.gravity(roll: Angle(degrees: roll), pitch: Angle(degrees: pitch)),
                   standardError: Vector3(x: noise, y: noise, z: noise), age: 0.25, lengthUnit: unit, isStable: stable)
}
