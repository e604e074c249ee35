import Accelerometers
import Foundation
import Geometry
import Level
import SimulatedADXL345
import Testing

/// The machine vibration on the simulated chip: what its samples hold, the tones' phases and the
/// broadband noise from the seed, and the ON/OFF schedule's exact edges.
@Suite("Simulated machine vibration: the chip and the schedule")
struct SimulatorMachineVibrationTests {
    static let rate800: UInt8 = 0x0D
    static let rate100: UInt8 = 0x0A
    static let fourAndAHalfAtFifty = VibrationTone(axis: .z, velocityRMS: 4.5, frequency: 50)
    static let oneAtHundredTwenty = VibrationTone(axis: .x, velocityRMS: 1, frequency: 120)

    /// A noiseless chip on a manual clock at 0 with `vibration` on `scene`.
    static func rig(_ vibration: MachineVibration?, scene: SimulatedScene = .level, seed: UInt64 = 7,
                    chipNoise: Double = 0) -> SimRig {
        SimRig(.init(scene: scene, vibration: vibration, noiseXY: chipNoise, seed: seed))
    }

    /// When sample `k` after Measure at clock time 0 is taken at `hertz`, as the chip computes it.
    static func sampleTime(_ k: Int, hertz: Double) -> Double {
        SimRig.firstSampleDelay(hertz: hertz) + Double(k) / hertz
    }

    static func rms(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
    }

    // MARK: What the samples hold

    @Test func eachSampleIsTheSceneAndTheTonesAtItsInstantQuantized() throws {
        let vibration = MachineVibration(tones: [Self.fourAndAHalfAtFifty, Self.oneAtHundredTwenty])
        let scene = SimulatedScene.still(roll: Angle(degrees: 20), pitch: Angle(degrees: -10))
        let rig = Self.rig(vibration, scene: scene)
        try rig.start(rateCode: Self.rate800)
        let samples = try rig.collect(400, hertz: 800)
        for (k, sample) in samples.enumerated() {
            let t = Self.sampleTime(k, hertz: 800)
            let truth = scene.gravity(at: t) + vibration.toneAcceleration(at: t, seed: 7)
            let expected = SimSample(x: Int((truth.x * 256).rounded()), y: Int((truth.y * 256).rounded()),
                                     z: Int((truth.z * 256).rounded()))
            #expect(sample == expected, "sample \(k) at \(t) s")
        }
    }

    @Test(arguments: [fourAndAHalfAtFifty, oneAtHundredTwenty])
    func theSampledRMSIsTheTonesAccelerationRMS(tone: VibrationTone) throws {
        let rig = Self.rig(MachineVibration(tones: [tone]))
        try rig.start(rateCode: Self.rate800)
        // One second at 800 Hz: a whole number of cycles of 50 and of 120 Hz.
        let samples = try rig.collect(800, hertz: 800)
        let axis = samples.map { Double(tone.axis == .z ? $0.z : $0.x) }
        let measured = Self.rms(axis) / 256
        // 4.5 mm/s at 50 Hz: 0.1442 g RMS, 36.9 LSB. Rounding to the LSB adds 1/√12 LSB in
        // quadrature at most, 0.001 LSB here; half an LSB is a generous bound.
        #expect(abs(measured - tone.accelerationRMS) < 0.5 / 256, "\(measured) g vs \(tone.accelerationRMS) g")
        #expect(samples.allSatisfy { $0.y == 0 }, "only the tone's axis shakes")
        #expect(samples.allSatisfy { tone.axis == .z ? $0.x == 0 : $0.z == 256 })
    }

    @Test func theVibrationRidesOnEveryScene() throws {
        let vibration = MachineVibration(tones: [Self.fourAndAHalfAtFifty])
        let script = try AttitudeScript(parsing: "face:+x 1s, face:-y 1s")
        for scene in [SimulatedScene.sweep(roll: .zero, pitch: .zero, amplitude: Angle(degrees: 5), period: 0.5),
                      .scripted(script, start: 0), .pose(SimulatedPose(face: .minusZ)), .fixed(.zero)] {
            let rig = Self.rig(vibration, scene: scene)
            try rig.start(rateCode: Self.rate100)
            for (k, sample) in try rig.collect(200, hertz: 100).enumerated() {
                let t = Self.sampleTime(k, hertz: 100)
                let truth = scene.gravity(at: t) + vibration.toneAcceleration(at: t, seed: 7)
                #expect(abs(Double(sample.z) - truth.z * 256) <= 0.5 + 1e-9, "\(scene) sample \(k)")
                #expect(abs(Double(sample.x) - truth.x * 256) <= 0.5 + 1e-9, "\(scene) sample \(k)")
            }
        }
    }

