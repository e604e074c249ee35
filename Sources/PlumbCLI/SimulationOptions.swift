import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedChips

/// The `--sim-*` flags: which chip is simulated (`--sim-chip`), its scene, imperfections and
/// faults. Every flag applies to every chip, each in the chip's own terms (see
/// `SimulationOptions+Chips.swift`).
///
/// By default the chip is an ADXL345, ideal but for the datasheet's noise, so `--sim-roll 3`
/// reads 3°.
struct SimulationOptions {
    /// `--sim-chip`: the chip the simulator models.
    var kind = SimulatedChipKind.adxl345
    var roll = Angle.zero
    var pitch = Angle.zero
    var motion = "still"
    /// `--sim-noise-lsb`, in the chip's own LSB (see ``SimulatedChipKind``).
    var noiseLSB: Double?
    var offsetMilligravities: Vector3?
    var gainError: Vector3?
    var seed: UInt64?
    var fault: String?
    /// `--sim-cross-axis`: an explicit matrix (fractions, diagonal 0), or a random bound.
    var crossAxis: CrossAxis?
    /// `--sim-nonlinearity`, fraction of full scale per axis.
    var nonlinearity: Vector3?
    /// `--sim-chip-seed`: a random typical part, which the explicit error flags override.
    var chipSeed: UInt64?
    /// `--sim-script`, parsed.
    var script: AttitudeScript?
    /// `--sim-vibration`, parsed.
    var vibration: VibrationSpec?
    /// `--sim-vibration-noise`, g RMS per axis.
    var vibrationNoise: Double?
    /// `--sim-machine`: seconds running, then seconds stopped.
    var machine: (on: Double, off: Double)?
    /// `--sim-temperature` or `--sim-temperature-cycle`, parsed.
    var temperature: TemperatureFlag?
    /// The first `--sim-*` flag given, to name it when `--sensor sim` is missing.
    var firstFlagGiven: String?

    enum CrossAxis {
        case matrix(Matrix3)
        case random(bound: Double)
    }

    static let motions = ["still", "sweep", "vibration", "square"]

    static let specs: [OptionSpec] = [
        .value("--sim-chip", "KIND", "The simulated chip: adxl345 (default, at 0x53), adxl355 (0x1D) or mpu6050 (0x68);\n"
               + "        every --sim-* flag applies to each, in its own terms."),
        .value("--sim-roll", "DEG", "Simulated roll in degrees, −180…180 (default 0)."),
        .value("--sim-pitch", "DEG", "Simulated pitch in degrees, −90…90 (default 0)."),
        .value("--sim-motion", "KIND", "still (default); sweep (±2° rocking over 60 s); vibration (0.05 g at 25 Hz);\n"
               + "        square (+1° roll steps every 2 s on the monotonic clock, for latency benchmarks)."),
        .value("--sim-noise-lsb", "N", "Noise in the chip's own LSB, 0…100; 0 is noiseless. adxl345: X/Y LSB rms at ≤100 Hz\n"
               + "        (default 0.75; Z scales to 1.1); adxl355: LSB/√Hz at ±2.048 g, 3.9 µg each (default 5.76,\n"
               + "        22.5 µg/√Hz); mpu6050: LSB/√Hz at ±2 g, 61 µg each (default 6.55, 400 µg/√Hz)."),
        .value("--sim-offset-mg", "X,Y,Z", "Zero-g offset error in mg (typical adxl345 ±35, ±35, ±40; adxl355 ±25;\n"
               + "        mpu6050 ±50, ±50, ±80); default 0."),
        .value("--sim-gain-error", "PCT", "Sensitivity error in percent, one for all axes or X,Y,Z (typical adxl345 ±1–3.5,\n"
               + "        adxl355 ±1, mpu6050 ±3); default 0."),
        .value("--sim-cross-axis", "PCT", "Cross-axis sensitivity in percent: one bound (each term drawn within ±PCT from\n"
               + "        the seed) or six terms XY,XZ,YX,YZ,ZX,ZY (XY: y's force seen on x); typical ±1; default 0."),
        .value("--sim-nonlinearity", "PCT", "Nonlinearity in percent of full scale at full scale (a cubic), one or X,Y,Z;\n"
               + "        typical ±0.5 (adxl355 ±0.1); default 0."),
        .value("--sim-chip-seed", "N", "A random typical chip within its datasheet's errors; adxl345: offsets X/Y ±35,\n"
               + "        Z ±40 mg, gain ±1 % (+3.5 % X/Y), cross-axis ±1 %, nonlinearity ±0.5 %; adxl355: offsets ±25 mg,\n"
               + "        drift ±0.02 mg/°C, gain ±1 %, cross-axis ±1 %; mpu6050: offsets X/Y ±50, Z ±80 mg, gain ±3 %,\n"
               + "        cross-axis ±2 %; the flags above override its parts (these two draw no nonlinearity); each\n"
               + "        also drifts within its datasheet's typical ±mg/°C and ±%/°C."),
        .value("--sim-script", "SCRIPT", "Attitudes and holds, e.g. 'face:+z 6s, face:-x 6s, roll:15 3s'; words face:F,\n"
               + "        roll:DEG, pitch:DEG, turn:DEG, surface:ROLL/PITCH, temp:C (a ramp to C °C over the step),\n"
               + "        then a duration (s, m or h, e.g. 2h); the last is held."),
        .value("--sim-temperature", "C", "Die temperature in °C, −40…125 (default 25): the drift follows it; adxl355 and\n"
               + "        mpu6050 read it on their sensors."),
        .value("--sim-temperature-cycle", "MEAN±AMP/PERIOD", "A daily-style die temperature cycle, a sine from its minimum\n"
               + "        now, e.g. 22±8/24h (or 22+-8/24h); PERIOD in s, m or h, 1 s to a week."),
        .value("--sim-vibration", "SPEC", "Machine vibration on top of the scene: AXIS:MM_S@HZ tones, mm/s RMS at Hz,\n"
               + "        comma-separated, e.g. z:4.5@50,x:1@120 (axes x, y, z; above 0, at most 1000 mm/s and 1600 Hz)."),
        .value("--sim-vibration-noise", "G", "Broadband machine vibration: white Gaussian noise, G g rms per axis in every\n"
               + "        sample (above 0, at most 16), on top of the chip's own noise."),
        .value("--sim-machine", "ON:OFF", "The machine vibration runs ON seconds, then stops OFF seconds, repeating from the\n"
               + "        start, e.g. 30:10; needs --sim-vibration or --sim-vibration-noise."),
        .value("--sim-seed", "N", "Noise seed, for repeatable runs (also the vibration's phases and noise)."),
        .value("--sim-fault", "FAULT", "nack, eio, stuck (the Z proof mass: self-test fails), unplug:AFTER:FOR (seconds), or\n"
               + "        flap:PERIOD:DOWN: unplugged DOWN seconds at the end of every PERIOD, e.g. flap:3:1."),
    ]

