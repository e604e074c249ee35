import Contract
import Geometry
import HomeAssistant
import Settings

/// When `P/bubble`, the picture of the last published state, goes out: when it changed or must
/// be re-sent (a connect, Home Assistant's restart), at most once per ``interval``.
///
/// A value type with no I/O: ``AgentCore`` publishes the picture it returns.
struct BubblePublisher: Sendable {
    /// Seconds between two pictures at the most.
    static let interval = 1.0

    /// The picture last sent, and when.
    private(set) var last: String?
    private(set) var lastTime = -Double.infinity
    /// Whether the next picture goes out even if it is the last one again.
    private(set) var needsSending = true

    /// Makes the next picture go out even unchanged: a subscriber may have missed the last one.
    mutating func resend() {
        needsSending = true
    }

    /// The picture to send at `now`, recorded as sent; nil within ``interval`` of the last or
    /// when it is the last one again. `draw` is asked only when a picture may go out.
    mutating func next(at now: Double, drawing draw: () -> String) -> String? {
        guard now - lastTime >= Self.interval else { return nil }
        let svg = draw()
        guard needsSending || svg != last else { return nil }
        last = svg
        lastTime = now
        needsSending = false
        return svg
    }

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
