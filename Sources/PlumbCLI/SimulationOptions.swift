import I2C
import PlumbDomain
import SimulatedADXL345

/// The `--sim-*` flags: the simulated ADXL345's scene, imperfections and faults.
///
/// By default the chip is ideal but for the datasheet's noise, so `--sim-roll 3` reads 3°.
struct SimulationOptions {
    var roll = Angle.zero
    var pitch = Angle.zero
    var motion = "still"
    var noiseLSB: Double?
    var offsetMilligravities: Vector3 = .zero
    var gainError: Vector3 = .zero
    var seed: UInt64?
    var fault: String?
    /// The first `--sim-*` flag given, to name it when `--sensor sim` is missing.
    var firstFlagGiven: String?

    static let motions = ["still", "sweep", "vibration", "square"]

    static let specs: [OptionSpec] = [
        .value("--sim-roll", "DEG", "Simulated roll in degrees, −180…180 (default 0)."),
        .value("--sim-pitch", "DEG", "Simulated pitch in degrees, −90…90 (default 0)."),
        .value("--sim-motion", "KIND", "still (default); sweep (±2° rocking over 60 s); vibration (0.05 g at 25 Hz);\n"
               + "        square (+1° roll steps every 2 s on the monotonic clock, for latency benchmarks)."),
        .value("--sim-noise-lsb", "N", "X/Y noise in LSB rms at ≤100 Hz (default 0.75; Z scales to 1.1); 0 is noiseless."),
        .value("--sim-offset-mg", "X,Y,Z", "Zero-g offset error in mg (typical ±35, ±35, ±40); default 0."),
        .value("--sim-gain-error", "PCT", "Sensitivity error in percent, one for all axes or X,Y,Z (typical ±1–3.5); default 0."),
        .value("--sim-seed", "N", "Noise seed, for repeatable runs."),
        .value("--sim-fault", "FAULT", "nack, eio, stuck (self-test fails) or unplug:AFTER:FOR (seconds)."),
    ]

    /// Seconds between the `square` motion's edges.
    static let squarePeriod = 2.0

    init() {}

    /// nil when no `--sim-*` flag was given.
    init?(_ parsed: ParsedArguments) throws(UsageError) {
        let given = Self.specs.map(\.name).filter { parsed.string($0) != nil }
        guard let first = given.first else { return nil }
        firstFlagGiven = first
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
        if let text = parsed.string("--sim-seed") {
            guard let seed = UInt64(text) else {
                throw UsageError("--sim-seed takes a whole number from 0 to \(UInt64.max); got '\(text)'.")
            }
            self.seed = seed
        }
        if let fault = parsed.string("--sim-fault") {
            _ = try Self.parseFault(fault)
            self.fault = fault
        }
    }

    /// The scene the flags describe.
    var scene: SimulatedScene {
        switch motion {
        case "sweep": .sweep(roll: roll, pitch: pitch, amplitude: Angle(degrees: 2), period: 60)
        case "vibration": .vibration(roll: roll, pitch: pitch, amplitude: 0.05, frequency: 25)
        case "square": .square(roll: roll, pitch: pitch, step: Angle(degrees: 1), period: Self.squarePeriod)
        default: .still(roll: roll, pitch: pitch)
        }
    }

    /// Builds the simulated chip, sampling in real time.
    func makeChip(address: I2CAddress) -> SimulatedADXL345 {
        var configuration = SimulatedADXL345.Configuration(address: address, scene: scene)
        if let noiseLSB { configuration.noiseXY = noiseLSB }
        configuration.offset = offsetMilligravities
        configuration.gain = gainError
        if let seed { configuration.seed = seed }
        let clock = MonotonicSimulationClock()
        if let fault, let parsed = try? Self.parseFault(fault) {
            switch parsed {
            case .stuck:
                configuration.selfTestResponse = Vector3(x: 250, y: -250, z: 0)
            case .connection(let fault):
                configuration.fault = fault
            case .unplug(let after, let duration):
                configuration.fault = .unplugged(at: clock.now() + after, for: duration)
            }
        }
        return SimulatedADXL345(configuration: configuration, clock: clock)
    }

    private enum ParsedFault {
        case connection(SimulatedADXL345.Fault)
        case stuck
        case unplug(after: Double, for: Double)
    }

    private static func parseFault(_ text: String) throws(UsageError) -> ParsedFault {
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
            throw UsageError("--sim-fault takes nack, eio, stuck or unplug:AFTER:FOR (seconds, e.g. unplug:2:3); got '\(text)'.")
        }
    }
}
