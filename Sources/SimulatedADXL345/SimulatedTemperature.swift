#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// The true die temperature of a simulated chip, in °C, as a function of the simulation clock's
/// time: what its drift follows and what its temperature sensor (where it has one) measures.
///
/// Public so that a benchmark can ask the same profile the chip runs on what the temperature
/// truly was at an instant, for example to simulate an external (MQTT or thermal-zone) sensor
/// beside the chip.
public indirect enum SimulatedTemperature: Sendable, Hashable {
    /// Held at one temperature, °C.
    case constant(Double)
    /// A sine about `mean` °C, `amplitude` °C either side, repeating every `period` seconds from
    /// clock time `start`: at its minimum (`mean − amplitude`) at `start` and at every whole
    /// period after, its maximum half a period on, like a day's cycle starting before dawn. A
    /// period that is not positive and finite holds `mean`.
    case cycle(mean: Double, amplitude: Double, period: Double, start: Double = 0)
    /// `script`'s `temp:` ramps, the script having begun at clock time `start`: before its first
    /// `temp:` step, and before `start`, `base`; during a step with `temp:C`, a straight line from
    /// the temperature at the step's start to C at its end; after it, C held, through the steps
    /// that name none and after the script ends (``AttitudeScript``).
    case scripted(AttitudeScript, start: Double, base: SimulatedTemperature)

    /// The temperature the datasheets specify offsets and sensitivity at, and the default: 25 °C.
    public static let reference = 25.0

    /// The temperature at `time` seconds of the simulation clock, °C.
    public func celsius(at time: Double) -> Double {
        switch self {
        case .constant(let celsius):
            return celsius
        case let .cycle(mean, amplitude, period, start):
            guard period > 0, period.isFinite, time.isFinite else { return mean }
            // The remainder keeps the phase exact at the large times of a monotonic clock, as the
            // scenes do.
            let fraction = (time - start).truncatingRemainder(dividingBy: period) / period
            return mean - amplitude * cos(2 * Double.pi * fraction)
        case let .scripted(script, start, base):
            return script.temperature(atElapsed: time - start) { base.celsius(at: start + $0) }
        }
    }
}

extension AttitudeScript {
    /// The temperature `elapsed` seconds after the script began: `base(seconds)` (the
    /// temperature configured, at that many seconds into the script) until the first `temp:`
    /// step, then its ramps and holds (``SimulatedTemperature/scripted(_:start:base:)``).
    public func temperature(atElapsed elapsed: Double, base: (Double) -> Double) -> Double {
        guard elapsed.isFinite, elapsed > 0 else { return base(elapsed.isFinite ? elapsed : 0) }
        var held: Double?
        var start = 0.0
        for step in steps {
            let end = start + step.duration
            if let target = step.temperature {
                if elapsed < start { break }
                if elapsed < end {
                    let from = held ?? base(start)
                    return from + (target - from) * (elapsed - start) / step.duration
                }
                held = target
            }
            start = end
        }
        return held ?? base(elapsed)
    }
}

extension SimulatedPartConfiguration {
    /// The temperature profile in force: a script's `temp:` ramps while the scene is a script
    /// that names temperatures (on top of ``temperature``, which holds until its first one),
    /// else ``temperature``.
    public var effectiveTemperature: SimulatedTemperature {
        if case let .scripted(script, start) = scene, script.namesTemperature {
            return .scripted(script, start: start, base: temperature)
        }
        return temperature
    }

    /// The die temperature at clock time `time`, °C (``effectiveTemperature``).
    public func dieTemperature(at time: Double) -> Double {
        effectiveTemperature.celsius(at: time)
    }

    /// What temperature does to an output at `celsius`, per axis: sensitivity is multiplied by
    /// `scale` and `offset` g is added, so that output = scale ⊙ (sensitivity · true) + offset +
    /// ``offsetDrift`` ·ΔT, ΔT from ``SimulatedTemperature/reference``. Both exact (1 and 0) at
    /// 25 °C or with zero drift.
    public func thermalDrift(at celsius: Double) -> (scale: Vector3, offset: Vector3) {
        let delta = celsius - SimulatedTemperature.reference
        guard delta != 0, delta.isFinite else { return (Vector3(x: 1, y: 1, z: 1), .zero) }
        return (Vector3(x: 1 + sensitivityDrift.x * delta, y: 1 + sensitivityDrift.y * delta,
                        z: 1 + sensitivityDrift.z * delta), offsetDrift * delta)
    }
}

/// Temperature coefficients drawn for a random typical part.
public enum RandomDrift {
    /// Offset drift per axis uniformly within ±`offsetBound` (g/°C), and sensitivity drift per axis
    /// within ±`sensitivityBound` (fraction/°C), from `seed`: the datasheet's typical figures
    /// (``ChipDescription/drift``) for each chip's `randomTypicalPart(seed:)`.
    ///
    /// Its own stream (the part's seed mixed with a constant of its own), so adding drift left
    /// every other error a seed draws, and its noise seed, as they were.
    public static func draw(seed: UInt64, offsetBound: Vector3, sensitivityBound: Double)
        -> (offset: Vector3, sensitivity: Vector3) {
        var generator = SplitMix64(seed: seed ^ 0x7E3D_D21F_0C0F_FEE5)
        func uniform(_ bound: Double) -> Double { (2 * generator.nextUnit() - 1) * bound }
        let offset = Vector3(x: uniform(offsetBound.x), y: uniform(offsetBound.y), z: uniform(offsetBound.z))
        let sensitivity = Vector3(x: uniform(sensitivityBound), y: uniform(sensitivityBound), z: uniform(sensitivityBound))
        return (offset, sensitivity)
    }
}