    @Test func aNewSceneKeepsTheVibrationAndSetVibrationStopsIt() throws {
        let rig = Self.rig(MachineVibration(tones: [Self.fourAndAHalfAtFifty]))
        try rig.start(rateCode: Self.rate800)
        rig.chip.setScene(.pose(SimulatedPose(face: .plusX)))
        #expect(rig.chip.vibration == MachineVibration(tones: [Self.fourAndAHalfAtFifty]))
        let shaken = try rig.collect(400, hertz: 800)
        #expect(Set(shaken.map(\.z)).count > 10, "z still shakes on the +x face")
        #expect(shaken.allSatisfy { $0.x == 256 })
        rig.chip.setVibration(nil)
        #expect(rig.chip.vibration == nil && rig.chip.configuration.vibration == nil)
        #expect(try rig.collect(400, hertz: 800).allSatisfy { $0 == SimSample(x: 256, y: 0, z: 0) })
    }

    @Test func aToneAtTheODRItselfAliasesToAConstant() throws {
        // Point sampling with no filter model: 100 Hz sampled at 100 Hz reads the same phase every
        // time, a constant offset, as the documentation says.
        let tone = VibrationTone(axis: .z, velocityRMS: 1, frequency: 100)
        let rig = Self.rig(MachineVibration(tones: [tone]))
        try rig.start(rateCode: Self.rate100)
        let z = try rig.collect(300, hertz: 100).map(\.z)
        #expect(Set(z).count <= 2, "\(Set(z))")
        let expected = 1 + MachineVibration(tones: [tone]).toneAcceleration(at: Self.sampleTime(0, hertz: 100), seed: 7).z
        #expect(abs(Double(z[0]) - expected * 256) <= 0.5 + 1e-9)
    }

    // MARK: Phases and noise from the seed

    @Test func theSameSeedRepeatsTheRunAndAnotherSeedShiftsThePhases() throws {
        let vibration = MachineVibration(tones: [Self.fourAndAHalfAtFifty, Self.oneAtHundredTwenty], noise: 0.01)
        func run(seed: UInt64) throws -> [SimSample] {
            let rig = Self.rig(vibration, seed: seed)
            try rig.start(rateCode: Self.rate800)
            return try rig.collect(400, hertz: 800)
        }
        #expect(try run(seed: 42) == run(seed: 42))
        #expect(try run(seed: 42) != run(seed: 43))
        let phases = vibration.phases(seed: 42)
        #expect(phases == vibration.phases(seed: 42) && phases != vibration.phases(seed: 43))
        #expect(phases.count == 2 && phases[0] != phases[1])
        #expect(phases.allSatisfy { $0 >= 0 && $0 < 2 * Double.pi })
        // A tone's phase depends only on the seed and its place: adding a tone keeps the first's.
        #expect(MachineVibration(tones: [Self.fourAndAHalfAtFifty]).phases(seed: 42) == [phases[0]])
    }

