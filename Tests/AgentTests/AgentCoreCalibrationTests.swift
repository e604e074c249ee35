import Accelerometers
import Agent
import Configuration
import Contract
import Foundation
import Geometry
import Level
import MQTT
import MQTTTesting
import Persistence
import Sampling
import SimulatedADXL345
import Testing

/// The calibration commands, the stable-only zero and `P/calibration`, without a broker.
@Suite("AgentCore: calibration, reversal and the stable zero")
struct AgentCoreCalibrationTests {
    typealias Rig = AgentCoreTests.Rig

    /// The chip's zero error, device frame, in g: 10 mg on x, −6 mg on y.
    static let zeroError = Vector3(x: 0.010, y: -0.006, z: 0)
    /// The surface: 0.3° of roll and −0.2° of pitch.
    static let surface = Attitude.gravity(roll: Angle(degrees: 0.3), pitch: Angle(degrees: -0.2))
    /// The surface as the device sees it turned 180° about the vertical.
    static let surfaceTurned = Vector3(x: -surface.x, y: -surface.y, z: surface.z)
    static let started = SamplingUpdate.started(SamplingSettings(rateHz: 100, rangeG: 16, watermark: 10, bufferCapacity: 33))

    static func connected(_ rig: Rig) async {
        rig.mqtt.simulateConnect()
        await rig.connect()
        await rig.core.handle(started)
    }

    static func events(_ rig: Rig, _ type: EventType) -> [[String: Any]] {
        rig.mqtt.published(on: rig.topics.event).compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
            .filter { $0["type"] as? String == type.rawValue }
    }

    static func command(_ rig: Rig, _ command: Command, _ payload: String = "") async {
        await rig.core.handle(.message(MQTTMessage(topic: rig.topics.command(command), payload: Array(payload.utf8))))
    }

    static func calibration(_ rig: Rig) throws -> [String: Any] {
        let payload = try #require(rig.mqtt.lastRetained(on: rig.topics.calibration)?.payload)
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    static func lastState(_ rig: Rig) throws -> [String: Any] {
        let payload = try #require(rig.mqtt.lastRetained(on: rig.topics.state)?.payload)
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    @Test func theReversalSeparatesZeroErrorFromSurfaceSavesAppliesAndPublishes() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        #expect(try Self.calibration(rig)["method"] is NSNull, "no calibration: every key there, null")
        await rig.feed(gravity: Self.surface + Self.zeroError)
        await Self.command(rig, .calibrateReversal, "first")
        let progress = try #require(Self.events(rig, .calibrationProgress).first)
        #expect(progress["step"] as? String == "first" && progress["stable"] as? Bool == true)

        await rig.feed(gravity: Self.surface, spread: 0.2)  // picked up and turned
        await rig.feed(gravity: Self.surfaceTurned + Self.zeroError)
        await Self.command(rig, .calibrateReversal, "second")
        let applied = try #require(Self.events(rig, .calibrationApplied).first, "\(Self.events(rig, .calibrationRejected))")
        #expect(applied["method"] as? String == "reversal")
        #expect(applied["stable"] as? Bool == true)
        #expect(applied["persisted"] == nil, "saved")
        let offset = try #require(applied["zero_offset_mg"] as? [Double])
        #expect(abs(offset[0] - 10) < 0.01 && abs(offset[1] + 6) < 0.01, "\(offset)")
        #expect(abs((applied["surface_roll_deg"] as? Double ?? 0) - 0.3) < 0.001, "\(applied)")
        #expect(abs((applied["surface_pitch_deg"] as? Double ?? 0) + 0.2) < 0.001, "\(applied)")

        let stored = StateStore(directory: rig.directory).loadCalibration()
        #expect(stored.record?.method == .reversal && stored.warning == nil)
        let published = try Self.calibration(rig)
        #expect(published["method"] as? String == "reversal")
        #expect(published["date"] as? String == stored.record?.date)
        #expect(published["calibration"] is [String: Any] && published["faces"] == nil)

        // Applied live: the turned position now reads the surface, turned.
        await rig.feed(gravity: Self.surfaceTurned + Self.zeroError)
        let state = try Self.lastState(rig)
        let expected = Attitude(gravity: Self.surfaceTurned)
        #expect(abs((state["roll"] as? Double ?? 0) - expected.roll.degrees) < 0.002, "\(state)")
        #expect(abs((state["pitch"] as? Double ?? 0) - expected.pitch.degrees) < 0.002, "\(state)")

        // The first step was used up: a second `second` has nothing to pair with.
        await Self.command(rig, .calibrateReversal, "second")
        #expect(Self.events(rig, .calibrationRejected).count == 1)
    }

    @Test func aReversalOnTopOfASixPointKeepsItsMatrixAndResidual() async throws {
        let matrix = Matrix3(rows: Vector3(x: 1.01, y: 0.002, z: 0), Vector3(x: 0, y: 0.99, z: 0), Vector3(x: 0, y: 0, z: 1))
        let tumble = CalibrationRecord(method: .sixPoint, chip: .init(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5"),
                                       residualMilliG: .init(rms: 0.4, max: 0.6),
                                       calibration: try Calibration(matrix: matrix, offset: Vector3(x: 0.001, y: 0, z: 0)))
        let rig = try Rig(calibration: tumble)
        await Self.connected(rig)
        await rig.feed(gravity: tumble.calibration.raw(correctedTo: Self.surface + Self.zeroError)!)
        await Self.command(rig, .calibrateReversal, "first")
        await rig.feed(gravity: Self.surface, spread: 0.2)
        await rig.feed(gravity: tumble.calibration.raw(correctedTo: Self.surfaceTurned + Self.zeroError)!)
        await Self.command(rig, .calibrateReversal, "second")
        let stored = try #require(StateStore(directory: rig.directory).loadCalibration().record)
        #expect(stored.method == .sixPointAndReversal)
        #expect(stored.residualMilliG == tumble.residualMilliG && stored.chip == tumble.chip)
        #expect(stored.calibration.matrix == matrix)
        #expect(try Self.calibration(rig)["method"] as? String == "six_point+reversal")
    }

    @Test func secondWithoutFirstIsRefusedAndChangesNothing() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .calibrateReversal, "second")
        let rejected = try #require(Self.events(rig, .calibrationRejected).first)
        #expect(rejected["step"] as? String == "second")
        #expect((rejected["reason"] as? String)?.contains("no first reading") == true)
        #expect(Self.events(rig, .calibrationApplied).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/calibration.json"))
    }