    /// Seconds between the `square` motion's edges.
    static let squarePeriod = 2.0

    init() {}

    /// nil when no `--sim-*` flag was given.
    init?(_ parsed: ParsedArguments) throws(UsageError) {
        let given = Self.specs.map(\.name).filter { parsed.string($0) != nil }
        guard let first = given.first else { return nil }
        firstFlagGiven = first
        if let kind = try parsed.choice("--sim-chip", from: SimulatedChipKind.allCases.map(\.rawValue)) {
            self.kind = SimulatedChipKind(rawValue: kind)!
        }
        if let roll = try parsed.double("--sim-roll", in: -180...180, what: "an angle in degrees") {
            self.roll = Angle(degrees: roll)
        }
        if let pitch = try parsed.double("--sim-pitch", in: -90...90, what: "an angle in degrees") {
            self.pitch = Angle(degrees: pitch)
        }
        motion = try parsed.choice("--sim-motion", from: Self.motions) ?? "still"
        noiseLSB = try parsed.double("--sim-noise-lsb", in: 0...100, what: "an rms noise in LSB")
        if let offset = try parsed.triple("--sim-offset-mg", allowSingle: false, in: -2000...2000) {
            offsetMilligravities = Vector3(x: offset[0], y: offset[1], z: offset[2])
        }
        if let gain = try parsed.triple("--sim-gain-error", allowSingle: true, in: -50...50) {
            gainError = Vector3(x: gain[0], y: gain[1], z: gain[2]) / 100
        }
        seed = try Self.seed(parsed, "--sim-seed")
        chipSeed = try Self.seed(parsed, "--sim-chip-seed")
        crossAxis = try Self.crossAxis(parsed)
        if let terms = try parsed.triple("--sim-nonlinearity", allowSingle: true, in: -5...5) {
            nonlinearity = Vector3(x: terms[0], y: terms[1], z: terms[2]) / 100
        }
        if let text = parsed.string("--sim-script") {
            if let clash = ["--sim-roll", "--sim-pitch", "--sim-motion"].first(where: { parsed.string($0) != nil }) {
                throw UsageError("--sim-script and \(clash) exclude each other: put the attitude in the script"
                    + " (roll:DEG, pitch:DEG).")
            }
            do { script = try AttitudeScript(parsing: text) } catch { throw UsageError("--sim-script: \(error)") }
        }
        if let fault = parsed.string("--sim-fault") {
            _ = try Self.parseFault(fault)
            self.fault = fault
        }
        try parseVibration(parsed)
        temperature = try TemperatureFlag(parsed)
    }

    /// The largest `--sim-vibration-noise`, g RMS: Plumb's range is ±16 g.
    static let maxVibrationNoise = 16.0