    @Test func broadbandNoiseHasItsRMSOnEveryAxisAtAnyODR() throws {
        for (code, hertz) in [(Self.rate100, 100.0), (Self.rate800, 800.0)] {
            let rig = Self.rig(MachineVibration(noise: 0.05))
            try rig.start(rateCode: code)
            let samples = try rig.collect(4000, hertz: hertz)
            let axes = [samples.map { Double($0.x) / 256 }, samples.map { Double($0.y) / 256 },
                        samples.map { Double($0.z) / 256 }]
            for values in axes {
                // 4000 samples: the RMS's standard error is 1.1 %; quantization adds 0.02 %.
                let measured = Self.rms(values)
                #expect(abs(measured - 0.05) < 0.05 * 0.045, "\(measured) g at \(hertz) Hz")
            }
            #expect(abs(Self.correlation(axes[0], axes[1])) < 0.06, "axes independent")
            #expect(abs(Self.correlation(Array(axes[2].dropFirst()), Array(axes[2].dropLast()))) < 0.06,
                    "white: sample to sample independent")
        }
    }

    @Test func broadbandNoiseIsApartFromTheChipsOwnNoise() throws {
        // The same seed drives both; the machine's must not copy the chip's.
        func zs(_ rig: SimRig) throws -> [Double] {
            try rig.start(rateCode: Self.rate100)
            return try rig.collect(4000, hertz: 100).map { Double($0.z) / 256 - 1 }
        }
        let machine = try zs(Self.rig(MachineVibration(noise: 0.02), seed: 9))
        let chip = try zs(Self.rig(nil, seed: 9, chipNoise: 5))  // 5 LSB ≈ 0.02 g on x and y, 7.3 LSB on z
        #expect(abs(Self.correlation(machine, chip)) < 0.06)
        let both = try zs(Self.rig(MachineVibration(noise: 0.02), seed: 9, chipNoise: 5))
        let expected = (Self.rms(machine) * Self.rms(machine) + Self.rms(chip) * Self.rms(chip)).squareRoot()
        #expect(abs(Self.rms(both) - expected) < expected * 0.03, "independent noises add in quadrature")
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(min(a.count, b.count))
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) {
            sab += (x - ma) * (y - mb)
            saa += (x - ma) * (x - ma)
            sbb += (y - mb) * (y - mb)
        }
        return sab / (saa * sbb).squareRoot()
    }

    // MARK: The schedule

    @Test func aScheduleRunsOnThenStopsOffRepeatingFromItsStart() throws {
        let schedule = try #require(MachineSchedule(on: 0.3, off: 0.2, start: 1))
        #expect(schedule.period == 0.5)
        #expect(!schedule.isRunning(at: 0) && !schedule.isRunning(at: 1.0.nextDown))
        #expect(schedule.isRunning(at: 1) && schedule.isRunning(at: 1.15))
        #expect(!schedule.isRunning(at: 1.35) && schedule.isRunning(at: 1.6) && !schedule.isRunning(at: 1.85))
        let edges = schedule.edges(from: 1, to: 2.1)
        #expect(edges.map(\.starts) == [true, false, true, false, true])
        let expected = [1, 1.3, 1.5, 1.8, 2.0]
        #expect(zip(edges.map(\.time), expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(edges)")
        #expect(schedule.nextEdge(after: 0) == MachineSchedule.Edge(time: 1, starts: true))
        #expect(schedule.nextEdge(after: 1) == schedule.edge(cycle: 0, starts: false))
        #expect(schedule.nextEdge(after: schedule.edge(cycle: 0, starts: false).time) == schedule.edge(cycle: 1, starts: true))
        #expect(schedule.nextEdge(after: .nan) == nil && !schedule.isRunning(at: .infinity))
    }

    @Test(arguments: [(0.3, 0.2, 0.0), (0.1, 0.7, 123_456.789), (30.0, 10.0, 604_800.0), (1.0 / 3, 1.0 / 7, 0.1)] as [(Double, Double, Double)])
    func everyEdgeIsExactlyWhereTheRunningChanges(on: Double, off: Double, start: Double) throws {
        let schedule = try #require(MachineSchedule(on: on, off: off, start: start))
        var cycles = Array(0..<200)
        cycles += [12_345, 99_999, 1_000_000]
        for cycle in cycles {
            for starts in [true, false] {
                let edge = schedule.edge(cycle: cycle, starts: starts)
                #expect(schedule.isRunning(at: edge.time) == starts, "cycle \(cycle) at \(edge.time)")
                #expect(schedule.isRunning(at: edge.time.nextDown) == !starts, "just before cycle \(cycle)")
                #expect(schedule.nextEdge(after: edge.time.nextDown) == edge)
            }
        }
    }

    @Test(arguments: [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (Double.nan, 1.0), (1.0, Double.infinity)] as [(Double, Double)])
    func aScheduleNeedsPositiveFiniteOnAndOff(on: Double, off: Double) {
        #expect(MachineSchedule(on: on, off: off) == nil)
    }

    @Test func theVibrationIsAbsentWhileTheMachineIsStopped() throws {
        let schedule = try #require(MachineSchedule(on: 0.25, off: 0.15, start: 0.05))
        let vibration = MachineVibration(tones: [Self.fourAndAHalfAtFifty, Self.oneAtHundredTwenty], noise: 0.02,
                                         schedule: schedule)
        let rig = Self.rig(vibration)
        try rig.start(rateCode: Self.rate800)
        let samples = try rig.collect(1600, hertz: 800)
        var running = 0, stopped = 0
        for (k, sample) in samples.enumerated() {
            let t = Self.sampleTime(k, hertz: 800)
            if schedule.isRunning(at: t) {
                running += 1
                #expect(vibration.isRunning(at: t))
            } else {
                stopped += 1
                #expect(sample == SimSample(x: 0, y: 0, z: 256), "sample \(k) at \(t) s, stopped")
                #expect(vibration.toneAcceleration(at: t, seed: 7) == .zero)
            }
        }
        // Two seconds from 0.05 s: 5 cycles of 0.4 s, 5/8 running.
        #expect(abs(Double(running) / Double(samples.count) - 0.625) < 0.02 && stopped > 0)
        let shaken = samples.enumerated().filter { schedule.isRunning(at: Self.sampleTime($0.offset, hertz: 800)) }
        #expect(Set(shaken.map(\.element.z)).count > 50, "and present while it runs")
    }

    @Test func aSampleTakenAtAStartEdgeShakesAndOneAtAStopEdgeDoesNot() throws {
        // Edges exactly on sample instants: the start edge belongs to the run, the stop edge not.
        let tone = VibrationTone(axis: .x, velocityRMS: 2, frequency: 33)
        let start = Self.sampleTime(40, hertz: 800)
        let on = Self.sampleTime(100, hertz: 800) - start
        let schedule = try #require(MachineSchedule(on: on, off: 1, start: start))
        let vibration = MachineVibration(tones: [tone], schedule: schedule)
        let rig = Self.rig(vibration)
        try rig.start(rateCode: Self.rate800)
        let samples = try rig.collect(200, hertz: 800)
        for (k, sample) in samples.enumerated() {
            let t = Self.sampleTime(k, hertz: 800)
            let x = (MachineVibration(tones: [tone]).toneAcceleration(at: t, seed: 7).x * 256).rounded()
            #expect(sample.x == ((40..<100).contains(k) ? Int(x) : 0), "sample \(k)")
        }
        #expect(samples[40].x != 0 && schedule.isRunning(at: start) && !schedule.isRunning(at: start + on))
    }
}
