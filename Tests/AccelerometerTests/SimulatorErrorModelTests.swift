import Accelerometers
import Geometry
import SimulatedADXL345
import Testing

/// The simulated chip's error model: gain, cross-axis sensitivity and nonlinearity.
@Suite("Simulated cross-axis sensitivity and nonlinearity")
struct SimulatorErrorModelTests {
    /// The noiseless counts the chip shows for `force` on ±16 g full resolution.
    private func counts(_ configuration: SimulatedADXL345.Configuration, dataFormat: UInt8 = SimRig.fullResolution16g)
        throws -> SimSample
    {
        let rig = SimRig(configuration)
        try rig.start(dataFormat: dataFormat)
        return try #require(try rig.collect(5, hertz: 100).last)
    }

    private func expected(_ g: Vector3) -> SimSample {
        SimSample(x: Int((g.x * 256).rounded()), y: Int((g.y * 256).rounded()), z: Int((g.z * 256).rounded()))
    }

    @Test func crossAxisTermsCoupleEachAxisIntoTheOthers() throws {
        let force = Vector3(x: 0.3, y: -0.5, z: 0.8)
        let cross = Matrix3(rows: Vector3(x: 0, y: 0.01, z: -0.02), Vector3(x: 0.015, y: 0, z: 0.01),
                            Vector3(x: -0.01, y: 0.02, z: 0))
        var configuration = SimulatedADXL345.Configuration(scene: .fixed(force), noiseXY: 0,
                                                           gain: Vector3(x: 0.04, y: 0.02, z: -0.01), crossAxis: cross)
        let truth = Vector3(x: 1.04 * 0.3 + 0.01 * -0.5 - 0.02 * 0.8, y: 0.015 * 0.3 + 1.02 * -0.5 + 0.01 * 0.8,
                            z: -0.01 * 0.3 + 0.02 * -0.5 + 0.99 * 0.8)
        #expect(try counts(configuration) == expected(truth))
        #expect(configuration.sensitivity * force == truth)
        // Without the cross terms the same chip reads differently: they are not a no-op.
        configuration.crossAxis = .zero
        #expect(try counts(configuration) != expected(truth))
    }

    @Test func nonlinearityIsACubicOfFullScaleAtFullScale() throws {
        // ±2 g, 5 % of full scale: 1.5 g reads 1.5 + 0.05 · 2 · (1.5 / 2)³ g.
        let configuration = SimulatedADXL345.Configuration(scene: .fixed(Vector3(x: 1.5, y: -1.5, z: 0)), noiseXY: 0,
                                                           nonlinearity: Vector3(x: 0.05, y: 0.05, z: 0.05))
        let bow = 0.05 * 2 * 0.75 * 0.75 * 0.75
        let sample = try counts(configuration, dataFormat: DataFormat.fullResolution | ADXL345Range.g2.rawValue)
        #expect(sample == expected(Vector3(x: 1.5 + bow, y: -1.5 - bow, z: 0)), "odd: the bow keeps the sign")
    }

    @Test func theTypicalNonlinearityIsInvisibleAtOneGOnSixteenG() throws {
        // 0.5 % of ±16 g at 1 g is 0.02 mg, a two-hundredth of an LSB.
        let configuration = SimulatedADXL345.Configuration(noiseXY: 0, nonlinearity: Vector3(x: 0.005, y: 0.005, z: 0.005))
        #expect(try counts(configuration) == SimSample(x: 0, y: 0, z: 256))
    }

    @Test func aRandomTypicalPartStaysWithinTheDatasheetAndRepeats() {
        var seen: Set<[Double]> = []
        for seed in UInt64(0)..<200 {
            let part = SimulatedADXL345.Configuration.randomTypicalPart(seed: seed)
            #expect(abs(part.offset.x) <= 35 && abs(part.offset.y) <= 35 && abs(part.offset.z) <= 40)
            #expect((0.025...0.045).contains(part.gain.x) && (0.025...0.045).contains(part.gain.y))
            #expect(abs(part.gain.z) <= 0.01)
            for i in 0..<3 {
                #expect(part.crossAxis[i, i] == 0)
                for j in 0..<3 where i != j {
                    #expect(abs(part.crossAxis[i, j]) <= 0.01)
                }
            }
            #expect(abs(part.nonlinearity.x) <= 0.005 && abs(part.nonlinearity.z) <= 0.005)
            seen.insert([part.offset.x, part.gain.y, part.crossAxis[2, 0], part.nonlinearity.y])
            #expect(SimulatedADXL345.Configuration.randomTypicalPart(seed: seed).offset == part.offset)
        }
        #expect(seen.count == 200, "every seed is a different chip")
    }
}
