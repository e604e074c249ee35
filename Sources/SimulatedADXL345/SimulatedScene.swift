#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// What the simulated chip is mounted on: the true specific force it senses, in g, in the
/// device frame (flat and face-up is (0, 0, +1)), as a function of the simulation clock's time.
///
/// Angles follow Plumb's contract (``Attitude/gravity(roll:pitch:)``), so a scene at roll 3°
/// reads roll 3° through an ideal chip and a correct driver.
public enum SimulatedScene: Sendable, Hashable {
    /// Held still at `roll` and `pitch`.
    case still(roll: Angle, pitch: Angle)
    /// Slow rocking: roll swings `amplitude` either side of `roll` as a sine of `period` seconds,
    /// and pitch swings the same amplitude about `pitch`, a quarter period later. A period that is
    /// not positive and finite holds still.
    case sweep(roll: Angle, pitch: Angle, amplitude: Angle, period: Double)
    /// Held at `roll` and `pitch` with a sinusoidal acceleration of `amplitude` g (peak) at
    /// `frequency` Hz added on every axis, the axes a third of a cycle apart so that no axis
    /// stays quiet. A frequency that is not finite adds nothing.
    case vibration(roll: Angle, pitch: Angle, amplitude: Double, frequency: Double)
    /// A square wave for latency measurements: at `roll` and `pitch` during even periods of the
    /// clock (`floor(time / period)` even) and with `step` added to the roll during odd ones.
    /// The edges fall at whole multiples of `period` of the simulation clock's time, so an
    /// observer reading the same monotonic clock knows exactly when each step happened.
    case square(roll: Angle, pitch: Angle, step: Angle, period: Double)
    /// A fixed specific force, in g: any magnitude or direction, such as 0 g in free fall or
    /// 3 g along x to drive an axis past its range.
    case fixed(Vector3)
    /// An ``AttitudeScript`` that began at `start` seconds of the simulation clock: its
    /// attitudes, holds and moves, then its last attitude for ever. Build it at the clock's
    /// current time with ``scripted(_:startingAt:)`` or ``SimulatedADXL345/run(_:)``.
    case scripted(AttitudeScript, start: Double)

    /// Flat and face-up, still: (0, 0, +1) g.
    public static let level = SimulatedScene.still(roll: .zero, pitch: .zero)

    /// Held still in `pose`.
    public static func pose(_ pose: SimulatedPose) -> SimulatedScene {
        .fixed(pose.gravity)
    }

    /// `script`, starting at clock time `start`.
    public static func scripted(_ script: AttitudeScript, startingAt start: Double) -> SimulatedScene {
        .scripted(script, start: start)
    }

    /// The specific force in g, device frame, at `time` seconds of the simulation clock.
    public func gravity(at time: Double) -> Vector3 {
        switch self {
        case let .still(roll, pitch):
            return Attitude.gravity(roll: roll, pitch: pitch)

        case let .sweep(roll, pitch, amplitude, period):
            guard period > 0, period.isFinite, time.isFinite else {
                return Attitude.gravity(roll: roll, pitch: pitch)
            }
            // Phase from the remainder keeps the sine accurate at the large times of a monotonic
            // clock (days of uptime), where 2πt/T would lose the fraction of a cycle.
            let phase = 2 * Double.pi * (time.truncatingRemainder(dividingBy: period) / period)
            return Attitude.gravity(
                roll: roll + amplitude * sin(phase),
                pitch: pitch + amplitude * sin(phase - Double.pi / 2))

        case let .vibration(roll, pitch, amplitude, frequency):
            let base = Attitude.gravity(roll: roll, pitch: pitch)
            guard frequency.isFinite, amplitude.isFinite, time.isFinite, frequency != 0 else { return base }
            let cycle = 1 / abs(frequency)
            let phase = 2 * Double.pi * (time.truncatingRemainder(dividingBy: cycle) / cycle)
            let third = 2 * Double.pi / 3
            return base + amplitude * Vector3(x: sin(phase), y: sin(phase + third), z: sin(phase + 2 * third))

        case let .square(roll, pitch, step, period):
            guard period > 0, period.isFinite, time.isFinite else {
                return Attitude.gravity(roll: roll, pitch: pitch)
            }
            let high = Int((time / period).rounded(.down)) % 2 != 0
            return Attitude.gravity(roll: high ? roll + step : roll, pitch: pitch)

        case let .fixed(vector):
            return vector

        case let .scripted(script, start):
            return script.gravity(atElapsed: time - start)
        }
    }
}
