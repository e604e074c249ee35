import Fleet

/// A fleet under `plumb` fed with `messages` (topic, payload text) in order.
func fleet(_ messages: [(String, String)], base: String = "plumb") -> Fleet {
    var fleet = Fleet(baseTopic: base)
    for (topic, payload) in messages { fleet.receive(topic: topic, payload: Array(payload.utf8)) }
    return fleet
}

/// The retained topics of a healthy device at `prefix`, with `state` overrides merged into P/state.
func healthyDevice(_ prefix: String, level: Bool = true, alarm: Bool = false, sensor: String = "ok",
                   status: String = "online", ts: String = "2026-12-01T12:00:00.000Z") -> [(String, String)] {
    [
        (prefix + "/status", status),
        (prefix + "/state", """
            {"alarm":\(alarm),"gravity":{"x":0,"y":0,"z":1},"level":\(level),"pitch":0,"roll":0,"sensor":"\(sensor)",\
            "seq":1,"stable":true,"tilt":0.021,"ts":"\(ts)","unit":"deg"}
            """),
        (prefix + "/level", level ? "ON" : "OFF"),
        (prefix + "/config", #"{"name":"Lathe","angle_unit":"deg","vibration":false}"#),
        (prefix + "/health", #"{"uptime_s":5,"version":"0.1.0"}"#),
        (prefix + "/calibration", #"{"method":null,"date":null,"chip":null,"calibration":null,"residual_mg":null,"reversal":null}"#),
    ]
}
