import Accelerometers
import Foundation
import Geometry
import SimulatedADXL345
import Vibration

/// A sinusoidal vibration the bench puts on its machine, given by what ISO measures.
struct BenchTone: Hashable {
    /// The axis it shakes; nil for every axis at once.
    var axis: VibrationAxis?
    /// RMS velocity, mm/s.
    var velocityRMS: Double
    var frequency: Double

    /// Peak acceleration in g: 2πf · v_rms · √2.
    var amplitudeG: Double {
        2 * Double.pi * frequency * velocityRMS * 2.squareRoot() / 1000 / 9.80665
    }
}

/// Where the vibration benchmark's raw samples come from: an accelerometer on a machine whose
/// vibration the bench sets, in simulated time.
protocol VibrationSource: AnyObject {
    /// What it is, for the report.
    var name: String { get }
    /// The output data rate, Hz.
    var rateHz: Double { get }
    /// The source's time, seconds.
    var now: Double { get }
    /// Makes the machine vibrate with `tones` from ``now`` on (none: still).
    func play(_ tones: [BenchTone])
    /// The samples of the next `seconds`, oldest first, and the time of the last.
    func read(seconds: Double) throws -> (samples: [Vector3], time: Double)
}

/// The simulated ADXL345 read through the real driver on a manual clock: exactly what `plumb`
/// runs, FIFO and all, drained every 20 ms of simulated time (its 32 samples last 40 ms at
/// 800 Hz). The tones are the simulator's machine vibration (`--sim-vibration`), set from the
/// current clock time on; a tone on every axis is three tones of the same velocity.
final class SimulatedChipSource: VibrationSource {
    let name = "simulated ADXL345 + driver"
    let rateHz: Double
    private let clock = ManualSimulationClock()
    private let chip: SimulatedADXL345
    private let driver: ADXL345
    private static let drainSeconds = 0.02

    init(rateHz: Double, seed: UInt64 = 0x5EED_0B5E) throws(SensorError) {
        chip = SimulatedADXL345(configuration: .init(scene: .level, seed: seed), clock: clock)
        driver = ADXL345(bus: chip, clock: clock)
        _ = try driver.probe()
        self.rateHz = try driver.start(SamplingRequest(rateHz: rateHz, rangeG: 16)).rateHz
        // The first sample comes one period and 1.1 ms after Measure.
        clock.advance(by: 1 / self.rateHz + 0.0011)
        var discarded: [Vector3] = []
        _ = try driver.drain(into: &discarded)
    }

    var now: Double { clock.now() }

    func play(_ tones: [BenchTone]) {
        let machine = tones.flatMap { tone in
            let axes: [VibrationTone.Axis] = tone.axis.map { [VibrationTone.Axis(rawValue: $0.rawValue)!] } ?? [.x, .y, .z]
            return axes.map { VibrationTone(axis: $0, velocityRMS: tone.velocityRMS, frequency: tone.frequency) }
        }
        chip.setVibration(machine.isEmpty ? nil : MachineVibration(tones: machine))
    }

    func read(seconds: Double) throws -> (samples: [Vector3], time: Double) {
        var samples: [Vector3] = []
        let end = clock.now() + seconds
        while clock.now() < end - 1e-12 {
            clock.advance(to: min(end, clock.now() + Self.drainSeconds))
            _ = try driver.drain(into: &samples)
        }
        // The newest sample was taken at the last grid instant up to now: within a period.
        return (samples, clock.now())
    }
}

/// A chip-like source made of formulas, independent of the simulator, as a cross-check: gravity
/// (0, 0, 1) plus the tones, with the ADXL345's noise (0.75 LSB rms on x and y, 1.1 LSB on z, at
/// 100 Hz, growing as √(ODR / 100)) and its quantization (3.9 mg, full resolution) at the exact
/// sample instants k / ODR.
final class SyntheticChipSource: VibrationSource {
    let name = "synthetic ADXL345-like"
    let rateHz: Double
    private var tones: [BenchTone] = []
    private var nextSample = 0
    private var generator: SplitMix
    private let noise: Vector3

    /// The ADXL345's LSB in full resolution, g.
    static let lsb = 1.0 / 256

    init(rateHz: Double, seed: UInt64 = 0x5EED_0B5E) {
        self.rateHz = rateHz
        generator = SplitMix(state: seed)
        let scale = max(1, rateHz / 100).squareRoot() * Self.lsb
        noise = Vector3(x: 0.75 * scale, y: 0.75 * scale, z: 1.1 * scale)
    }

    var now: Double { Double(nextSample - 1) / rateHz }

    func play(_ tones: [BenchTone]) { self.tones = tones }

    func read(seconds: Double) -> (samples: [Vector3], time: Double) {
        let last = Int(((now + seconds) * rateHz + 1e-6).rounded(.down))
        var samples: [Vector3] = []
        samples.reserveCapacity(max(0, last - nextSample + 1))
        while nextSample <= last {
            let time = Double(nextSample) / rateHz
            var value = Vector3(x: 0, y: 0, z: 1)
            for tone in tones {
                let a = tone.amplitudeG * sin(2 * Double.pi * (time * tone.frequency).truncatingRemainder(dividingBy: 1))
                switch tone.axis {
                case .x?: value.x += a
                case .y?: value.y += a
                case .z?: value.z += a
                case nil: value += Vector3(x: a, y: a, z: a)
                }
            }
            value += Vector3(x: generator.normal() * noise.x, y: generator.normal() * noise.y, z: generator.normal() * noise.z)
            samples.append(Vector3(x: Self.quantized(value.x), y: Self.quantized(value.y), z: Self.quantized(value.z)))
            nextSample += 1
        }
        return (samples, now)
    }

    private static func quantized(_ g: Double) -> Double {
        (g / lsb).rounded() * lsb
    }
}

/// SplitMix64 and Box–Muller: the bench's own deterministic noise.
struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Double {
        (Double(next() >> 11) + 0.5) / Double(1 << 53)
    }

    mutating func normal() -> Double {
        (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
    }
}

/// One stretch of a bench machine's life: `tones` for `seconds`.
struct BenchPhase {
    var seconds: Double
    var tones: [BenchTone]
}

/// Plays `phases` on `source` in 0.1 s chunks (as the sampler batches) that break exactly at
/// each phase's start, handing each chunk and the time of its last sample to `chunk`.
func play(_ phases: [BenchPhase], on source: any VibrationSource, chunk: ([Vector3], Double) -> Void) throws {
    for phase in phases {
        source.play(phase.tones)
        let end = source.now + phase.seconds
        // Up to the last sample instant in the phase: a phase need not end on the sample grid.
        while source.now + 1 / source.rateHz <= end + 1e-9 {
            let read = try source.read(seconds: min(0.1, end - source.now))
            chunk(read.samples, read.time)
        }
    }
}