    private mutating func parseVibration(_ parsed: ParsedArguments) throws(UsageError) {
        if let text = parsed.string("--sim-vibration") {
            do { vibration = try VibrationSpec(parsing: text) } catch { throw UsageError("--sim-vibration: \(error)") }
        }
        if let text = parsed.string("--sim-vibration-noise") {
            guard let noise = Double(String(text.trimmingWhitespace)), noise.isFinite, noise > 0,
                  noise <= Self.maxVibrationNoise else {
                throw UsageError("--sim-vibration-noise takes g rms per axis, above 0 and at most"
                    + " \(ParsedArguments.format(Self.maxVibrationNoise)), e.g. 0.02; got '\(text)'.")
            }
            vibrationNoise = noise
        }
        if let text = parsed.string("--sim-machine") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double(String($0)) }
            guard parts.count == 2, let on = parts[0], let off = parts[1], MachineSchedule(on: on, off: off) != nil else {
                throw UsageError("--sim-machine takes ON:OFF, seconds running then seconds stopped, each above 0,"
                    + " e.g. 30:10 or 0.5:1.5; got '\(text)'.")
            }
            guard vibration != nil || vibrationNoise != nil else {
                throw UsageError("--sim-machine switches a machine vibration on and off, and there is none: add"
                    + " --sim-vibration SPEC (e.g. z:4.5@50) or --sim-vibration-noise G (e.g. 0.02).")
            }
            machine = (on, off)
        }
    }

    /// The machine vibration the flags describe, its schedule starting at `now`; nil without one.
    func machineVibration(now: Double) -> MachineVibration? {
        guard vibration != nil || vibrationNoise != nil else { return nil }
        return MachineVibration(
            tones: vibration?.tones ?? [], noise: vibrationNoise ?? 0,
            schedule: machine.flatMap { MachineSchedule(on: $0.on, off: $0.off, start: now) })
    }

    /// The scene the flags describe; a script starts at `now`.
    func scene(now: Double) -> SimulatedScene {
        if let script { return .scripted(script, startingAt: now) }
        return switch motion {
        case "sweep": .sweep(roll: roll, pitch: pitch, amplitude: Angle(degrees: 2), period: 60)
        case "vibration": .vibration(roll: roll, pitch: pitch, amplitude: 0.05, frequency: 25)
        case "square": .square(roll: roll, pitch: pitch, step: Angle(degrees: 1), period: Self.squarePeriod)
        default: .still(roll: roll, pitch: pitch)
        }
    }

    private static func seed(_ parsed: ParsedArguments, _ name: String) throws(UsageError) -> UInt64? {
        guard let text = parsed.string(name) else { return nil }
        guard let seed = UInt64(text) else {
            throw UsageError("\(name) takes a whole number from 0 to \(UInt64.max); got '\(text)'.")
        }
        return seed
    }

    private static func crossAxis(_ parsed: ParsedArguments) throws(UsageError) -> CrossAxis? {
        guard let text = parsed.string("--sim-cross-axis") else { return nil }
        let terms = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace) }
        guard terms.count == 1 || terms.count == 6,
              terms.allSatisfy({ $0 != nil && $0!.isFinite && abs($0!) <= 10 }) else {
            throw UsageError("--sim-cross-axis takes one bound in percent (each term drawn within ±PCT) or six terms"
                + " XY,XZ,YX,YZ,ZX,ZY in percent, each between -10 and 10; got '\(text)'.")
        }
        let t = terms.map { $0! / 100 }
        if t.count == 1 { return .random(bound: abs(t[0])) }
        return .matrix(Matrix3(rows: Vector3(x: 0, y: t[0], z: t[1]), Vector3(x: t[2], y: 0, z: t[3]),
                               Vector3(x: t[4], y: t[5], z: 0)))
    }

    /// What `--sim-fault` asks for, before it is put to a chip.
    enum ParsedFault {
        case connection(SimulatedADXL345.Fault)
        case stuck
        case unplug(after: Double, for: Double)
        case flap(period: Double, down: Double)
    }

    static func parseFault(_ text: String) throws(UsageError) -> ParsedFault {
        switch text {
        case "nack": return .connection(.noAcknowledge)
        case "eio": return .connection(.busError)
        case "stuck": return .stuck
        default:
            let parts = text.split(separator: ":")
            if parts.count == 3, parts[0] == "unplug",
               let after = Double(parts[1]), let duration = Double(parts[2]),
               after >= 0, duration > 0, after.isFinite, duration.isFinite {
                return .unplug(after: after, for: duration)
            }
            if parts.count == 3, parts[0] == "flap",
               let period = Double(parts[1]), let down = Double(parts[2]),
               period.isFinite, down > 0, down < period {
                return .flap(period: period, down: down)
            }
            throw UsageError("--sim-fault takes nack, eio, stuck, unplug:AFTER:FOR (seconds, e.g. unplug:2:3) or"
                + " flap:PERIOD:DOWN (seconds, DOWN above 0 and below PERIOD, e.g. flap:3:1); got '\(text)'.")
        }
    }
}
