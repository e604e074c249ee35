import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050

/// The chips Plumb can simulate (`--sim-chip`), each a register-level model its real driver runs
/// on: the one place above the simulators that knows which simulator plays which chip.
///
/// Every ``SimulatedPartRequest`` field applies to each, in the chip's own terms where the chips
/// differ:
/// - `noiseLSB` is noise in the chip's own LSB, as its datasheet specifies it: on the ADXL345,
///   X/Y LSB rms at ≤100 Hz (256 LSB/g; Z keeps the datasheet's ratio); on the ADXL355 and the
///   MPU-6050, whose datasheets give a noise density, LSB/√Hz at the finest range (256 000 and
///   16 384 LSB/g), so that the rms follows the filter bandwidth the driver sets;
/// - `offsetMilligravities` is mg on all three, `gain`, `crossAxis` and `nonlinearity`
///   fractions of the reading or of the configured full scale;
/// - `temperature` is the die temperature over time on all three: what their drift follows, and
///   what the ADXL355's and the MPU-6050's sensors read;
/// - `stuck` stops the Z proof mass, so the driver's self-test fails on Z;
/// - `chipSeed` draws a part within that chip's datasheet's typical errors.
public enum SimulatedChipKind: String, CaseIterable, Sendable {
    case adxl345, adxl355, mpu6050

    /// The chip's description, its one owner of facts (addresses, ranges, rates, noise).
    public var chipDescription: ChipDescription {
        switch self {
        case .adxl345: ADXL345.description
        case .adxl355: ADXL355.description
        case .mpu6050: MPU6050.description
        }
    }

    /// `adxl345, adxl355, mpu6050`.
    public static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// What a simulated part should be: its place, what it senses, and the errors that replace the
/// typical part's. Nil leaves the part's own.
public struct SimulatedPartRequest: Sendable {
    /// Cross-axis terms: a matrix, or drawn at random within a bound.
    public enum CrossAxis: Sendable {
        case matrix(Matrix3)
        case random(bound: Double)
    }

    public var address: I2CAddress
    public var scene: SimulatedScene
    public var vibration: MachineVibration?
    public var gain: Vector3?
    public var nonlinearity: Vector3?
    public var crossAxis: CrossAxis?
    /// The noise seed.
    public var seed: UInt64?
    /// Draws a part within the chip's typical errors; nil for an ideal part.
    public var chipSeed: UInt64?
    /// Noise in the chip's own LSB (see ``SimulatedChipKind``).
    public var noiseLSB: Double?
    public var offsetMilligravities: Vector3?
    public var fault: SimulatedFault
    /// A stuck proof mass: the self-test shows no response on Z.
    public var stuck: Bool
    /// The die temperature over time; nil leaves the part's own (25 °C). A scripted scene's
    /// `temp:` words override it while they run.
    public var temperature: SimulatedTemperature?

    public init(address: I2CAddress, scene: SimulatedScene = .level, vibration: MachineVibration? = nil,
                gain: Vector3? = nil, nonlinearity: Vector3? = nil, crossAxis: CrossAxis? = nil, seed: UInt64? = nil,
                chipSeed: UInt64? = nil, noiseLSB: Double? = nil, offsetMilligravities: Vector3? = nil,
                fault: SimulatedFault = .none, stuck: Bool = false, temperature: SimulatedTemperature? = nil) {
        self.address = address
        self.scene = scene
        self.vibration = vibration
        self.gain = gain
        self.nonlinearity = nonlinearity
        self.crossAxis = crossAxis
        self.seed = seed
        self.chipSeed = chipSeed
        self.noiseLSB = noiseLSB
        self.offsetMilligravities = offsetMilligravities
        self.fault = fault
        self.stuck = stuck
        self.temperature = temperature
    }
}

extension SimulatedChipKind {
    /// The simulator of this chip for `request`, sampling on `clock`.
    public func make(_ request: SimulatedPartRequest, clock: any SimulationClock) -> any I2CBus & SceneControls {
        switch self {
        case .adxl345: return makeADXL345(request, clock: clock)
        case .adxl355: return makeADXL355(request, clock: clock)
        case .mpu6050: return makeMPU6050(request, clock: clock)
        }
    }

    /// Applies the fields every chip takes in the same units to `configuration`, a part that
    /// `chipSeed` may have drawn, whose errors they replace.
    private func applyShared<Part: SimulatedPartConfiguration>(_ request: SimulatedPartRequest, to configuration: inout Part) {
        configuration.address = request.address
        configuration.scene = request.scene
        configuration.vibration = request.vibration
        if let gain = request.gain { configuration.gain = gain }
        if let nonlinearity = request.nonlinearity { configuration.nonlinearity = nonlinearity }
        switch request.crossAxis {
        case .matrix(let matrix): configuration.crossAxis = matrix
        case .random(let bound):
            // Drawn from the noise seed, else the chip seed, else the part's seed, as the ADXL345
            // has always drawn them.
            configuration.crossAxis = SimulatedADXL345.Configuration.randomCrossAxis(
                bound: bound, seed: request.seed ?? request.chipSeed ?? configuration.seed)
        case nil: break
        }
        if let seed = request.seed { configuration.seed = seed }
        if let temperature = request.temperature { configuration.temperature = temperature }
        configuration.fault = request.fault
    }

    private func makeADXL345(_ request: SimulatedPartRequest, clock: any SimulationClock) -> SimulatedADXL345 {
        var configuration = request.chipSeed.map { SimulatedADXL345.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedADXL345.Configuration()
        applyShared(request, to: &configuration)
        if let noiseLSB = request.noiseLSB { configuration.noiseXY = noiseLSB }
        if let offset = request.offsetMilligravities { configuration.offset = offset }
        if request.stuck { configuration.selfTestResponse = Vector3(x: 250, y: -250, z: 0) }
        return SimulatedADXL345(configuration: configuration, clock: clock)
    }

    private func makeADXL355(_ request: SimulatedPartRequest, clock: any SimulationClock) -> SimulatedADXL355 {
        var configuration = request.chipSeed.map { SimulatedADXL355.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedADXL355.Configuration()
        applyShared(request, to: &configuration)
        if let noiseLSB = request.noiseLSB {
            let density = noiseLSB / ADXL355Range.g2.countsPerG
            configuration.noiseDensity = Vector3(x: density, y: density, z: density)
        }
        // The ADXL355 simulator keeps its offset in g.
        if let offset = request.offsetMilligravities { configuration.offset = offset / 1000 }
        if request.stuck { configuration.selfTestResponse.z = 0 }
        return SimulatedADXL355(configuration: configuration, clock: clock)
    }

    private func makeMPU6050(_ request: SimulatedPartRequest, clock: any SimulationClock) -> SimulatedMPU6050 {
        var configuration = request.chipSeed.map { SimulatedMPU6050.Configuration.randomTypicalPart(seed: $0) }
            ?? SimulatedMPU6050.Configuration()
        applyShared(request, to: &configuration)
        if let noiseLSB = request.noiseLSB { configuration.noiseDensity = noiseLSB / MPU6050Range.g2.countsPerG }
        if let offset = request.offsetMilligravities { configuration.offset = offset }
        // −1: no response at all on Z, whatever its factory trim says it should be.
        if request.stuck { configuration.selfTestError.z = -1 }
        return SimulatedMPU6050(configuration: configuration, clock: clock)
    }
}
