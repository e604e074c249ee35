import Accelerometers
import Geometry
import I2C
import PlumbSync
import SimulatedADXL345

/// The simulated chip, with every `readRegisterRuns` call recorded, and optionally one call that
/// carries only its first runs and then fails with EIO, as a transfer that breaks off mid-way.
final class RecordingBus: I2CBus {
    let base: SimulatedADXL345
    private let state = Locked(State())
    var name: String { base.name }
    var transferMode: I2CTransferMode { base.transferMode }
    var maxRunsPerTransaction: Int { base.maxRunsPerTransaction }

    private struct State {
        var calls: [[RegisterRun]] = []
        var breakNextBatchAfter: Int?
    }

    init(_ base: SimulatedADXL345) {
        self.base = base
    }

    /// The runs of every `readRegisterRuns` call so far, oldest first.
    var calls: [[RegisterRun]] { state.withLock { $0.calls } }

    /// The next call of more than one run carries its first `runs` runs, then fails.
    func breakNextBatch(after runs: Int) {
        state.withLock { $0.breakNextBatchAfter = runs }
    }

    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try base.readRegisters(at: address, from: register, count: count)
    }

    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try base.writeRegister(at: address, register, value: value)
    }

    func readRegisterRuns(at address: I2CAddress, _ runs: [RegisterRun]) throws(I2CError) -> [[UInt8]] {
        let breakAfter: Int? = state.withLock { state in
            state.calls.append(runs)
            guard runs.count > 1, let after = state.breakNextBatchAfter else { return nil }
            state.breakNextBatchAfter = nil
            return after
        }
        if let breakAfter {
            _ = try base.readRegisterRuns(at: address, Array(runs.prefix(breakAfter)))
            throw I2CError(code: .busError, bus: name, address: address, errno: 5, operation: "read of \(runs.count) register runs")
        }
        return try base.readRegisterRuns(at: address, runs)
    }
}

/// The test's manual clock, read by the driver with an offset that can be moved ahead of the
/// chip's time: a driver that believes more time passed than did.
final class SkewedClock: PacingClock {
    let base: ManualSimulationClock
    private let skew = Locked(0.0)

    init(_ base: ManualSimulationClock) {
        self.base = base
    }

    /// Moves the driver's idea of time `seconds` ahead of the chip's, from now on.
    func jump(by seconds: Double) {
        skew.withLock { $0 += seconds }
    }

    func now() -> Double { base.now() + skew.withLock { $0 } }

    func sleep(seconds: Double) { base.advance(by: seconds) }
}

/// A chip with enough noise that no two consecutive samples are equal (so a stale read, which
/// returns the previous entry again, shows as a repeat), driven by the real driver on a manual
/// clock, with every entry the chip ever produced available from a twin read one entry per
/// transaction on the same clock.
struct TwinRig {
    let clock = ManualSimulationClock()
    let chip: SimulatedADXL345
    let bus: RecordingBus
    let driverClock: SkewedClock
    let driver: ADXL345
    /// An identical chip on the same clock, drained entry by entry: the reference sequence.
    let twin: SimulatedADXL345
    let twinDriver: ADXL345

    static let configuration = SimulatedADXL345.Configuration(
        scene: .sweep(roll: .zero, pitch: .zero, amplitude: Angle(degrees: 5), period: 3), noiseXY: 40, seed: 11)

    init() {
        chip = SimulatedADXL345(configuration: Self.configuration, clock: clock)
        bus = RecordingBus(chip)
        driverClock = SkewedClock(clock)
        driver = ADXL345(bus: bus, clock: driverClock)
        twin = SimulatedADXL345(configuration: Self.configuration, clock: clock)
        twinDriver = ADXL345(bus: OneReadPerTransactionBus(twin), clock: clock)
    }

    /// Starts both chips at the same instant.
    func start(hertz: Double) throws -> SamplingSettings {
        let settings = try driver.start(SamplingRequest(rateHz: hertz, rangeG: 16))
        _ = try twinDriver.start(SamplingRequest(rateHz: hertz, rangeG: 16))
        return settings
    }

    /// Every entry the twin holds, read one transaction each.
    func reference(into samples: inout [Vector3]) throws {
        _ = try twinDriver.drain(into: &samples)
    }

    /// `count` times: `interval` passes, then the driver drains into `samples`.
    func drain(_ count: Int, every interval: Double, into samples: inout [Vector3]) throws {
        for _ in 0..<count {
            clock.advance(by: interval)
            _ = try driver.drain(into: &samples)
        }
    }

    /// `count` times: `interval` passes, then the driver drains into `samples` and the twin into
    /// `reference`.
    func drainBoth(_ count: Int, every interval: Double, into samples: inout [Vector3],
                   reference: inout [Vector3]) throws {
        for _ in 0..<count {
            clock.advance(by: interval)
            _ = try driver.drain(into: &samples)
            try self.reference(into: &reference)
        }
    }
}

/// Whether `part` appears in `whole` in order, each element matched to a later one than the last.
func isSubsequence(_ part: [Vector3], of whole: [Vector3]) -> Bool {
    var index = whole.startIndex
    for element in part {
        guard let found = whole[index...].firstIndex(of: element) else { return false }
        index = found + 1
    }
    return true
}

/// How many elements equal the one before them.
func repeats(_ samples: [Vector3]) -> Int {
    zip(samples, samples.dropFirst()).count { $0 == $1 }
}
