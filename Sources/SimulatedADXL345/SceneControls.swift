/// The test controls every simulated chip offers over what it senses, written once: each
/// simulator supplies the two changes made under its own lock, and gets the rest.
public protocol SceneControls: AnyObject {
    /// Replaces the scene under the simulator's lock; `change` gets the current scene and the
    /// chip's clock, in seconds.
    func changeScene(_ change: (SimulatedScene, Double) -> SimulatedScene)
    /// Sets the die temperature in °C from now on.
    func setTemperature(_ celsius: Double)
}

extension SceneControls {
    /// Changes what the chip senses from now on.
    public func setScene(_ scene: SimulatedScene) {
        changeScene { _, _ in scene }
    }

    /// Holds the chip still in `pose` from now on.
    public func setPose(_ pose: SimulatedPose) {
        setScene(.pose(pose))
    }

    /// Runs `script` from the clock's current time.
    public func run(_ script: AttitudeScript) {
        changeScene { _, now in .scripted(script, start: now) }
    }
}
