import Contract
import Drawing
import PictureRendering
import Geometry
import HomeAssistant
import Level
import MQTT
import Settings

extension AgentCore {
    // MARK: Discovery

    /// Publishes the discovery configs that changed (all of them after `force`), retained, after
    /// clearing the ones the settings no longer publish (``DiscoveryPublisher/messages(for:force:)``).
    func publishDiscovery(force: Bool) {
        guard link.canPublish, let messages = discovery?.messages(for: settings, force: force) else { return }
        publishDiscovery(messages)
    }

    /// Clears, once per connect and before the configs, the discovery topics a run in another
    /// angle unit, a run with vibration on, or an older version may have left retained.
    func clearStaleDiscovery() {
        guard link.canPublish, let removals = discovery?.staleRemovals() else { return }
        publishDiscovery(removals)
    }

    private func publishDiscovery(_ messages: [DiscoveryMessage]) {
        for message in messages { send(.discovery(message)) }
    }

    /// Home Assistant said `online` (it started): after a random 1–5 s, discovery and then the
    /// current states again. A later `online` within the delay replaces the pending one.
    func homeAssistantCameOnline() {
        guard let generation = discovery?.homeAssistantCameOnline() else { return }
        let delay = Double.random(in: DiscoveryPublisher.homeAssistantDelay)
        log.info("Home Assistant is online; re-sending discovery in \(delay.rounded(toDecimals: 1)) s")
        Task {
            try? await Task.sleep(for: .seconds(delay))
            self.resendToHomeAssistant(generation: generation)
        }
    }

    func resendToHomeAssistant(generation: Int) {
        guard discovery?.isCurrent(generation) == true, link.canPublish else { return }
        publishDiscovery(force: true)
        send(.status(online: true))
        publishConfig()
        publishCalibration()
        publishLevel()
        publishState(reason: .homeAssistant)
        if healthIsReady { publishHealth(at: clock()) }
        bubble.resend()
    }

    // MARK: The bubble picture

    /// Publishes `P/bubble` (retained, a PNG for Home Assistant's MQTT camera) when the picture of
    /// the last published state changed or must be re-sent, at most once a second
    /// (``BubblePublisher``). The PNG is drawn only then: a still machine draws nothing. With
    /// discovery off there is no camera to read it, and nothing is drawn or sent: pictures are
    /// most of an agent's bytes (``clearBubbleWithoutDiscovery()``).
    func publishBubbleIfChanged(at now: Double) {
        guard link.canPublish, discovery != nil, state.gravity != nil || sensor.isFaulty else { return }
        let scene = bubble.next(at: now) {
            BubblePublisher<Scene>.picture(gravity: state.gravity, level: pipeline.isLevel, sensorOK: sensor.mayReport,
                                           settings: settings).scene
        }
        guard let scene else { return }
        do {
            send(.bubble(png: try environment.pictures.png(of: scene)))
        } catch {
            log.warning("the bubble picture could not be drawn: \(error). Plumb tries again with the next reading.")
        }
    }

    /// With discovery off, clears at each connect the picture a run with it on left retained, which
    /// would otherwise stand on the broker as the device's current picture for ever.
    func clearBubbleWithoutDiscovery() {
        guard link.canPublish, discovery == nil else { return }
        send(.clear(topic: topics.bubble))
    }
}
