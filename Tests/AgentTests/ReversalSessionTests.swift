@testable import Agent
import Configuration
import Geometry
import Level
import Persistence
import Testing

/// `calibrate_reversal` between its two steps, as a value, without the actor.
@Suite("Reversal session")
struct ReversalSessionTests {
    static let chip = CalibrationRecord.Chip(bus: "/dev/i2c-1", address: "0x53", devid: "0xE5")
    /// A spot tilted a little, read by a chip with a small zero error, then the device turned 180°.
    static let first = Vector3(x: 0.010, y: 0.020, z: 0.9997)
    static let second = Vector3(x: 0.006, y: -0.010, z: 0.9997)

    /// Why `second` under `mount` and no calibration makes nothing; nil when it makes one.
    static func refusal(_ session: inout ReversalSession, second: Vector3 = second, mount: Mount = .flat)
        -> ReversalRefusal? {
        do {
            _ = try session.finish(second: second, calibration: .identity, mount: mount, base: nil)
            return nil
        } catch {
            return error
        }
    }

    @Test func aFirstThenATurnThenASecondMakeACalibrationAndEndTheSession() throws {
        var session = ReversalSession(chip: Self.chip)
        session.begin(gravity: Self.first, calibration: .identity, mount: .flat)
        session.noteReading(stable: true)
        #expect(session.first?.movedSince == false)
        session.noteReading(stable: false)
        #expect(session.first?.movedSince == true, "an unstable reading shows the turn")
        let made = try session.finish(second: Self.second, calibration: .identity, mount: .flat, base: nil)
        #expect(made.record.method == .reversal)
        #expect(made.record.chip == Self.chip, "no stored record names a chip")
        #expect(session.first == nil)
    }

    @Test func aSecondWithoutAFirstOrATurnIsRefusedAndATurnStillCompletes() throws {
        var session = ReversalSession(chip: Self.chip)
        #expect(Self.refusal(&session) == .noFirstReading)
        session.begin(gravity: Self.first, calibration: .identity, mount: .flat)
        #expect(Self.refusal(&session) == .notTurned)
        #expect(session.first != nil, "not turned yet: turning now still completes the reversal")
        session.noteReading(stable: false)
        _ = try session.finish(second: Self.second, calibration: .identity, mount: .flat, base: nil)
    }

    @Test func aChangedMountOrUnpairableReadingsDropTheFirst() {
        var session = ReversalSession(chip: Self.chip)
        session.begin(gravity: Self.first, calibration: .identity, mount: .flat)
        session.noteReading(stable: false)
        #expect(Self.refusal(&session, mount: .upright) == .changedSinceFirst)
        #expect(session.first == nil)

        session.begin(gravity: Self.first, calibration: .identity, mount: .flat)
        session.noteReading(stable: false)
        let refusal = Self.refusal(&session, second: Self.second * 0.5)
        guard case .unpaired = refusal else { Issue.record("expected unpaired, got \(String(describing: refusal))"); return }
        #expect(refusal?.reason.hasSuffix("Nothing was applied; start again with first.") == true)
        #expect(session.first == nil)
    }

    @Test func cancellingDropsTheFirst() {
        var session = ReversalSession(chip: Self.chip)
        session.begin(gravity: Self.first, calibration: .identity, mount: .flat)
        session.cancel()
        #expect(session.first == nil)
    }
}
