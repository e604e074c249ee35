import Geometry
import I2C

/// What every simulated chip's configuration has in common, in the same units on each: where it
/// answers, what it senses, the machine it is mounted on, the errors that are fractions (gain,
/// cross-axis, nonlinearity), its temperature and drift, its noise seed and its wiring. Written once so that whatever sets
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
    /// How the zero-g offset moves with temperature, g/°C per axis: the output gains
    /// `offsetDrift · (T − 25 °C)`, T the die temperature at the sample's time. Zero on an ideal part.
    var offsetDrift: Vector3 { get set }
    /// How sensitivity moves with temperature, a fraction per °C per axis: each axis's output is
    /// multiplied by `1 + sensitivityDrift · (T − 25 °C)`. Zero on an ideal part.
    var sensitivityDrift: Vector3 { get set }
    /// The die temperature over time (``SimulatedTemperature``); 25 °C constant by default. A
    /// script's `temp:` words override it while they run (``effectiveTemperature``).
    var temperature: SimulatedTemperature { get set }
    /// Seed of the chip's noise and of the machine's phases and noise.
    var seed: UInt64 { get set }
    /// What is wrong with the connection.
    var fault: SimulatedFault { get set }
}

extension SimulatedADXL345.Configuration: SimulatedPartConfiguration {}
