#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Level

/// A scripted sequence of attitudes and holds: the simulated chip turned by a hand, for tests,
/// the calibration benchmark and the non-interactive `plumb calibrate`.
///
/// **Grammar** (`--sim-script`), strict: steps separated by commas; a step is zero or more
/// words, then its duration, separated by spaces.
///
/// ```
/// script   = step *( "," step )
/// step     = *( word SP ) duration
/// word     = "face:" ("+x"|"-x"|"+y"|"-y"|"+z"|"-z")   which axis points up
///          | "roll:" DEG | "pitch:" DEG                 the device against the surface
///          | "turn:" DEG                                heading about the surface normal
///          | "surface:" DEG "/" DEG                     the surface's roll/pitch
///          | "temp:" CELSIUS                            die temperature, −40…125 °C
/// duration = NUMBER ("s" | "m" | "h")                   seconds, minutes or hours: more
///                                                       than 0.5 s, at most a day (24h)
/// ```
///
/// e.g. `face:+z 4s, face:-z 4s, surface:0.3/-0.2 turn:0 4s, turn:180 4s`, or
/// `face:+z 10m, temp:35 2h, 1h` (ten minutes at the configured temperature, a ramp to 35 °C over
/// two hours, an hour held there).
///
/// **Meaning.** Each word sets one part of the ``SimulatedPose``; the parts a step does not name
/// keep their value from the step before (at the start: flat, +z up, level surface). A step lasts
/// its duration from when it begins, and the first ``transition`` of every step but the first is
/// the move from the previous attitude: the gravity direction swings over along the shortest arc
/// while the device is lifted and set down (±``liftG`` along the vertical, a full sine), so the
/// stillness judgement always sees the handling, even for a turn that changes nothing it senses
/// (180° on a level surface). After the last step the last attitude is held for ever.
///
/// `temp:C` ramps the die temperature linearly over its step, from what it was when the step
/// began to C at its end; steps without one hold the last value, and so does the time after the
/// script. Until the first `temp:` step the configured temperature (`--sim-temperature`, a
/// cycle, a test's ``SceneControls/setTemperature(_:)``) is in force; from it on the script's
/// temperatures override the configured one (``SimulatedTemperature/scripted(_:start:base:)``).
/// A step lasts at most a day, as before the units came; a longer ramp is several steps.
public struct AttitudeScript: Sendable, Hashable {
    /// One attitude and how long it lasts.
    public struct Step: Sendable, Hashable {
        public var pose: SimulatedPose
        /// Seconds from the start of the step (its transition included) to the next step.
        public var duration: Double
        /// The die temperature the step ramps to by its end, °C; nil holds the temperature.
        public var temperature: Double?

        public init(pose: SimulatedPose, duration: Double, temperature: Double? = nil) {
            self.pose = pose
            self.duration = duration
            self.temperature = temperature
        }
    }

    /// The steps, in order; never empty.
    public let steps: [Step]
    /// Whether any step names a temperature, so that the script's temperatures are in force.
    public let namesTemperature: Bool

    /// How long the move into each step (but the first) takes, in seconds.
    public static let transition = 0.5
    /// The peak of the lift during a move, in g.
    public static let liftG = 0.1
    /// The longest step, a day, in seconds.
    public static let maxDuration = 86_400.0
    /// The temperatures a `temp:` word takes, °C: the industrial range the chips are specified over.
    public static let temperatureRange = -40.0...125.0

    /// A script of `steps`; nil when there are none or a duration is not above ``transition``.
    public init?(steps: [Step]) {
        guard !steps.isEmpty,
              steps.allSatisfy({ $0.duration > Self.transition && $0.duration <= Self.maxDuration }) else { return nil }
        self.steps = steps
        namesTemperature = steps.contains { $0.temperature != nil }
    }

    /// The script's length in seconds; the last attitude holds after it.
    public var duration: Double { steps.reduce(0) { $0 + $1.duration } }

    /// Where each step begins, in seconds from the script's start.
    public var stepStarts: [Double] {
        var starts: [Double] = []
        var time = 0.0
        for step in steps {
            starts.append(time)
            time += step.duration
        }
        return starts
    }

