import Foundation
import Geometry
import Vibration

/// A sinusoidal vibration on one axis, given by what ISO measures: its RMS velocity.
struct Tone {
    var axis: VibrationAxis
    /// RMS velocity, mm/s.
    var velocityRMS: Double
    var frequency: Double
    var phase = 0.0

    /// The acceleration amplitude (peak) in g: a_peak = 2πf · v_rms · √2.
    var amplitudeG: Double {
        2 * Double.pi * frequency * velocityRMS * 2.squareRoot() / 1000 / 9.80665
    }

    /// The acceleration at `time`, g.
    func acceleration(at time: Double) -> Double {
        amplitudeG * sin(2 * Double.pi * frequency * time + phase)
    }
}

/// Samples of gravity plus `tones` (plus `drift` g per second and `extra`), at `rate`, for
/// `seconds`, the first at `start`.
func signal(rate: Double, seconds: Double, gravity: Vector3 = Vector3(x: 0, y: 0, z: 1), tones: [Tone] = [],
            drift: Vector3 = .zero, start: Double = 0,
            extra: (Double) -> Vector3 = { _ in .zero }) -> [Vector3] {
    let count = Int((seconds * rate).rounded())
    return (0..<count).map { index in
        let time = start + Double(index) / rate
        var value = gravity + drift * time + extra(time)
        for tone in tones {
            let a = tone.acceleration(at: time)
            switch tone.axis {
            case .x: value.x += a
            case .y: value.y += a
            case .z: value.z += a
            }
        }
        return value
    }
}

/// A deterministic Gaussian source (SplitMix64 and Box–Muller), so noise tests never flake.
struct Noise {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    private mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 11) + 0.5) / Double(1 << 53)
    }

    mutating func normal() -> Double {
        (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
    }

    mutating func vector(sigma: Double) -> Vector3 {
        Vector3(x: normal() * sigma, y: normal() * sigma, z: normal() * sigma)
    }
}

/// The one window of `samples`, which must hold exactly one.
func onlyWindow(_ samples: [Vector3], rate: Double, seconds: Double = 1) throws -> VibrationFigures {
    let analyzer = try VibrationAnalyzer(rateHz: rate, windowSeconds: seconds)
    let windows = analyzer.add(samples, endingAt: Double(samples.count - 1) / rate)
    guard windows.count == 1, let window = windows.first else { throw WindowCount(count: windows.count) }
    return window
}

struct WindowCount: Error {
    var count: Int
}

/// |measured / expected − 1|.
func relativeError(_ measured: Double, _ expected: Double) -> Double {
    abs(measured / expected - 1)
}

/// Whether two lists hold the same windows: equal figures, times equal to rounding.
func sameWindows(_ a: [VibrationFigures], _ b: [VibrationFigures]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { first, second in
        var aligned = second
        aligned.time = first.time
        return abs(first.time - second.time) < 1e-9 && aligned == first
    }
}