    @Test(arguments: ["first", "second"])
    func aStepWhileNotStableIsRefused(step: String) async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface)
        if step == "second" { await Self.command(rig, .calibrateReversal, "first") }
        await rig.feed(gravity: Self.surface, spread: 0.2)
        await Self.command(rig, .calibrateReversal, step)
        let rejected = try #require(Self.events(rig, .calibrationRejected).first)
        #expect(rejected["stable"] as? Bool == false)
        #expect((rejected["reason"] as? String)?.contains("not stable") == true)
        #expect(Self.events(rig, .calibrationProgress).count == (step == "first" ? 0 : 1))
    }

    @Test func secondWithoutATurnIsRefused() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .calibrateReversal, "first")
        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .calibrateReversal, "second")
        let rejected = try #require(Self.events(rig, .calibrationRejected).first)
        #expect((rejected["reason"] as? String)?.contains("not been turned") == true)
    }

    @Test func readingsFromDifferentSpotsAreRefusedWithTheReversalsReason() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .calibrateReversal, "first")
        await rig.feed(gravity: Self.surface, spread: 0.2)
        // 9° away: the vertical parts differ by 12 mg, more than a turn on one spot allows.
        await rig.feed(gravity: Attitude.gravity(roll: Angle(degrees: 9), pitch: .zero))
        await Self.command(rig, .calibrateReversal, "second")
        let rejected = try #require(Self.events(rig, .calibrationRejected).first)
        #expect((rejected["reason"] as? String)?.contains("not the same spot") == true, "\(rejected)")
        #expect(Self.events(rig, .calibrationApplied).isEmpty)
    }

    @Test(arguments: ["third", "", "FIRST", "first\n{\"x\":1}"])
    func aBadPayloadIsRefusedNamingTheValidOnes(payload: String) async throws {
        let lines = AgentCoreTests.LogLines()
        let rig = try Rig(log: AgentLog(level: .warning, sink: lines))
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .calibrateReversal, payload)
        let rejected = try #require(Self.events(rig, .calibrationRejected).first)
        #expect((rejected["reason"] as? String)?.contains("the payloads are first and second") == true)
        #expect(Self.events(rig, .calibrationProgress).isEmpty)
        #expect(lines.all.count == 1 && !lines.all[0].contains("\n"), "one log line, escaped: \(lines.all)")
    }

    @Test func clearCalibrationRemovesTheFileGoesRawAndSaysSo() async throws {
        let record = CalibrationRecord(method: .reversal, chip: AgentCore.unknownChip,
                                       calibration: try Calibration(matrix: .identity, offset: Self.zeroError))
        let rig = try Rig(calibration: record)
        try StateStore(directory: rig.directory).save(calibration: record)
        await Self.connected(rig)
        #expect(try Self.calibration(rig)["method"] as? String == "reversal")
        await rig.feed(gravity: Self.surface + Self.zeroError)
        #expect(abs((try Self.lastState(rig)["roll"] as? Double ?? 0) - 0.3) < 0.002, "corrected")
        await Self.command(rig, .clearCalibration)
        let cleared = try #require(Self.events(rig, .calibrationCleared).first)
        #expect(cleared["previous_method"] as? String == "reversal")
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/calibration.json"))
        #expect(try Self.calibration(rig)["method"] is NSNull)
        await rig.feed(gravity: Self.surface + Self.zeroError)
        let raw = Attitude(gravity: Self.surface + Self.zeroError), state = try Self.lastState(rig)
        #expect(abs((state["roll"] as? Double ?? 0) - raw.roll.degrees) < 0.002, "raw again: \(state)")
        #expect(abs((state["pitch"] as? Double ?? 0) - raw.pitch.degrees) < 0.002, "raw again: \(state)")
    }

    @Test func aNewCalibrationKeepsTheZeroedPoseLevel() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        let pose = Attitude.gravity(roll: Angle(degrees: 2), pitch: Angle(degrees: 1)) + Self.zeroError
        await rig.feed(gravity: pose)
        await Self.command(rig, .zero)
        let record = CalibrationRecord(method: .reversal, chip: AgentCore.unknownChip,
                                       calibration: try Calibration(matrix: .identity, offset: Self.zeroError))
        await rig.core.reload(calibration: record, warning: nil)
        await rig.feed(gravity: pose)
        let state = try Self.lastState(rig)
        #expect(abs(state["tilt"] as? Double ?? 1) < 0.001, "the zeroed pose still reads level: \(state)")
        // Saved again in the new frame, so a restart agrees.
        let saved = try #require(StateStore(directory: rig.directory).load().zero?.referenceGravity)
        #expect((saved - record.calibration.apply(pose)).magnitude < 1e-9)
    }

    @Test func zeroWhileNotStableIsRefusedAndAStableOneSaysSo() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await rig.feed(gravity: Self.surface, spread: 0.2)
        await Self.command(rig, .zero)
        let rejected = try #require(Self.events(rig, .zeroRejected).first)
        #expect(rejected["stable"] as? Bool == false)
        #expect((rejected["reason"] as? String)?.contains("not stable") == true)
        #expect(Self.events(rig, .zeroed).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.directory + "/zero.json"))

        await rig.feed(gravity: Self.surface)
        await Self.command(rig, .zero)
        let zeroed = try #require(Self.events(rig, .zeroed).first)
        #expect(zeroed["stable"] as? Bool == true && zeroed["reference"] is [String: Any])
    }

    @Test func zeroWithoutAReadingIsRefusedWithAnEvent() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await Self.command(rig, .zero)
        let rejected = try #require(Self.events(rig, .zeroRejected).first)
        #expect(rejected["stable"] is NSNull)
        #expect((rejected["reason"] as? String)?.contains("no current reading") == true)
    }

    @Test func aSelfTestRunsBetweenBlocksOnTheSimulatedChipThenSamplingResumes() async throws {
        let chip = SimulatedADXL345()
        let sampling = SamplingService(rateHz: 100, rangeG: 16) { ADXL345(bus: chip, address: ADXL345.defaultAddress) }
        let rig = try Rig(sampling: sampling)
        rig.mqtt.simulateConnect()
        await rig.connect()
        let core = rig.core
        let pump = Task { for await update in sampling.start() { await core.handle(update) } }
        defer { pump.cancel() }
        func wait(_ what: String, until done: () -> Bool) async throws {
            let deadline = Date().addingTimeInterval(20)
            while !done() && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try #require(done(), "\(what) within 20 s")
        }
        try await wait("a first state") { !rig.mqtt.published(on: rig.topics.state).isEmpty }
        await Self.command(rig, .selftest)
        await Self.command(rig, .selftest)
        try await wait("two selftest events") { Self.events(rig, .selftest).count == 2 }
        let events = Self.events(rig, .selftest)
        #expect((events[0]["error"] as? String)?.contains("already running") == true, "the second is refused: \(events)")
        let result = events[1]
        #expect(result["passed"] as? Bool == true, "\(result)")
        #expect((result["axes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["x", "y", "z"])
        #expect(result["supply_voltage"] as? Double == 3.3 && result["samples_per_mean"] as? Int == 20)
        // Sampling resumed: new states keep coming.
        let before = rig.mqtt.published(on: rig.topics.state).count
        rig.clock.advance(100)
        try await wait("states after the self-test") {
            rig.mqtt.published(on: rig.topics.state).count > before
        }
        await sampling.stop()
    }

    @Test func aSelfTestWithNoChipSamplingIsReportedAsNotRun() async throws {
        let rig = try Rig()
        await Self.connected(rig)
        await Self.command(rig, .selftest)
        let deadline = Date().addingTimeInterval(5)
        while Self.events(rig, .selftest).isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let event = try #require(Self.events(rig, .selftest).first)
        #expect(event["passed"] is NSNull)
        #expect((event["error"] as? String)?.contains("not being sampled") == true, "\(event)")
    }
}

extension AgentCoreTests.Rig {
    /// One block of device-frame gravity, `spread` g rms within it: a spread far above the chip's
    /// noise is a device being handled, which is not stable.
    func feed(gravity: Vector3, spread: Double = 0) async {
        clock.advance(0.1)
        let batch = SampleBatch.steady(gravity, spread: Vector3(x: spread, y: spread, z: spread), count: 10,
                                       time: clock.now(), rateHz: 100)
        await core.handle(.batch(batch, statistics: SamplerStatistics()))
    }
}
