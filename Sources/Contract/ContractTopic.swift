/// Every topic and topic family of the contract, one per row of the topic table that
/// ``MQTTReference`` writes: the names of ``Topics``, and Home Assistant's topics beside them.
///
/// Each of its facts is an exhaustive `switch`, so a topic added here cannot reach the page without
/// its direction, its retain flag, its QoS and its payload; a test checks that every topic
/// ``Topics`` builds has its row.
public enum ContractTopic: Sendable, Hashable, CaseIterable {
    /// `P/status`: `online` or `offline`, the will and the birth message.
    case status
    /// `P/state`: the reading.
    case state
    /// `P/level`: `ON` or `OFF`.
    case level
    /// `P/event`: the events, each an ``EventType``.
    case event
    /// `P/config`: the effective settings.
    case config
    /// `P/config/set`: a JSON object of settings to apply.
    case configSet
    /// `P/config/<key>/set`: one setting's value.
    case configKeySet
    /// Topics under `P/config/` that are no config topic, which the agent refuses and clears.
    case configStray
    /// `P/command/<name>`: a ``Command``.
    case command
    /// `P/calibration`: the calibration in force.
    case calibration
    /// `P/result`: the answer to the latest command or setting.
    case result
    /// `P/bubble`: the bubble-level picture.
    case bubble
    /// `P/probe`: the agent's check that the broker still delivers to it.
    case inboundProbe
    /// `P/request/<service>`: a ruler-service request, one per ``RulerServiceName``.
    case request
    /// `P/response/<service>`: a ruler-service reply.
    case response
    /// Home Assistant's discovery configs, under `mqtt.discovery_prefix`.
    case discovery
    /// Home Assistant's own status topic, under `mqtt.discovery_prefix`.
    case homeAssistantStatus
    /// A thermometer on the broker, the topic `sensor.temperature: mqtt:<topic>` names.
    case thermometer
    /// `P/vibration`: the vibration figures.
    case vibration
    /// `P/health`: the agent's counters, one per ``HealthKey``.
    case health

    /// Who publishes on a topic, seen from the agent.
    public enum Direction: String, Sendable, Hashable {
        /// The agent publishes it.
        case outbound = "out"
        /// The agent subscribes to it.
        case inbound = "in"
        /// The agent publishes it and reads it back.
        case both = "out and in"
    }

    /// What the retain flag means on a topic.
    public enum Retention: String, Sendable, Hashable {
        /// The agent publishes it retained.
        case retained = "yes"
        /// The agent publishes it not retained.
        case notRetained = "no"
        /// The agent takes a message retained or not.
        case either
        /// The agent acts only on a live message: a retained one would fire again at every
        /// reconnect.
        case ignored = "retained copies are ignored"
    }

    /// At which QoS messages travel on a topic.
    public enum QoS: String, Sendable, Hashable {
        /// The agent publishes at QoS 0: the next message replaces a lost one.
        case atMostOnce = "0"
        /// The agent publishes at QoS 1.
        case atLeastOnce = "1"
        /// A reply goes at the QoS its request came at.
        case request = "the request's"
        /// The agent subscribes at QoS 1, so a message arrives at its sender's QoS, at most 1.
        case sender = "the sender's (subscribed at 1)"
    }

    /// The topic with `P` for the device prefix and `<…>` for a level that varies, as the
    /// reference writes it: `P/config/<key>/set`. A filter the agent subscribes to keeps its
    /// wildcards (`P/config/+/+/+/#`).
    public var pattern: String {
        switch self {
        case .status: "P/status"
        case .state: "P/state"
        case .level: "P/level"
        case .event: "P/event"
        case .config: "P/config"
        case .configSet: "P/config/set"
        case .configKeySet: "P/config/<key>/set"
        case .configStray: "P/config/+/+/+/#"
        case .command: "P/command/<name>"
        case .calibration: "P/calibration"
        case .result: "P/result"
        case .bubble: "P/bubble"
        case .inboundProbe: "P/probe"
        case .request: "P/request/<service>"
        case .response: "P/response/<service>"
        case .discovery: "<prefix>/<component>/plumb_<id>/<object>/config"
        case .homeAssistantStatus: "<prefix>/status"
        case .thermometer: "<topic> of sensor.temperature: mqtt:<topic>"
        case .vibration: "P/vibration"
        case .health: "P/health"
        }
    }

    /// The topic as the table's first cell names it, in Markdown.
    public var title: String {
        switch self {
        // No one topic: a family the agent turns away, named by where it lies.
        case .configStray: "strays under `P/config/`"
        default: "`" + pattern + "`"
        }
    }

