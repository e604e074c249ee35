@testable import Agent
import Drawing
import Geometry
import HomeAssistant
import Settings
import Testing

/// When the bubble picture goes out, as a value, without the actor.
@Suite("Bubble publisher")
struct BubblePublisherTests {
    /// The picture `bubble` sends at `now` when the state's picture is `svg`.
    static func next(_ bubble: inout BubblePublisher<String>, _ svg: String, at now: Double) -> String? {
        bubble.next(at: now) { svg }
    }

    @Test func aChangedPictureGoesOutAtMostOnceASecond() {
        var bubble = BubblePublisher<String>()
        #expect(Self.next(&bubble, "a", at: 0) == "a", "the first picture goes out")
        #expect(Self.next(&bubble, "b", at: 0.5) == nil, "within a second of the last")
        #expect(Self.next(&bubble, "b", at: 1) == "b")
        #expect(Self.next(&bubble, "b", at: 5) == nil, "the same picture again is not sent")
    }

    @Test func aResendSendsTheSamePictureAgainOnce() {
        var bubble = BubblePublisher<String>()
        _ = Self.next(&bubble, "a", at: 0)
        bubble.resend()
        #expect(Self.next(&bubble, "a", at: 2) == "a")
        #expect(Self.next(&bubble, "a", at: 4) == nil)
    }

    @Test func thePictureIsDrawnOnlyWhenOneMayGoOut() {
        var bubble = BubblePublisher<String>()
        _ = Self.next(&bubble, "a", at: 0)
        var drawn = false
        _ = bubble.next(at: 0.5) { drawn = true; return "a" }
        #expect(!drawn)
    }

    @Test func withoutALevelStateTheGravityDecidesItAndAFaultDrawsNoBubble() {
        let settings = LiveSettings()
        let flat = Vector3(x: 0, y: 0, z: 1)
        let tilted = Attitude.gravity(roll: Angle(degrees: 3), pitch: .zero)
        let decided = BubblePublisher<Scene>.picture(gravity: flat, level: nil, sensorOK: true, settings: settings)
        #expect(decided == BubblePicture(levelGravity: flat, mount: .flat, tolerance: settings.levelTolerance, level: true,
                                         unit: settings.angleUnit))
        let off = BubblePublisher<Scene>.picture(gravity: tilted, level: nil, sensorOK: true, settings: settings)
        #expect(off == BubblePicture(levelGravity: tilted, mount: .flat, tolerance: settings.levelTolerance, level: false,
                                     unit: settings.angleUnit))
        let faulty = BubblePublisher<Scene>.picture(gravity: flat, level: true, sensorOK: false, settings: settings)
        #expect(faulty == BubblePicture(levelGravity: nil, mount: .flat, tolerance: settings.levelTolerance, level: true,
                                        unit: settings.angleUnit))
    }
}