    /// The specific force the chip senses `elapsed` seconds after the script started, in g.
    public func gravity(atElapsed elapsed: Double) -> Vector3 {
        guard elapsed.isFinite, elapsed > 0 else { return steps[0].pose.gravity }
        var start = 0.0
        for (index, step) in steps.enumerated() {
            let end = start + step.duration
            if elapsed < end || index == steps.count - 1 {
                let into = elapsed - start
                guard index > 0, into < Self.transition else { return step.pose.gravity }
                return Self.moving(from: steps[index - 1].pose.gravity, to: step.pose.gravity,
                                   fraction: into / Self.transition)
            }
            start = end
        }
        return steps[steps.count - 1].pose.gravity
    }

    /// Part way through a move: the direction along the great circle from `a` to `b`, lifted.
    static func moving(from a: Vector3, to b: Vector3, fraction s: Double) -> Vector3 {
        let lift = 1 + liftG * sin(2 * Double.pi * s)
        let angle = atan2(a.cross(b).magnitude, a.dot(b))
        guard angle > 1e-9 else { return a * lift }
        // Opposite directions (a tumble to the opposite face) have no unique arc: swing over
        // any axis perpendicular to both.
        let axis = a.cross(b).normalized ?? (a.cross(Vector3(x: 1, y: 0, z: 0)).normalized
            ?? a.cross(Vector3(x: 0, y: 1, z: 0)).normalized!)
        let theta = angle * s
        // Rodrigues: a rotated by θ about the unit axis (perpendicular to a).
        let rotated = a * cos(theta) + axis.cross(a) * sin(theta) + axis * (axis.dot(a) * (1 - cos(theta)))
        return rotated * lift
    }
}

extension AttitudeScript {
    /// Parses the `--sim-script` grammar above.
    ///
    /// - Throws: ``AttitudeScriptError`` naming the step, the word and what is allowed.
    public init(parsing text: String) throws(AttitudeScriptError) {
        let stepTexts = text.split(separator: ",", omittingEmptySubsequences: false)
        var pose = SimulatedPose.level
        var steps: [Step] = []
        for (index, stepText) in stepTexts.enumerated() {
            let number = index + 1
            let words = stepText.split(separator: " ")
            guard let last = words.last else { throw AttitudeScriptError(step: number, problem: .emptyStep) }
            var named: Set<String> = []
            var temperature: Double?
            for word in words.dropLast() {
                let key = try Self.apply(String(word), to: &pose, temperature: &temperature, step: number)
                guard named.insert(key).inserted else {
                    throw AttitudeScriptError(step: number, problem: .repeated(key))
                }
            }
            steps.append(Step(pose: pose, duration: try Self.duration(String(last), step: number),
                              temperature: temperature))
        }
        // Every duration was checked above, and there is at least one step.
        self.init(steps: steps)!
    }

    /// Seconds in one unit of each duration suffix.
    private static let durationUnits: [Character: Double] = ["s": 1, "m": 60, "h": 3600]

    /// The seconds a duration word says: a number then `s`, `m` or `h` (`2.5s`, `10m`, `24h`); nil
    /// for anything else. No range is checked: each user of the word checks its own.
    public static func seconds(parsing word: String) -> Double? {
        guard let unit = word.last.flatMap({ durationUnits[$0] }), let count = Double(word.dropLast()),
              count.isFinite else { return nil }
        return count * unit
    }

    private static func duration(_ word: String, step: Int) throws(AttitudeScriptError) -> Double {
        guard let seconds = seconds(parsing: word) else {
            let problem: AttitudeScriptError.Problem = word.contains(":") ? .missingDuration(word) : .badDuration(word)
            throw AttitudeScriptError(step: step, problem: problem)
        }
        guard seconds > transition, seconds <= maxDuration else {
            throw AttitudeScriptError(step: step, problem: .durationOutOfRange(word))
        }
        return seconds
    }

