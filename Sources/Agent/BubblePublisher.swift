import Contract
import Drawing
import Geometry
import HomeAssistant
import Settings

/// When `P/bubble`, the picture of the last published state, goes out: when it changed or must
/// be re-sent (a connect, Home Assistant's restart), at most once per ``bubblePictureInterval``.
///
/// A value type with no I/O: ``AgentCore`` draws and publishes the picture it returns. Generic
/// so its timing can be tested with any picture; the agent's is a ``Scene``.
struct BubblePublisher<Picture: Equatable & Sendable>: Sendable {
    /// The picture last sent, and when.
    private(set) var last: Picture?
    private(set) var lastTime = -Double.infinity
    /// Whether the next picture goes out even if it is the last one again.
    private(set) var needsSending = true

    /// Makes the next picture go out even unchanged: a subscriber may have missed the last one.
    mutating func resend() {
        needsSending = true
    }

    /// The picture to send at `now`, recorded as sent; nil within ``interval`` of the last or
    /// when it is the last one again. `draw` is asked only when a picture may go out.
    mutating func next(at now: Double, drawing draw: () -> Picture) -> Picture? {
        guard now - lastTime >= bubblePictureInterval else { return nil }
        let picture = draw()
        guard needsSending || picture != last else { return nil }
        last = picture
        lastTime = now
        needsSending = false
        return picture
    }
}

/// Seconds between two bubble pictures at the most.
let bubblePictureInterval = 1.0

extension BubblePublisher where Picture == Scene {
    /// The picture of the last published state: it changes only when the state does, so a still
    /// machine sends no pictures, and noise below the publish deadband redraws nothing.
    ///
    /// - Parameters:
    ///   - gravity: The level-frame gravity of the last state message; nil for none.
    ///   - level: The level state; nil before the pipeline decided it, when `gravity` decides.
    static func picture(gravity: Vector3?, level: Bool?, sensorOK: Bool, settings: LiveSettings) -> BubblePicture {
        let level = level ?? gravity.map { Attitude(gravity: $0).isLevel(tolerance: settings.levelTolerance) }
        return BubblePicture(levelGravity: sensorOK ? gravity : nil, mount: settings.mount,
                             tolerance: settings.levelTolerance, level: level ?? false, unit: settings.angleUnit)
    }
}
