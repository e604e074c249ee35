#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// One sinusoidal vibration of the machine the chip is mounted on, along one device axis, given
/// as vibration monitoring gives it: velocity in mm/s RMS at a frequency in Hz.
///
/// A sine of velocity RMS `v` at `f` Hz has velocity amplitude `√2·v` and acceleration amplitude
/// `√2·v·2πf`; the chip senses that acceleration (``accelerationPeak``, in g).
public struct VibrationTone: Sendable, Hashable {
    /// A device axis.
    public enum Axis: String, Sendable, Hashable, CaseIterable {
        case x, y, z
    }

    /// The axis it shakes along, device frame.
    public var axis: Axis
    /// Velocity, mm/s RMS.
    public var velocityRMS: Double
    /// Frequency, Hz.
    public var frequency: Double

    /// Standard gravity, m/s², the g that the chip's output is scaled in.
    public static let standardGravity = 9.80665
    /// The highest frequency ``VibrationSpec`` accepts, Hz: half the ADXL345's top ODR of
    /// 3200 Hz, the highest a chip can show without aliasing.
    public static let maxFrequency = 1600.0
    /// The highest velocity ``VibrationSpec`` accepts, mm/s RMS: far beyond ISO 10816's worst
    /// zones (tens of mm/s), so that only a slip such as 4500 for 4.5 is refused.
    public static let maxVelocityRMS = 1000.0

    /// A tone. Values are not checked here (``VibrationSpec/init(parsing:)`` checks text); a tone
    /// whose velocity or frequency is not finite and positive adds nothing to the chip.
    public init(axis: Axis, velocityRMS: Double, frequency: Double) {
        self.axis = axis
        self.velocityRMS = velocityRMS
        self.frequency = frequency
    }

    /// Whether the tone moves the chip at all: velocity and frequency finite and above 0.
    public var isAudible: Bool {
        velocityRMS.isFinite && velocityRMS > 0 && frequency.isFinite && frequency > 0
    }

    /// The acceleration's RMS, in g: `v·2πf` (v in m/s) over standard gravity.
    public var accelerationRMS: Double {
        guard isAudible else { return 0 }
        return velocityRMS / 1000 * 2 * Double.pi * frequency / Self.standardGravity
    }

    /// The acceleration's amplitude (peak), in g: `√2` times ``accelerationRMS``. 4.5 mm/s RMS at
    /// 50 Hz is 2.0 m/s², 0.204 g.
    public var accelerationPeak: Double {
        2.0.squareRoot() * accelerationRMS
    }

    /// The acceleration along ``axis`` at `time` seconds, in g: `peak · sin(2πf·t + phase)`.
    ///
    /// The cycle's fraction comes from the time's remainder by the period (exact in floating
    /// point), as for the sweep scene, so the phase stays as accurate as the time itself at the
    /// large readings of a monotonic clock: after ten days, about 1e-10 s.
    public func acceleration(at time: Double, phase: Double) -> Double {
        guard isAudible, time.isFinite else { return 0 }
        let period = 1 / frequency
        let fraction = time.truncatingRemainder(dividingBy: period) / period
        return accelerationPeak * sin(2 * Double.pi * fraction + phase)
    }
}

/// The machine's tones, as `--sim-vibration` gives them.
///
/// **Grammar**, strict: tones separated by commas, each `AXIS:VELOCITY@FREQUENCY`, e.g.
/// `z:4.5@50,x:1@120` (4.5 mm/s RMS at 50 Hz along z and 1 mm/s RMS at 120 Hz along x).
///
/// - the axis is `x`, `y` or `z`, lower case as everywhere on Plumb's command line;
/// - the velocity is mm/s RMS, above 0 and at most ``VibrationTone/maxVelocityRMS``;
/// - the frequency is Hz, above 0 and at most ``VibrationTone/maxFrequency``;
/// - spaces may stand around a tone (`z:4.5@50, x:1@120`) but not inside one;
/// - an empty tone (a stray or trailing comma) is refused, and so is the same axis and frequency
///   twice, whose sum would depend on the tones' phases: give one tone of the total velocity.
///   The same axis at two frequencies, or one frequency on two axes, is fine.
public struct VibrationSpec: Sendable, Hashable, CustomStringConvertible {
    /// The tones, in the order given; never empty.
    public let tones: [VibrationTone]

    /// A spec of `tones`; nil when there are none.
    public init?(tones: [VibrationTone]) {
        guard !tones.isEmpty else { return nil }
        self.tones = tones
    }