    /// Applies one `key:value` word; returns the key.
    private static func apply(_ word: String, to pose: inout SimulatedPose, temperature: inout Double?,
                              step: Int) throws(AttitudeScriptError) -> String {
        guard let colon = word.firstIndex(of: ":") else {
            throw AttitudeScriptError(step: step, problem: .unknownWord(word))
        }
        let key = String(word[..<colon]), value = String(word[word.index(after: colon)...])
        switch key {
        case "face":
            guard let face = Face(rawValue: value) else { throw AttitudeScriptError(step: step, problem: .badFace(value)) }
            pose.face = face
        case "roll":
            pose.roll = try angle(value, word: word, limit: 180, step: step)
        case "pitch":
            pose.pitch = try angle(value, word: word, limit: 90, step: step)
        case "turn":
            pose.turn = try angle(value, word: word, limit: 360, step: step)
        case "surface":
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw AttitudeScriptError(step: step, problem: .badSurface(word)) }
            pose.surfaceRoll = try angle(String(parts[0]), word: word, limit: 45, step: step)
            pose.surfacePitch = try angle(String(parts[1]), word: word, limit: 45, step: step)
        case "temp":
            guard let celsius = Double(value), celsius.isFinite, temperatureRange.contains(celsius) else {
                throw AttitudeScriptError(step: step, problem: .badTemperature(word))
            }
            temperature = celsius
        default:
            throw AttitudeScriptError(step: step, problem: .unknownWord(word))
        }
        return key
    }

    private static func angle(_ text: String, word: String, limit: Double, step: Int) throws(AttitudeScriptError) -> Angle {
        guard let degrees = Double(text), degrees.isFinite else {
            throw AttitudeScriptError(step: step, problem: .badAngle(word: word, limit: limit))
        }
        guard abs(degrees) <= limit else {
            throw AttitudeScriptError(step: step, problem: .badAngle(word: word, limit: limit))
        }
        return Angle(degrees: degrees)
    }
}

/// Why a `--sim-script` was refused; the ``description`` names the step and shows the fix.
public struct AttitudeScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// Nothing between two commas (or an empty script).
        case emptyStep
        /// A word that is not `face:`, `roll:`, `pitch:`, `turn:`, `surface:` or `temp:`.
        case unknownWord(String)
        /// The same key twice in one step.
        case repeated(String)
        /// `face:` with something other than ±x, ±y, ±z.
        case badFace(String)
        /// An angle that is not a number in degrees within ±limit.
        case badAngle(word: String, limit: Double)
        /// `surface:` not of the form ROLL/PITCH.
        case badSurface(String)
        /// `temp:` with something other than °C within ``AttitudeScript/temperatureRange``.
        case badTemperature(String)
        /// The last word is a `key:value` word: the step has no duration.
        case missingDuration(String)
        /// The last word is not a number followed by `s`, `m` or `h`.
        case badDuration(String)
        /// A duration of 0.5 s or less, or over a day.
        case durationOutOfRange(String)
    }

    /// The step, counted from 1.
    public let step: Int
    public let problem: Problem

    public init(step: Int, problem: Problem) {
        self.step = step
        self.problem = problem
    }

    public var description: String {
        let what: String = switch problem {
        case .emptyStep:
            "is empty; each step is words then a duration, e.g. 'face:+x 3s'"
        case .unknownWord(let word):
            "has '\(word)'; the words are face:F, roll:DEG, pitch:DEG, turn:DEG, surface:ROLL/PITCH and temp:CELSIUS"
        case .repeated(let key):
            "names \(key): twice; give it once"
        case .badFace(let value):
            "has face:\(value); a face is +x, -x, +y, -y, +z or -z"
        case .badAngle(let word, let limit):
            "has '\(word)'; give degrees between -\(ParsedLimit(limit)) and \(ParsedLimit(limit))"
        case .badSurface(let word):
            "has '\(word)'; the surface is surface:ROLL/PITCH in degrees, e.g. surface:0.3/-0.2"
        case .badTemperature(let word):
            "has '\(word)'; give the die temperature in °C between -40 and 125, e.g. temp:35"
        case .missingDuration(let word):
            "ends with '\(word)' and no duration; end each step with one, e.g. '\(word) 3s'"
        case .badDuration(let word):
            "ends with '\(word)'; a duration is seconds with an s, or minutes or hours with m or h, e.g. 3s, 2.5s, 10m or 2h"
        case .durationOutOfRange(let word):
            "lasts \(word); a step lasts more than \(ParsedLimit(AttitudeScript.transition)) s (its move takes that) and at most a day (24h)"
        }
        return "step \(step) \(what)."
    }

    /// A limit as people write it: `90`, `0.5`.
    private struct ParsedLimit: CustomStringConvertible {
        let value: Double
        init(_ value: Double) { self.value = value }
        var description: String { value.plainText }
    }
}
