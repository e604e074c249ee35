#if canImport(Glibc)
import Contract
import GeometryTesting
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import RulerService
import Testing

@Suite("The rise and shim services")
struct MeasuringRequestTests {
    let handler = RulerRequestHandler()

    private func reply(_ service: String, _ json: String, _ reading: CurrentReading?) throws -> DecodedReply {
        try DecodedReply(handler.reply(service: service, payload: payload(json), reading: reading))
    }

    @Test("rise: pitch +1° over 1.2 m reads span·tan 1° in mm, −x high")
    func riseHappyPath() throws {
        let answer = try reply("rise", #"{"span":1.2,"unit":"m","axis":"pitch","result_unit":"mm","transaction":"r1"}"#,
                               reading(pitch: 1, noise: 0.0002, unit: .in))
        #expect(answer.status == "ok")
        #expect(answer.transaction == "r1")
        let data = try #require(answer.data)
        #expect(data["span"] == .object(["value": .number(1.2), "unit": .string("m")]))
        #expect(data["axis"]?.string == "pitch")
        #expect(data["result_unit"]?.string == "mm")
        #expect(data["rise"]?.number == (1200 * tan(Angle(degrees: 1).radians)).rounded(toDecimals: 6))
        #expect(data["high_end"]?.string == "-x")
        #expect(data["angle_deg"]?.number == 1)
        #expect((data["uncertainty"]?.number ?? 0) > 0)
        #expect(data["reading_age_s"]?.number == 0.25)
        #expect(data["azimuth_deg"] == nil)
    }

    @Test("rise and shim say whether the reading they answer from was stable", arguments: ["rise", "shim"])
    func stable(service: String) throws {
        let json = service == "rise" ? #"{"span":1,"unit":"m"}"# : #"{"length":1,"width":1,"unit":"m"}"#
        #expect(try reply(service, json, reading(roll: 1, stable: true)).data?["stable"] == .bool(true))
        #expect(try reply(service, json, reading(roll: 1, stable: false)).data?["stable"] == .bool(false))
    }

