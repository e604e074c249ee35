import Accelerometers
import Geometry

/// One sample as the chip stores it: the three 16-bit data words, already formatted.
struct RawSample: Sendable, Equatable {
    var x: UInt16
    var y: UInt16
    var z: UInt16

    static let zero = RawSample(x: 0, y: 0, z: 0)

    /// Byte `index` (0…5) of DATAX0…DATAZ1: each word little-endian.
    func byte(_ index: Int) -> UInt8 {
        let word = index < 2 ? x : (index < 4 ? y : z)
        return UInt8(truncatingIfNeeded: index % 2 == 0 ? word : word >> 8)
    }
}

/// How the registers say a sample must be formatted, read when the sample is taken.
///
/// A sample keeps the format it was taken with, also when DATA_FORMAT changes while it waits in
/// the FIFO; the datasheet does not say otherwise, and drivers configure in standby anyway.
struct OutputFormat: Equatable {
    var range: ADXL345Range
    var fullResolution: Bool
    var leftJustified: Bool
    var selfTest: Bool
    var rate: OutputDataRate

    init(dataFormat: UInt8, bwRate: UInt8) {
        range = ADXL345Range(rawValue: dataFormat & DataFormat.rangeMask) ?? .g2
        fullResolution = dataFormat & DataFormat.fullResolution != 0
        leftJustified = dataFormat & DataFormat.justify != 0
        selfTest = dataFormat & DataFormat.selfTest != 0
        rate = OutputDataRate(code: bwRate & BWRate.rateMask) ?? .powerOn
    }

    var bits: Int { range.outputBits(fullResolution: fullResolution) }
    var countsPerG: Double { range.countsPerG(fullResolution: fullResolution) }

    /// At 1600 and 3200 Hz the converter delivers one bit less at 256 LSB/g, so the LSB reads 0
    /// in full resolution and in ±2 g 10-bit; the coarser 10-bit ranges keep a valid LSB
    /// (datasheet, "Data Formatting of Upper Data Rates").
    var dropsLSB: Bool {
        rate.hertz >= 1600 && (fullResolution || range == .g2)
    }
}

/// The analogue and digital path of one sample, from true specific force to data words.
///
/// Order: nonlinearity (per axis, on the configured range), sensitivity (gain and cross-axis,
/// scaled by its temperature drift), then per axis: zero-g offset error and its drift, OFSx registers, self-test force, noise,
/// then quantize, clip, drop the LSB at the top rates, justify.
struct OutputPipeline: Sendable {
    /// The sensitivity matrix: diag(1 + gain) plus cross-axis terms.
    var sensitivity: Matrix3
    /// Nonlinearity per axis, fraction of full scale (see the configuration).
    var nonlinearity: Vector3
    /// Per-axis zero-g offset error, g.
    var offset: Vector3
    /// Self-test response at the configured supply, g.
    var selfTest: Vector3
    /// Noise at ODR ≤ 100 Hz, g rms, per axis.
    var noise: Vector3
    /// The noise source.
    var generator: GaussianNoise

    /// One OFSx step in g: 15.6 mg nominal, exactly 4 LSB at 256 LSB/g, the scale the chip adds
    /// it at.
    static let offsetRegisterStep = 4.0 / 256

    init(configuration: SimulatedADXL345.Configuration) {
        sensitivity = configuration.sensitivity
        nonlinearity = configuration.nonlinearity
        offset = configuration.offset / 1000
        let factors = SelfTestSupplyScaling.factors(atSupply: configuration.supplyVoltage)
        let response = configuration.selfTestResponse
        selfTest = Vector3(x: response.x * factors.xy, y: response.y * factors.xy, z: response.z * factors.z) / 256
        let xy = max(0, configuration.noiseXY.isFinite ? configuration.noiseXY : 0)
        let z = max(0, configuration.effectiveNoiseZ.isFinite ? configuration.effectiveNoiseZ : 0)
        noise = Vector3(x: xy, y: xy, z: z) / 256
        generator = GaussianNoise(seed: configuration.seed)
    }

    /// The formatted sample for true specific force `force` (g), sample number `serial`, with the
    /// temperature's `drift` (``SimulatedPartConfiguration/thermalDrift(at:)``).
    func sample(force: Vector3, serial: UInt64, format: OutputFormat, offsetRegisters: (Int8, Int8, Int8),
                drift: (scale: Vector3, offset: Vector3)) -> RawSample {
        let sensed = CubicNonlinearity.bow(force, by: nonlinearity, fullScale: Double(format.range.gravities))
        let scaled = sensitivity * sensed
        var value = Vector3(x: scaled.x * drift.scale.x, y: scaled.y * drift.scale.y, z: scaled.z * drift.scale.z)
        value += offset + drift.offset
        value += Vector3(
            x: Double(offsetRegisters.0), y: Double(offsetRegisters.1), z: Double(offsetRegisters.2)
        ) * Self.offsetRegisterStep
        if format.selfTest {
            value += selfTest
        }
        if noise != .zero {
            // Noise density is flat, so rms grows with √bandwidth: √2 per doubling above 100 Hz.
            let scale = format.rate.hertz > 100 ? (format.rate.hertz / 100).squareRoot() : 1
            let n = generator.normals(forSample: serial)
            value += Vector3(x: n.x * noise.x, y: n.y * noise.y, z: n.z * noise.z) * scale
        }
        return RawSample(x: Self.word(value.x, format), y: Self.word(value.y, format), z: Self.word(value.z, format))
    }

    /// Quantizes `g` to the format's scale and packs it into a data word.
    static func word(_ g: Double, _ format: OutputFormat) -> UInt16 {
        let bits = format.bits
        let high = (1 << (bits - 1)) - 1
        let low = -(1 << (bits - 1))
        // Clamp in floating point first: Int(_:) traps on values it cannot hold.
        let scaled = (g * format.countsPerG).rounded(.toNearestOrAwayFromZero)
        var counts = scaled.isNaN ? 0 : Int(min(max(scaled, Double(low)), Double(high)))
        if format.dropsLSB {
            counts &= ~1
        }
        if format.leftJustified {
            counts <<= 16 - bits
        }
        return UInt16(truncatingIfNeeded: counts)
    }
}
