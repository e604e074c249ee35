import Geometry
import Testing

/// The one number formatter every module prints its figures with.
@Suite("fixed and plain: numbers as text, without -0 and without a locale")
struct DecimalTextTests {
    @Test("fixed: exactly the decimals asked for, rounded half away from zero, no -0")
    func fixedDecimals() {
        #expect(fixed(0.12, 3) == "0.120")
        #expect(fixed(2.0944, 2) == "2.09")
        #expect(fixed(0.00004, 4) == "0.0000")
        #expect(fixed(-0.00004, 4) == "0.0000")
        #expect(fixed(-1.5, 1) == "-1.5")
        #expect(fixed(1234.5678, 0) == "1235")
        #expect(fixed(9.9996, 3) == "10.000")
        #expect(fixed(0.05, 4) == "0.0500")
    }

    @Test("fixed, signed: a + before positives and zero, never on a -0")
    func fixedSigned() {
        #expect(fixed(3.0414, 3, signed: true) == "+3.041")
        #expect(fixed(-0.01234, 5, signed: true) == "-0.01234")
        #expect(fixed(0, 2, signed: true) == "+0.00")
        #expect(fixed(-0.0001, 2, signed: true) == "+0.00")
    }

    @Test("Non-finite and huge values are written, never trapped on")
    func edges() {
        #expect(fixed(.nan, 3) == "nan")
        #expect(fixed(.infinity, 3) == "inf")
        #expect(fixed(-.infinity, 3, signed: true) == "-inf")
        #expect(fixed(1e300, 2) == "1e+300")
        #expect(fixed(1e300, 2, signed: true) == "+1e+300")
    }

    @Test("plain: at most the decimals, no trailing zeros, and a tiny value is not zero")
    func plainDecimals() {
        #expect(plain(30.162500, 6) == "30.1625")
        #expect(plain(2400, 3) == "2400")
        #expect(plain(2.5, 3, signed: true) == "+2.5")
        #expect(plain(0, 3) == "0")
        #expect(plain(1e-9, 3) == "1e-09")
        #expect(plain(-0.0004, 3) == "-0.0004")
    }
}