    @Test("rise: steepest by default, with its azimuth, in the live length unit")
    func riseDefaults() throws {
        let answer = try reply("rise", #"{"span":"2 ft"}"#, reading(roll: 2, unit: .in))
        let data = try #require(answer.data)
        #expect(data["axis"]?.string == "steepest")
        #expect(data["result_unit"]?.string == "in")
        #expect(data["high_end"]?.string == "+y")
        expectClose(data["azimuth_deg"]?.number ?? .nan, 90, tolerance: 1e-4)
        expectClose(data["rise"]?.number ?? .nan, 24 * tan(Angle(degrees: 2).radians), tolerance: 1e-6)
    }

    @Test("rise: exactly level has no high end and a null azimuth")
    func riseLevel() throws {
        let data = try #require(try reply("rise", #"{"span":1,"unit":"m"}"#, reading()).data)
        #expect(data["rise"]?.number == 0)
        #expect(data["high_end"] == .null)
        #expect(data["azimuth_deg"] == .null)
    }

    @Test("shim: four feet in mm, the highest with none")
    func shimHappyPath() throws {
        let answer = try reply("shim", #"{"length":1.2,"width":0.8,"unit":"m","feet":4,"result_unit":"mm","transaction":"s"}"#,
                               reading(roll: 1))
        #expect(answer.status == "ok")
        #expect(answer.transaction == "s")
        let data = try #require(answer.data)
        #expect(data["unit"]?.string == "m")
        #expect(data["length"]?.number == 1.2)
        #expect(data["width"]?.number == 0.8)
        #expect(data["result_unit"]?.string == "mm")
        #expect(data["highest_foot"]?.string == "front_left")
        #expect(data["reading_age_s"]?.number == 0.25)
        let feet = try #require(data["feet"]?.array)
        #expect(feet.compactMap { $0["foot"]?.string } == ["front_left", "front_right", "rear_left", "rear_right"])
        #expect(feet.compactMap { $0["x"]?.number } == [600, 600, -600, -600])
        #expect(feet.compactMap { $0["y"]?.number } == [400, -400, 400, -400])
        let expected = (800 * tan(Angle(degrees: 1).radians)).rounded(toDecimals: 6)
        #expect(feet.compactMap { $0["shim"]?.number } == [0, expected, 0, expected])
        #expect(data["largest_shim"]?.number == expected)
        #expect(feet.allSatisfy { $0["uncertainty"]?.number != nil })
    }

    @Test("shim: three feet, texts with units, and the live length unit",
          arguments: [#"{"length":"48in","width":"2ft","feet":3}"#, #"{"length":"48in","width":"2ft","feet":3.0}"#,
                      #"{"length":48,"width":24,"unit":"in","feet":3}"#])
    func shimThreeFeet(json: String) throws {
        let data = try #require(try reply("shim", json, reading(pitch: 1, unit: .in)).data)
        #expect(data["unit"]?.string == "in")
        #expect(data["width"]?.number == 24)
        #expect(data["result_unit"]?.string == "in")
        let feet = try #require(data["feet"]?.array)
        #expect(feet.compactMap { $0["foot"]?.string } == ["front", "rear_left", "rear_right"])
        #expect(data["largest_shim"]?.number == (48 * tan(Angle(degrees: 1).radians)).rounded(toDecimals: 6))
    }

    @Test("rise and shim without a reading answer no_reading, echoing the transaction",
          arguments: [("rise", #"{"span":1,"unit":"m","transaction":"x"}"#),
                      ("shim", #"{"length":1,"width":1,"unit":"m","transaction":"x"}"#)])
    func noReading(service: String, json: String) throws {
        let answer = try reply(service, json, nil)
        #expect(answer.status == "error")
        #expect(answer.code == "no_reading")
        #expect(answer.transaction == "x")
        #expect(answer.error == "no current reading: the sensor is starting or faulty; retry in a few seconds.")
    }

    @Test("A level tilted past 89° answers no_reading, saying it must be within 89° of flat",
          arguments: ["rise", "shim"])
    func upsideDown(service: String) throws {
        let upsideDown = CurrentReading(levelGravity: Vector3(x: 0, y: 0, z: -1), standardError: .zero, age: 0.1,
                                        lengthUnit: .mm, isStable: true)
        let json = service == "rise" ? #"{"span":1,"unit":"m"}"# : #"{"length":1,"width":1,"unit":"m"}"#
        let answer = try reply(service, json, upsideDown)
        #expect(answer.code == "no_reading")
        #expect(answer.error?.contains("within 89° of flat") == true)
    }

    @Test("A bad request is bad_request even without a reading",
          arguments: [
              ("rise", #"{"unit":"m"}"#, "needs \"span\""),
              ("rise", #"{"span":0,"unit":"m"}"#, "\"span\" must be greater than 0"),
              ("rise", #"{"span":1,"unit":"m","axis":"yaw"}"#, "give roll, pitch, steepest"),
              ("rise", #"{"span":1,"unit":"m","result_unit":"px"}"#, "\"result_unit\" must be a length unit"),
              ("rise", #"{"span":1,"unit":"m","slope":2}"#, "no key \"slope\"; the accepted keys are \"span\", \"unit\", \"axis\", \"result_unit\", \"transaction\""),
              ("shim", #"{"length":1,"unit":"m"}"#, "needs \"width\""),
              ("shim", #"{"length":1,"width":-1,"unit":"m"}"#, "\"width\" must be greater than 0"),
              ("shim", #"{"length":1,"width":1,"unit":"m","feet":3.5}"#, "\"feet\" must be 3 or 4"),
              ("shim", #"{"length":1,"width":1,"unit":"m","feet":5}"#, "\"feet\" must be 3 or 4"),
              ("shim", #"{"length":1,"width":1,"unit":"m","feet":1e300}"#, "\"feet\" must be 3 or 4"),
              ("shim", #"{"length":1,"width":1,"unit":"m","feet":"4"}"#, "\"feet\" must be a number, such as 4; got a string"),
              ("shim", #"{"length":"2km","width":1}"#, "\"km\" is not a unit"),
          ])
    func badRequestBeforeReading(service: String, json: String, message: String) throws {
        let answer = try reply(service, json, nil)
        #expect(answer.code == "bad_request")
        #expect(answer.error?.contains(message) == true, "\(answer.error ?? "")")
    }
}
