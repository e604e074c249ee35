import Geometry
import I2C

/// What every simulated chip's configuration has in common, in the same units on each: where it
/// answers, what it senses, the machine it is mounted on, the errors that are fractions (gain,
/// cross-axis, nonlinearity), its noise seed and its wiring. Written once so that whatever sets
/// them (the command line's `--sim-*` flags, a test) sets them alike on every chip.
///
/// The errors whose units differ from chip to chip (offset, noise, the self-test response) stay
/// each configuration's own.
public protocol SimulatedPartConfiguration: Sendable {
    /// The 7-bit address the chip acknowledges; others NACK.
    var address: I2CAddress { get set }
    /// What the chip senses.
    var scene: SimulatedScene { get set }
    /// The machine's vibration on top of the scene; nil for none.
    var vibration: MachineVibration? { get set }
    /// Sensitivity error per axis, a fraction: output = true × (1 + gain).
    var gain: Vector3 { get set }
    /// Cross-axis terms off the diagonal, fractions: (i, j) is how much of axis j shows on axis i.
    var crossAxis: Matrix3 { get set }
    /// Nonlinearity per axis, a fraction of the configured range's full scale (``CubicNonlinearity``).
    var nonlinearity: Vector3 { get set }
    /// Seed of the chip's noise and of the machine's phases and noise.
    var seed: UInt64 { get set }
    /// What is wrong with the connection.
    var fault: SimulatedFault { get set }
}

extension SimulatedADXL345.Configuration: SimulatedPartConfiguration {}
