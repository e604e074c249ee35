import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Testing

/// The simulated ADXL345's output pipeline: scale, clipping, justification, noise, offsets,
/// self-test and part errors, observed in the data registers.
@Suite("Simulated ADXL345: output pipeline")
struct SimulatorOutputTests {
    static let tenBit2g: UInt8 = ADXL345Range.g2.rawValue

    /// The first sample after Measure, read from the data registers.
    static func firstSample(_ rig: SimRig, dataFormat: UInt8, rateCode: UInt8 = 0x0A) throws -> SimSample {
        try rig.start(rateCode: rateCode, dataFormat: dataFormat)
        rig.clock.advance(by: 0.1)
        return try rig.readSample()
    }

    static func dataFormat(_ range: ADXL345Range, fullResolution: Bool, justify: Bool = false) -> UInt8 {
        range.rawValue | (fullResolution ? DataFormat.fullResolution : 0) | (justify ? DataFormat.justify : 0)
    }

    // MARK: Scale, clipping, justification

    @Test func levelReadsPlusOneGAndUpsideDownMinusOneGAtTwoG10Bit() throws {
        #expect(try Self.firstSample(.noiseless(), dataFormat: Self.tenBit2g) == SimSample(x: 0, y: 0, z: 256))
        let upsideDown = SimRig.noiseless(.still(roll: Angle(degrees: 180), pitch: .zero))
        #expect(try Self.firstSample(upsideDown, dataFormat: Self.tenBit2g) == SimSample(x: 0, y: 0, z: -256))
    }