    /// Parses the grammar above.
    ///
    /// - Throws: ``VibrationSpecError`` naming the tone, what is wrong with it and an example.
    public init(parsing text: String) throws(VibrationSpecError) {
        guard !text.allSatisfy(\.isWhitespace) else { throw VibrationSpecError(tone: nil, problem: .empty) }
        var tones: [VibrationTone] = []
        for (index, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let tone = try Self.tone(String(part.trimmingWhitespace), number: index + 1)
            if tones.contains(where: { $0.axis == tone.axis && $0.frequency == tone.frequency }) {
                throw VibrationSpecError(tone: index + 1, problem: .repeated(axis: tone.axis, frequency: tone.frequency))
            }
            tones.append(tone)
        }
        self.tones = tones
    }

    /// The spec as it parses back: `z:4.5@50,x:1@120`.
    public var description: String {
        tones.map { "\($0.axis.rawValue):\($0.velocityRMS.plainText)@\($0.frequency.plainText)" }
            .joined(separator: ",")
    }

    private static func tone(_ text: String, number: Int) throws(VibrationSpecError) -> VibrationTone {
        func fail(_ problem: VibrationSpecError.Problem) -> VibrationSpecError {
            VibrationSpecError(tone: number, problem: problem)
        }
        guard !text.isEmpty else { throw fail(.emptyTone) }
        guard !text.contains(where: \.isWhitespace) else { throw fail(.space(text)) }
        guard let colon = text.firstIndex(of: ":"), let at = text.firstIndex(of: "@"), colon < at,
              text.filter({ $0 == ":" }).count == 1, text.filter({ $0 == "@" }).count == 1 else {
            throw fail(.malformed(text))
        }
        let axisText = String(text[..<colon])
        let velocityText = String(text[text.index(after: colon)..<at])
        let frequencyText = String(text[text.index(after: at)...])
        guard let axis = VibrationTone.Axis(rawValue: axisText) else { throw fail(.unknownAxis(axisText)) }
        guard let velocity = Double(velocityText), velocity.isFinite, velocity > 0,
              velocity <= VibrationTone.maxVelocityRMS else {
            throw fail(.badVelocity(velocityText))
        }
        guard let frequency = Double(frequencyText), frequency.isFinite, frequency > 0,
              frequency <= VibrationTone.maxFrequency else {
            throw fail(.badFrequency(frequencyText))
        }
        return VibrationTone(axis: axis, velocityRMS: velocity, frequency: frequency)
    }
}

/// Why a `--sim-vibration` spec was refused; the ``description`` names the tone and shows the fix.
public struct VibrationSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// No tones at all.
        case empty
        /// Nothing between two commas, or after the last.
        case emptyTone
        /// A space inside a tone.
        case space(String)
        /// Not of the form `AXIS:VELOCITY@FREQUENCY`.
        case malformed(String)
        /// An axis other than `x`, `y` or `z`.
        case unknownAxis(String)
        /// A velocity that is not a number above 0 and at most the limit.
        case badVelocity(String)
        /// A frequency that is not a number above 0 and at most the limit.
        case badFrequency(String)
        /// The same axis and frequency as an earlier tone.
        case repeated(axis: VibrationTone.Axis, frequency: Double)
    }

    /// The tone, counted from 1; nil when the whole spec is at fault.
    public let tone: Int?
    public let problem: Problem

    public init(tone: Int?, problem: Problem) {
        self.tone = tone
        self.problem = problem
    }

    /// The example every message ends with.
    static let example = "z:4.5@50,x:1@120"

    public var description: String {
        let velocityLimit = VibrationTone.maxVelocityRMS.plainText
        let frequencyLimit = VibrationTone.maxFrequency.plainText
        let what: String = switch problem {
        case .empty:
            "is empty; give tones AXIS:VELOCITY@FREQUENCY (mm/s RMS at Hz), e.g. \(Self.example)"
        case .emptyTone:
            "is empty (a stray comma?); separate tones with single commas, e.g. \(Self.example)"
        case .space(let text):
            "'\(text)' has a space inside; write a tone without spaces, e.g. z:4.5@50"
        case .malformed(let text):
            "'\(text)' is not AXIS:VELOCITY@FREQUENCY; write e.g. z:4.5@50 (4.5 mm/s RMS at 50 Hz along z)"
        case .unknownAxis(let axis):
            "has axis '\(axis)'; the axes are x, y and z, lower case, e.g. z:4.5@50"
        case .badVelocity(let text):
            "has velocity '\(text)'; give mm/s RMS above 0 and at most \(velocityLimit), e.g. z:4.5@50"
        case .badFrequency(let text):
            "has frequency '\(text)'; give Hz above 0 and at most \(frequencyLimit), e.g. z:4.5@50"
        case .repeated(let axis, let frequency):
            "repeats \(axis.rawValue) at \(frequency.plainText) Hz; give that axis and frequency once,"
                + " with the total velocity"
        }
        guard let tone else { return "the spec \(what)." }
        return "tone \(tone) \(what)."
    }
}
