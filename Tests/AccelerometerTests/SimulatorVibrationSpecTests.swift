import Foundation
import Geometry
import SimulatedADXL345
import Testing

/// The machine vibration's spec (`--sim-vibration`): its grammar, every refusal and its message,
/// and a tone's acceleration in closed form.
@Suite("Simulated machine vibration: the spec and its tones")
struct SimulatorVibrationSpecTests {
    // MARK: Grammar

    @Test func aSpecListsItsTonesInOrder() throws {
        let spec = try VibrationSpec(parsing: "z:4.5@50,x:1@120")
        #expect(spec.tones == [
            VibrationTone(axis: .z, velocityRMS: 4.5, frequency: 50),
            VibrationTone(axis: .x, velocityRMS: 1, frequency: 120),
        ])
        #expect(spec.description == "z:4.5@50,x:1@120")
    }

    @Test(arguments: [
        ("y:0.25@1600", "y:0.25@1600"),
        (" z:4.5@50 ,  x:1@120 ", "z:4.5@50,x:1@120"),
        ("x:1e1@12.5", "x:10@12.5"),
        ("z:1@50,z:2@100,x:1@50", "z:1@50,z:2@100,x:1@50"),
        ("x:1000@0.1", "x:1000@0.1"),
    ])
    func spacesAroundTonesAndEitherNumberFormAreFine(text: String, canonical: String) throws {
        let spec = try VibrationSpec(parsing: text)
        #expect(spec.description == canonical)
        #expect(try VibrationSpec(parsing: spec.description) == spec, "the description parses back")
    }

    @Test(arguments: [
        ("", nil, VibrationSpecError.Problem.empty),
        ("  ", nil, .empty),
        ("z:4.5@50,", 2, .emptyTone),
        (",z:4.5@50", 1, .emptyTone),
        ("z:4.5@50,,x:1@120", 2, .emptyTone),
        ("z:4.5 @50", 1, .space("z:4.5 @50")),
        ("z:4.5", 1, .malformed("z:4.5")),
        ("4.5@50", 1, .malformed("4.5@50")),
        ("z@4.5:50", 1, .malformed("z@4.5:50")),
        ("z:4.5@50@60", 1, .malformed("z:4.5@50@60")),
        ("z::4.5@50", 1, .malformed("z::4.5@50")),
        ("Z:4.5@50", 1, .unknownAxis("Z")),
        ("x:1@120,w:1@50", 2, .unknownAxis("w")),
        (":1@50", 1, .unknownAxis("")),
        ("z:0@50", 1, .badVelocity("0")),
        ("z:-1@50", 1, .badVelocity("-1")),
        ("z:inf@50", 1, .badVelocity("inf")),
        ("z:nan@50", 1, .badVelocity("nan")),
        ("z:fast@50", 1, .badVelocity("fast")),
        ("z:1001@50", 1, .badVelocity("1001")),
        ("z:@50", 1, .badVelocity("")),
        ("z:4.5@0", 1, .badFrequency("0")),
        ("z:4.5@-50", 1, .badFrequency("-50")),
        ("z:4.5@1600.5", 1, .badFrequency("1600.5")),
        ("z:4.5@infinity", 1, .badFrequency("infinity")),
        ("z:4.5@50Hz", 1, .badFrequency("50Hz")),
        ("z:4.5@", 1, .badFrequency("")),
        ("z:4.5@50,x:1@120,z:1@50", 3, .repeated(axis: .z, frequency: 50)),
    ] as [(String, Int?, VibrationSpecError.Problem)])
    func aBadSpecIsRefusedNamingTheTone(text: String, tone: Int?, problem: VibrationSpecError.Problem) {
        #expect(throws: VibrationSpecError(tone: tone, problem: problem)) {
            try VibrationSpec(parsing: text)
        }
    }

    @Test func everyRefusalSaysWhatToWriteWithAnExample() {
        let cases: [(String, String)] = [
            ("", "the spec is empty; give tones AXIS:VELOCITY@FREQUENCY (mm/s RMS at Hz), e.g. z:4.5@50,x:1@120."),
            ("z:4.5@50,", "tone 2 is empty (a stray comma?); separate tones with single commas, e.g. z:4.5@50,x:1@120."),
            ("z:4.5 @50", "tone 1 'z:4.5 @50' has a space inside; write a tone without spaces, e.g. z:4.5@50."),
            ("z:4.5", "tone 1 'z:4.5' is not AXIS:VELOCITY@FREQUENCY; write e.g. z:4.5@50 (4.5 mm/s RMS at 50 Hz along z)."),
            ("x:1@120,Z:4.5@50", "tone 2 has axis 'Z'; the axes are x, y and z, lower case, e.g. z:4.5@50."),
            ("z:0@50", "tone 1 has velocity '0'; give mm/s RMS above 0 and at most 1000, e.g. z:4.5@50."),
            ("z:4.5@2000", "tone 1 has frequency '2000'; give Hz above 0 and at most 1600, e.g. z:4.5@50."),
            ("z:1@50,z:2@50", "tone 2 repeats z at 50 Hz; give that axis and frequency once, with the total velocity."),
        ]
        for (text, message) in cases {
            do {
                _ = try VibrationSpec(parsing: text)
                Issue.record("'\(text)' parsed")
            } catch {
                #expect(error.description == message)
            }
        }
    }

    @Test func aSpecOfNoTonesCannotBeBuilt() {
        #expect(VibrationSpec(tones: []) == nil)
        #expect(VibrationSpec(tones: [VibrationTone(axis: .y, velocityRMS: 2, frequency: 25)])?.tones.count == 1)
    }

    // MARK: Acceleration from velocity

    @Test func fourAndAHalfMillimetresPerSecondAtFiftyHertzIsTwoMetresPerSecondSquaredPeak() {
        let tone = VibrationTone(axis: .z, velocityRMS: 4.5, frequency: 50)
        // √2 · 4.5 mm/s · 2π · 50 Hz = 1.99929 m/s²; over g = 9.80665 m/s²: 0.203871 g.
        let peakMetres = 2.0.squareRoot() * 0.0045 * 2 * Double.pi * 50
        #expect(abs(peakMetres - 1.99929) < 1e-5)
        #expect(abs(tone.accelerationPeak - peakMetres / 9.80665) < 1e-15)
        #expect(abs(tone.accelerationPeak - 0.2039) < 5e-5)
        #expect(abs(tone.accelerationRMS - 0.0045 * 2 * Double.pi * 50 / 9.80665) < 1e-15)
    }

    @Test func theAccelerationIsASineOfThatPeakAtTheTonesFrequency() {
        let tone = VibrationTone(axis: .x, velocityRMS: 1, frequency: 120)
        let peak = tone.accelerationPeak
        for k in 0..<50 {
            let t = Double(k) * 0.000_37
            #expect(abs(tone.acceleration(at: t, phase: 0.4) - peak * sin(2 * Double.pi * 120 * t + 0.4)) < 1e-12)
        }
    }

    @Test func theSineStaysInPhaseAfterDaysOfClock() {
        // 50 Hz after ten days of uptime: a whole number of cycles later, the same value, to
        // within the clock reading's own rounding (1.2e-10 s at 8.6e5 s, 4e-8 rad at 50 Hz).
        let tone = VibrationTone(axis: .z, velocityRMS: 4.5, frequency: 50)
        let days = 864_000.0
        for offset in [0.001, 0.005, 0.0123, 0.0199] {
            let early = tone.acceleration(at: offset, phase: 1)
            let late = tone.acceleration(at: days + offset, phase: 1)
            #expect(abs(late - early) < 1e-6 * tone.accelerationPeak, "at +\(offset) s")
        }
    }

    @Test(arguments: [(0.0, 50.0), (-1.0, 50.0), (4.5, 0.0), (4.5, -50.0), (Double.nan, 50.0), (4.5, Double.infinity)])
    func aToneThatIsNotFiniteAndPositiveAddsNothing(velocity: Double, frequency: Double) {
        let tone = VibrationTone(axis: .z, velocityRMS: velocity, frequency: frequency)
        #expect(!tone.isAudible)
        #expect(tone.accelerationPeak == 0)
        #expect(tone.acceleration(at: 0.123, phase: 1) == 0)
    }
}