    /// Whether the agent publishes the topic, reads it, or both.
    public var direction: Direction {
        switch self {
        case .status, .state, .level, .event, .config, .calibration, .result, .bubble, .response, .discovery, .vibration,
             .health:
            .outbound
        case .configSet, .configKeySet, .configStray, .command, .request, .homeAssistantStatus, .thermometer: .inbound
        case .inboundProbe: .both
        }
    }

    /// The retain flag: the agent's on what it publishes, what it does with one on what it reads.
    public var retention: Retention {
        switch self {
        case .status, .state, .level, .config, .calibration, .result, .bubble, .discovery, .vibration, .health: .retained
        case .event, .inboundProbe, .response: .notRetained
        case .configSet, .configKeySet, .configStray, .thermometer: .either
        case .command, .request, .homeAssistantStatus: .ignored
        }
    }

    /// The QoS of what the agent publishes there, or of what it receives.
    public var qos: QoS {
        switch self {
        case .state, .level, .config, .bubble, .vibration, .health: .atMostOnce
        case .status, .event, .calibration, .result, .inboundProbe, .discovery: .atLeastOnce
        case .response: .request
        case .configSet, .configKeySet, .configStray, .command, .request, .homeAssistantStatus, .thermometer: .sender
        }
    }

    /// What the topic carries, when and why, in Markdown; links are relative to docs/reference/.
    /// `chipModels` are the models a probe reports, which only the drivers know: nothing above
    /// them names a chip.
    public func payload(chipModels: [String]) -> String {
        switch self {
        case .status:
            """
            `online` / `offline`. The last will (QoS 1, retained), the birth message on every connect, and sent \
            explicitly on a clean stop and on the broker the agent leaves for the first of `mqtt.brokers` (see \
            [Failover and persistent sessions](../guides/brokers-and-failover.md#failover-and-persistent-sessions)).
            """
        case .state:
            """
            JSON: `roll`, `pitch`, `tilt` (in `unit`; null where undefined or while the sensor is faulty), `unit`, \
            `level` (bool), `stable` (bool: the reading can be held, as an inclinometer's hold, judged on the \
            `average_window_s` window against the chip's own noise at the rate it runs at: see \
            [What `stable` means](../guides/command-line.md#what-stable-means); false while the sensor is faulty or \
            the window fills), `alarm` (bool), `gravity` {`x`,`y`,`z`} g (device frame, calibrated, averaged), \
            `sensor` (`ok`/`fault`), `temperature` (°C to 0.1 from `sensor.temperature`'s source; null without a \
            fresh one), `uncertainty` (the 95 % bound on the tilt's error, in `unit`, rounded up: see \
            [Temperature and uncertainty](../guides/temperature.md#temperature-and-uncertainty)), `roll_deg`, \
            `pitch_deg`, `tilt_deg`, `uncertainty_deg` (the same four in degrees whatever `unit` says, 3 decimals: \
            what Home Assistant's angle entities read), `ts` (ISO 8601 UTC, ms), `seq` (counts up from 1 each \
            start). Published when roll, pitch or tilt moves more than `publish_deadband_deg` from the last \
            published value (at most every `min_interval_s`), at once when level or alarm flips, when `stable` \
            changes (at most every `min_interval_s`: a zero or a reversal step waits for it), and at least every \
            `heartbeat_s`.
            """
        case .level:
            "`ON` / `OFF`"
        case .event:
            """
            JSON `type`, `ts` and details ([below](#events)). Kept in a queue of 200 while the broker is away and \
            delivered after the reconnect; when the queue is full the oldest are dropped and counted in \
            `health.dropped_events`.
            """
        case .config:
            "the effective settings as JSON, complete, thresholds in degrees"
        case .configSet:
            "a JSON object of settings, partial or full"
        case .configKeySet:
            "one raw value, e.g. `0.25`, `\"1.5 mm/m\"` or `mm_per_m`"
        case .configStray:
            """
            not the contract: `P/config//set`, and any topic three or more levels under `P/config/` \
            (`P/config/a/b/set`): refused with `config_rejected` (its `reason` names the topic and the two that \
            are), and cleared when retained, so no stray desired config stays on the broker: retained whether it \
            came at the agent's subscribe or was published while the agent listens (that filter is subscribed with \
            MQTT 5's retain-as-published, so a live message keeps its publisher's retain flag; on MQTT 3.1.1, where \
            a live message never says, every stray is cleared, an empty retained message that is a no-op when \
            nothing was kept). The agent subscribes to `P/config/set`, `P/config/+/set` and `P/config/+/+/+/#`, \
            which no topic matches twice (not `P/config/#`: overlapping subscriptions bring an MQTT 5 message once \
            per subscription); a stray one or two levels down that does not end in `/set` (`P/config/x`, \
            `P/config/a/b`) is not seen
            """
        case .command:
            "one of the [commands](#commands), by its name"
        case .calibration:
            """
            the calibration in force, JSON: `method` (`six_point`, `reversal`, `six_point+reversal`), `date` \
            (ISO 8601 UTC), `chip` {`bus`, `address`, `devid`, `model`} (the chip it was made on: `devid` is its \
            first identification register, `model` such as \(Self.example(chipModels)); absent from a calibration \
            made before Plumb read other chips), `residual_mg` {`rms`, `max`} (the tumble's; null for a reversal alone), \
            `calibration` {`matrix` (rows of M), `offset_g`} (the parameters: `g = M · (raw − offset)`), \
            `reversal` {`mount`, `zero_offset_mg`, `zero_roll_deg`, `zero_pitch_deg`, `surface_roll_deg`, \
            `surface_pitch_deg`} or null, `temperature_c` (the tumble's mean temperature, °C; for a merged record \
            the tumbles' mean, T₀; null when none was known), `drift` (the model `calibration.json` stores: \
            `origin` `bench` or `in_place`, `reference_c`, `offset_mg_per_c`, `sensitivity_ppm_per_c`, \
            `offset_sigma_mg_per_c`, `span_c`, `residual_mg`, `points`; null without one). With no calibration \
            (the chip reads raw) every key is there and null. Published at every connect and after every change \
            (a reversal, `clear_calibration`, SIGHUP)
            """
        case .result:
            """
            the answer to the latest command or setting, JSON: `command` (`zero`, `clear_zero`, `config`, \
            `calibrate_six_point`, `calibrate_reversal`, `clear_calibration`, `selftest`, `learn_drift`), `ok`, \
            `message` (one sentence: what happened, and when refused, what to do), `event` (the `P/event` type it \
            comes from), `ts`. Home Assistant's Last result sensor
            """
        case .bubble:
            """
            the bubble-level picture, a 200 × 200 palette PNG (about 4.5 KB), at most once a second and only when \
            it changes (see [The bubble picture](home-assistant.md#the-bubble-picture)); Home Assistant's Bubble \
            camera. Only with `mqtt.discovery` on: with it off nothing is drawn, and each connect clears a picture \
            left retained
            """
        case .inboundProbe:
            """
            the agent's own check that the broker still delivers QoS 1 and 2 messages to it: a random token after \
            `mqtt.inbound_probe_s` (default 30 s) without any QoS 1/2 delivery, which must come back within 10 s \
            (see [Inbound stalls](\(Self.inboundStalls))). The agent must be allowed to publish and subscribe to \
            it; nobody else needs it
            """
        case .request:
            """
            a ruler-service request: \(Self.rulerServices) (see \
            [The ruler service](ruler-service.md#the-ruler-service))
            """
        case .response:
            "the reply to a request that gave no MQTT 5 response topic"
        case .discovery:
            "Home Assistant discovery (see [Home Assistant](home-assistant.md#home-assistant))"
        case .homeAssistantStatus:
            "Home Assistant's `online`: discovery and the states are re-sent 1–5 s later"
        case .thermometer:
            """
            only with `sensor.temperature: mqtt:<topic>`: a thermometer's reading, a plain number (`21.5`,             `70.7°F`) or JSON with `temperature` or `value`, in °C unless a unit key says °F; a retained last value             counts as a live one. What is not a temperature is refused with `temperature_rejected`. The agent's             broker account must be allowed to read the topic ([Temperature](../guides/temperature.md))
            """
        case .vibration:
            """
            the vibration figures of the latest analysis window, JSON: `velocity_rms_mm_s`, `acceleration_rms_g`, \
            `peak_g`, `crest_factor`, `dominant_hz`, `peaks`, `axes` {`x`,`y`,`z`}, `band_hz` [low, high], `zone` \
            (`A`–`D`), `vibration_class`, `running` (null until decided), `window_s`, `rate_hz`, `ts`. At once on a \
            zone or running change, on movement beyond a deadband at most every `vibration_interval_s`, and at \
            least every `heartbeat_s`; cleared (empty, retained) while `vibration` is off. See \
            [Vibration](../guides/vibration.md#in-the-agent-pvibration-events-health)
            """
        case .health:
            """
            The first a couple of seconds after start, as soon as the rate is measured (2 s of readings), then \
            every 60 s. JSON with the [health keys](#health-keys)
            """
        }
    }

    /// One model for "such as": the first the drivers name.
    static func example(_ chipModels: [String]) -> String {
        chipModels.first.map(MQTTReference.code) ?? "the chip's model"
    }

    /// The services' names as code: `` `ruler`, `convert`, `rise`, `shim` ``.
    static let rulerServices = RulerServiceName.allCases.map { "`" + $0.rawValue + "`" }.joined(separator: ", ")

    /// The guide's section on inbound stalls, which the probe and its health key both point to.
    static let inboundStalls =
        "../guides/brokers-and-failover.md#reliability-inbound-stalls-and-what-a-client-with-publish-rights-can-do"
}
