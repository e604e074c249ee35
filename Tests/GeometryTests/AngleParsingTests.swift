import Geometry
import GeometryTesting
import Testing

/// Parses `text`, expecting failure, and returns the error (nil and a recorded issue otherwise).
private func parseError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> AngleParseError? {
    do {
        let angle = try Angle.parse(text)
        Issue.record("\"\(text)\" parsed as \(angle.degrees)°, expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("Angle.parse")
struct AngleParsingTests {
    @Test("Every accepted form reads as the same angle Angle(_:unit:) gives",
          arguments: [
              ("0.25", 0.25, AngleUnit.deg), ("-0.25", -0.25, .deg), ("+0.25", 0.25, .deg),
              ("3", 3, .deg), (".5", 0.5, .deg), ("1e-2", 0.01, .deg), ("2.5E+1", 25, .deg),
              ("  0.25\t", 0.25, .deg),
              ("0.1deg", 0.1, .deg), ("0.1 deg", 0.1, .deg), ("0.1 °", 0.1, .deg), ("0.1°", 0.1, .deg),
              ("0.1 DEG", 0.1, .deg), ("-1.5e-1°", -0.15, .deg),
              ("1.5 mm/m", 1.5, .mmPerM), ("1.5mm/m", 1.5, .mmPerM), ("1.5mm_per_m", 1.5, .mmPerM),
              ("1.5 mm_per_m", 1.5, .mmPerM), ("-1.5  mm/m", -1.5, .mmPerM),
              ("0.2%", 0.2, .percent), ("0.2 %", 0.2, .percent), ("0.2 percent", 0.2, .percent),
              ("0.2percent", 0.2, .percent),
              ("0.5 in/ft", 0.5, .inPerFt), ("0.5in/ft", 0.5, .inPerFt), ("0.5in_per_ft", 0.5, .inPerFt),
              ("0.5 in_per_ft", 0.5, .inPerFt),
          ])
    func acceptedForms(text: String, value: Double, unit: AngleUnit) throws {
        #expect(try Angle.parse(text) == Angle(value, unit: unit))
    }

    @Test("A bare number means degrees")
    func bareNumberIsDegrees() throws {
        #expect(try Angle.parse("0.25") == Angle(degrees: 0.25))
        #expect(try Angle.parse("45") == Angle(degrees: 45))
    }

    @Test("Slopes become angles through atan: 100 % and 12 in/ft are 45°")
    func slopesAreAngles() throws {
        expectClose(try Angle.parse("100%"), degrees: 45)
        expectClose(try Angle.parse("12 in/ft"), degrees: 45)
        expectClose(try Angle.parse("1000 mm/m"), degrees: 45)
    }

    @Test("Empty or blank text is rejected as empty", arguments: ["", " ", "\t\n"])
    func empty(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == .empty)
        #expect(error.description.contains("is empty"))
    }

    @Test("NaN, infinities and numbers too large for a Double are rejected as not finite",
          arguments: ["nan", "NaN", "-nan deg", "inf", "+inf", "-Infinity", "infinity %", "1e400", "-1e999 mm/m"])
    func nonFinite(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == .nonFinite)
        #expect(error.description.contains("not finite"))
    }

    @Test("Text that does not start with a number is rejected",
          arguments: ["abc", "deg", "°0.1", "mm/m 1.5", "- 1", "+", "-", ".", "e5", "information", "−1"])
    func missingNumber(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == .missingNumber)
        #expect(error.description.contains("does not start with a number"))
    }

    @Test("A number followed by something that is not a unit names that text",
          arguments: [
              ("0.1 furlongs", "furlongs"), ("0.1 mm", "mm"), ("0,1", ",1"), ("0x10", "x10"),
              ("1..2", "..2"), ("5.", "."), ("1 2", "2"), ("0.1 ° °", "° °"), ("0.1deg!", "deg!"),
              ("2e", "e"), ("1.5 mm / m", "mm / m"), ("3 degrees", "degrees"), ("1 rad", "rad"),
          ])
    func unknownUnit(text: String, unit: String) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == .unknownUnit(unit))
        #expect(error.description.contains("\"\(unit)\" is not a unit"))
    }

    @Test("Every error message quotes the text and lists every unit name and symbol",
          arguments: ["", "nan", "abc", "0.1 furlongs"])
    func messageTeachesTheForms(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.text == text)
        let message = error.description
        #expect(message.contains("\"\(text)\""))
        for unit in AngleUnit.allCases {
            #expect(message.contains(unit.rawValue), "missing \(unit.rawValue) in: \(message)")
            #expect(message.contains(unit.symbol), "missing \(unit.symbol) in: \(message)")
        }
        #expect(message.contains("degrees"))
        #expect(message.contains("0.25"))
    }
}
