import Geometry
import Ruler
import Testing

/// Parses `text`, expecting failure, and returns the error (nil and a recorded issue otherwise).
private func parseError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> LengthParseError? {
    do {
        let parsed = try LengthText(parsing: text)
        Issue.record("\"\(text)\" parsed as \(parsed), expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("LengthText parsing")
struct LengthTextTests {
    @Test("Decimals, fractions and mixed numbers read with their unit",
          arguments: [
              ("30cm", 30, RulerUnit.length(.cm)), ("12 in", 12, .length(.in)), ("1.2m", 1.2, .length(.m)),
              ("3/8in", 0.375, .length(.in)), ("1 3/16in", 1.1875, .length(.in)), ("1-3/16 in", 1.1875, .length(.in)),
              ("1 - 3/16 in", 1.1875, .length(.in)), ("3 / 8 in", 0.375, .length(.in)),
              ("412px", 412, .px), ("  30  CM ", 30, .length(.cm)), ("-2.5e1 mm", -25, .length(.mm)),
              ("-1 3/16in", -1.1875, .length(.in)), ("-3/8in", -0.375, .length(.in)), ("+5 ft", 5, .length(.ft)),
              (".5in", 0.5, .length(.in)), ("1 3/16\"", 1.1875, .length(.in)), ("5'", 5, .length(.ft)),
              ("2 inches", 2, .length(.in)), ("0 mm", 0, .length(.mm)),
          ])
    func accepted(text: String, value: Double, unit: RulerUnit) throws {
        let parsed = try LengthText(parsing: text)
        #expect(parsed.value == value)
        #expect(parsed.unit == unit)
    }

    @Test("A bare number has no unit", arguments: [("30", 30.0), ("1 3/16", 1.1875), ("7/8", 0.875), (" 2.5 ", 2.5)])
    func bareNumber(text: String, value: Double) throws {
        let parsed = try LengthText(parsing: text)
        #expect(parsed.value == value)
        #expect(parsed.unit == nil)
    }

    @Test("Every malformed text is refused with the reason and the accepted forms",
          arguments: [
              ("", LengthParseError.Reason.empty), ("   ", .empty),
              ("abc", .missingNumber), ("cm", .missingNumber), ("-", .missingNumber), ("/8in", .missingNumber),
              ("nan", .nonFinite), ("inf in", .nonFinite), ("-infinity", .nonFinite), ("1e999in", .nonFinite),
              ("1/0in", .zeroDenominator), ("1 3/0in", .zeroDenominator),
              ("3/-8in", .negativeDenominator), ("1 3/-16 in", .negativeDenominator),
              ("3/", .incompleteFraction), ("3/in", .incompleteFraction), ("1 3/", .incompleteFraction),
              ("1.5/2in", .fractionNotWhole), ("3/8.5in", .fractionNotWhole), ("1.5 3/16in", .fractionNotWhole),
              ("1e1 3/16in", .fractionNotWhole),
              ("1 2 3in", .extraNumber), ("1 2in", .extraNumber), ("1 3/16 5in", .extraNumber), ("3/8/2", .extraNumber),
              ("30 furlongs", .unknownUnit("furlongs")), ("30 -in", .unknownUnit("-in")), ("5.cm", .unknownUnit(".cm")),
              ("0x1Ap", .unknownUnit("x1Ap")),
          ])
    func refused(text: String, reason: LengthParseError.Reason) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == reason)
        #expect(error.text == text)
        #expect(error.description.contains("give a length such as") || error.description.contains("Give a length such as"))
    }

    @Test("An unknown unit's message names the units that exist")
    func unknownUnitListsUnits() throws {
        let error = try #require(parseError("30 furlongs"))
        #expect(error.description.contains("\"furlongs\" is not a unit"))
        #expect(error.description.contains("mm, cm, m, in, ft, px"))
    }
}
