import Contract
import Geometry
import Settings
import Testing

/// `written_at` on `P/config/set`, and the order it gives writes the broker delivered out of order.
@Suite("Desired config: written_at and the order of writes")
struct WriteOrderTests {
    @Test func writtenAtIsReadAndIsNoSetting() throws {
        let desired = try LiveSettings.desiredConfig(json: Array(#"{"level_tolerance": 0.2, "written_at": 1764626400.5}"#.utf8))
        #expect(desired.writtenAt == 1_764_626_400.5)
        #expect(desired.settings.keys.sorted() == ["level_tolerance"])
        #expect(try LiveSettings.desiredConfig(json: Array(#"{"written_at": 7}"#.utf8)).writtenAt == 7)
        #expect(try LiveSettings.desiredConfig(json: Array(#"{"written_at": null}"#.utf8)).writtenAt == nil)
        // applying(json:) takes a stamped message as it takes an unstamped one.
        let applied = try LiveSettings().applying(json: Array(#"{"level_tolerance": 0.2, "written_at": 5}"#.utf8))
        #expect(applied.levelTolerance.degrees == 0.2)
    }

    @Test("A written_at that is no positive number refuses the whole message", arguments: [
        #"{"level_tolerance": 0.2, "written_at": "yesterday"}"#, #"{"written_at": 0}"#, #"{"written_at": -3}"#,
        #"{"written_at": true}"#, #"{"written_at": [1]}"#,
    ])
    func badWrittenAt(payload: String) {
        #expect(throws: SettingsRejection.self) { try LiveSettings.desiredConfig(json: Array(payload.utf8)) }
        do {
            _ = try LiveSettings.desiredConfig(json: Array(payload.utf8))
        } catch {
            #expect(error.key == "written_at")
            #expect(error.reason.contains("Unix seconds"))
        }
    }

    @Test func anOlderStampLosesPerKeyAndANewerOneWins() {
        var order = WriteOrder()
        order.record([.levelTolerance, .alarmThreshold], at: 100)
        #expect(order.superseded([.levelTolerance, .mount], writtenAt: 99) == [.levelTolerance])
        #expect(order.superseded([.levelTolerance], writtenAt: 100).isEmpty, "the same instant is no later write")
        #expect(order.superseded([.levelTolerance], writtenAt: 101).isEmpty)
        order.record([.levelTolerance], at: 101)
        #expect(order.lastWritten(.levelTolerance) == 101)
        // A record never moves a key's time back.
        order.record([.levelTolerance], at: 50)
        #expect(order.lastWritten(.levelTolerance) == 101)
        #expect(order.lastWritten(.mount) == nil)
    }
}
