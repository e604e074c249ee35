/// The test controls every simulated chip offers over what it senses, written once: each
/// simulator supplies the two changes made under its own lock, and gets the rest.
public protocol SceneControls: AnyObject {
    /// Replaces the scene under the simulator's lock; `change` gets the current scene and the
    /// chip's clock, in seconds.
    func changeScene(_ change: (SimulatedScene, Double) -> SimulatedScene)
    /// Sets the die temperature from now on (a script's `temp:` words, while they run, still
    /// override it: ``SimulatedPartConfiguration/effectiveTemperature``).
    func setTemperatureProfile(_ temperature: SimulatedTemperature)
    /// The true die temperature at clock time `time`, °C: what the chip's drift follows, and what
    /// its sensor, where it has one, measures (plus its noise).
    func dieTemperature(at time: Double) -> Double
    /// The clock the chip runs on.
    var clock: any SimulationClock { get }
}

extension SceneControls {
    /// Holds the die temperature at `celsius` °C from now on, on every chip: the ADXL345 has no
    /// sensor Plumb reads, but it drifts.
    public func setTemperature(_ celsius: Double) {
        setTemperatureProfile(.constant(celsius))
    }

    /// The true die temperature now, °C, by the chip's clock.
    public var dieTemperature: Double {
        dieTemperature(at: clock.now())
    }

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