    @Test(arguments: ADXL345Range.allCases, [false, true])
    func oneGReadsTheRangesScale(range: ADXL345Range, fullResolution: Bool) throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 1, y: -0.5, z: 0.25)))
        let sample = try Self.firstSample(rig, dataFormat: Self.dataFormat(range, fullResolution: fullResolution))
        let scale = range.countsPerG(fullResolution: fullResolution)
        #expect(sample == SimSample(x: Int(scale), y: Int(-scale / 2), z: Int(scale / 4)))
    }

    @Test(arguments: ADXL345Range.allCases, [false, true])
    func beyondTheRangeClipsToTheSignedLimits(range: ADXL345Range, fullResolution: Bool) throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 40, y: -40, z: 0.5)))
        let sample = try Self.firstSample(rig, dataFormat: Self.dataFormat(range, fullResolution: fullResolution))
        let bits = range.outputBits(fullResolution: fullResolution)
        #expect(sample.x == (1 << (bits - 1)) - 1)
        #expect(sample.y == -(1 << (bits - 1)))
        #expect(sample.z == Int(range.countsPerG(fullResolution: fullResolution) / 2))
    }

    @Test func aBigVibrationClipsRatherThanRollsOver() throws {
        let scene = SimulatedScene.vibration(roll: .zero, pitch: .zero, amplitude: 5, frequency: 37)
        let rig = SimRig.noiseless(scene)
        try rig.start(dataFormat: Self.dataFormat(.g2, fullResolution: true))
        let samples = try rig.collect(300, hertz: 100)
        let first = 1 / 100.0 + 0.0011
        for (k, sample) in samples.enumerated() {
            let truth = scene.gravity(at: first + Double(k) / 100)
            for (read, g) in [(sample.x, truth.x), (sample.y, truth.y), (sample.z, truth.z)] {
                let expected = min(max((g * 256).rounded(), -512), 511)
                #expect(abs(Double(read) - expected) <= 1, "sample \(k): \(read) for \(g) g")
            }
        }
        #expect(samples.contains { $0.z == 511 } && samples.contains { $0.z == -512 })
    }

    @Test(arguments: ADXL345Range.allCases, [false, true])
    func justifySetLeftAlignsTheMSB(range: ADXL345Range, fullResolution: Bool) throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: 1, y: -1, z: 0)))
        let format = Self.dataFormat(range, fullResolution: fullResolution, justify: true)
        let sample = try Self.firstSample(rig, dataFormat: format)
        let shift = 16 - range.outputBits(fullResolution: fullResolution)
        let counts = Int(range.countsPerG(fullResolution: fullResolution))
        #expect(sample == SimSample(x: counts << shift, y: -counts << shift, z: 0))
    }

    @Test func justifiedMinusOneGAtTwoG10BitIsC000LittleEndian() throws {
        let rig = SimRig.noiseless(.fixed(Vector3(x: -1, y: 0, z: 0)))
        try rig.start(dataFormat: Self.dataFormat(.g2, fullResolution: false, justify: true))
        rig.clock.advance(by: 0.1)
        #expect(try rig.read(ADXL345Register.dataX0, count: 2) == [0x00, 0xC0])
    }

    @Test(arguments: [
        (UInt8(0x0F), ADXL345Range.g16, true, true), (0x0E, .g4, true, true), (0x0F, .g2, false, true),
        (0x0F, .g4, false, false), (0x0D, .g16, true, false), (0x0D, .g2, false, false),
    ])
    func theLSBReadsZeroAt1600And3200HzInFullResolutionAndTwoG(
        rateCode: UInt8, range: ADXL345Range, fullResolution: Bool, lsbAlwaysZero: Bool
    ) throws {
        let rig = SimRig(.init(scene: .still(roll: Angle(degrees: 20), pitch: Angle(degrees: 10))))
        let rate = try #require(OutputDataRate(code: rateCode))
        try rig.start(rateCode: rateCode, dataFormat: Self.dataFormat(range, fullResolution: fullResolution))
        let samples = try rig.collect(300, hertz: rate.hertz)
        let odd = samples.flatMap { [$0.x, $0.y, $0.z] }.filter { $0 & 1 != 0 }.count
        #expect((odd == 0) == lsbAlwaysZero, "\(odd) odd values")
    }

    // MARK: Noise

    /// Standard deviations of X, Y and Z over `count` samples at `rateCode`, level, full resolution.
    static func noise(seed: UInt64 = 7, rateCode: UInt8, count: Int = 4000) throws -> (x: Double, y: Double, z: Double) {
        let rig = SimRig(.init(seed: seed))
        let rate = try #require(OutputDataRate(code: rateCode))
        try rig.start(rateCode: rateCode)
        let samples = try rig.collect(count, hertz: rate.hertz)
        return (simStandardDeviation(samples.map(\.x)), simStandardDeviation(samples.map(\.y)),
                simStandardDeviation(samples.map(\.z)))
    }

    /// The rms of Gaussian noise `sigma` (LSB) after rounding to whole LSB: √(σ² + 1/12).
    static func quantized(_ sigma: Double) -> Double { (sigma * sigma + 1.0 / 12).squareRoot() }

    @Test func noiseMatchesTheDatasheetAt100Hz() throws {
        let measured = try Self.noise(rateCode: 0x0A)
        for xy in [measured.x, measured.y] {
            #expect(abs(xy / Self.quantized(0.75) - 1) < 0.1, "X/Y noise \(xy) LSB rms")
        }
        #expect(abs(measured.z / Self.quantized(1.1) - 1) < 0.1, "Z noise \(measured.z) LSB rms")
    }

    @Test func noiseGrowsRootTwoPerDoublingAbove100Hz() throws {
        let slow = try Self.noise(rateCode: 0x0A)
        let fast = try Self.noise(rateCode: 0x0B)
        func sigma(_ rms: Double) -> Double { (rms * rms - 1.0 / 12).squareRoot() }
        #expect(abs(sigma(fast.x) / sigma(slow.x) / 2.0.squareRoot() - 1) < 0.1)
        #expect(abs(sigma(fast.z) / sigma(slow.z) / 2.0.squareRoot() - 1) < 0.1)
        #expect(abs(fast.x / Self.quantized(0.75 * 2.0.squareRoot()) - 1) < 0.1)
    }

    @Test func zeroNoiseIsNoiseless() throws {
        let rig = SimRig.noiseless(.still(roll: Angle(degrees: 3), pitch: .zero))
        try rig.start()
        let samples = try rig.collect(100, hertz: 100)
        #expect(Set(samples.map(\.description)).count == 1)
    }

    @Test func theSameSeedGivesTheSameSamplesHoweverTheyAreRead() throws {
        let a = SimRig(.init(seed: 42)), b = SimRig(.init(seed: 42)), c = SimRig(.init(seed: 43))
        for rig in [a, b, c] { try rig.start() }
        let fromA = try a.collect(200, hertz: 100)
        var fromB: [SimSample] = []
        while fromB.count < 200 {  // a different cadence: 7 periods, then drain
            b.clock.advance(by: 0.07)
            fromB += try b.drain()
        }
        let fromC = try c.collect(200, hertz: 100)
        #expect(fromA == Array(fromB.prefix(200)))
        #expect(fromA != fromC)
    }

    // MARK: Offsets, errors, self-test

    @Test func offsetRegistersShiftTheOutputBy15Point6MilligPerStep() throws {
        let full = SimRig.noiseless()
        try full.write(ADXL345Register.ofsx, 10)
        try full.write(ADXL345Register.ofsy, UInt8(bitPattern: -4))
        try full.write(ADXL345Register.ofsz, 0x7E)
        // 4 LSB per step at 256 LSB/g: 10 steps = 156 mg = 40 LSB.
        #expect(try Self.firstSample(full, dataFormat: SimRig.fullResolution16g) == SimSample(x: 40, y: -16, z: 256 + 504))
        let coarse = SimRig.noiseless()
        try coarse.write(ADXL345Register.ofsx, 10)
        try coarse.write(ADXL345Register.ofsz, 0x7E)
        #expect(try Self.firstSample(coarse, dataFormat: ADXL345Range.g16.rawValue) == SimSample(x: 5, y: 0, z: 32 + 63))
    }

    @Test func gainAndOffsetErrorsApplyPerAxis() throws {
        let rig = SimRig(.init(scene: .fixed(Vector3(x: 0, y: 1, z: 1)), noiseXY: 0,
                               offset: Vector3(x: 35, y: 0, z: -40), gain: Vector3(x: 0.5, y: 0.035, z: 0.02)))
        // x: 0 g × 1.5 + 35 mg = 8.96 LSB; y: 1.035 g; z: 1.02 g − 40 mg.
        #expect(try Self.firstSample(rig, dataFormat: SimRig.fullResolution16g) == SimSample(x: 9, y: 265, z: 251))
        let typical = SimRig(SimulatedADXL345.Configuration.typicalPart())
        try typical.start()
        let samples = try typical.collect(500, hertz: 100)
        let meanZ = Double(samples.map(\.z).reduce(0, +)) / 500
        #expect(abs(meanZ - (0.99 + 0.040) * 256) < 0.5)
    }

    @Test func anIdealChipReadsTheScenesAttitude() throws {
        let rig = SimRig(.init(scene: .still(roll: Angle(degrees: 3), pitch: Angle(degrees: -2))))
        try rig.start()
        let samples = try rig.collect(1000, hertz: 100)
        let mean = samples.reduce(Vector3.zero) { $0 + Vector3(x: Double($1.x), y: Double($1.y), z: Double($1.z)) }
        let attitude = Attitude(gravity: mean)
        #expect(abs(attitude.roll.degrees - 3) < 0.05)
        #expect(abs(attitude.pitch.degrees + 2) < 0.05)
    }

    /// Self-test on minus off, full resolution ±16 g, noiseless.
    static func selfTestDelta(_ configuration: SimulatedADXL345.Configuration) throws -> SimSample {
        let rig = SimRig(configuration)
        let off = try Self.firstSample(rig, dataFormat: SimRig.fullResolution16g)
        try rig.write(ADXL345Register.dataFormat, SimRig.fullResolution16g | DataFormat.selfTest)
        rig.clock.advance(by: 0.1)
        let on = try #require(try rig.drain().last)  // the entries before the switch are "off"
        return SimSample(x: on.x - off.x, y: on.y - off.y, z: on.z - off.z)
    }

    /// Supply voltage, then Table 14's X/Y and Z factors (2.9 V interpolated halfway).
    static let supplies: [(Double, Double, Double)] = [
        (2.5, 1, 1), (3.3, 1.77, 1.47), (2.9, 1.385, 1.235), (2.0, 0.64, 0.8), (3.6, 2.11, 1.69),
    ]

    @Test(arguments: supplies)
    func selfTestShiftsTheOutputScaledBySupply(volts: Double, xyFactor: Double, zFactor: Double) throws {
        let delta = try Self.selfTestDelta(.init(noiseXY: 0, supplyVoltage: volts))
        let xy = 250 * xyFactor, z = 400 * zFactor
        #expect(abs(Double(delta.x) - xy) <= 1)
        #expect(abs(Double(delta.y) + xy) <= 1)
        #expect(abs(Double(delta.z) - z) <= 1)
        let limits = try #require(ADXL345SelfTestLimits.limits(atSupply: volts))
        for (axis, value) in zip(limits, [delta.x, delta.y, delta.z]) {
            #expect(Double(value) >= axis.minimum && Double(value) <= axis.maximum, "\(axis.name)")
        }
    }

    @Test func aStuckAxisShowsNoSelfTestChange() throws {
        let delta = try Self.selfTestDelta(.init(noiseXY: 0, selfTestResponse: Vector3(x: 0, y: -250, z: 400)))
        #expect(delta.x == 0)
        #expect(delta.y < -400)
    }
}
