import FuzzSupport
import Settings

// A whole `P/config/set` message, applied to the defaults and, when it is accepted, to its own
// result again (a second pass runs the combination rules against non-default settings).
runFuzzer { data, count in
    let payload = inputBytes(data, count)
    if let applied = try? LiveSettings().applying(json: payload) {
        _ = try? applied.applying(json: payload)
    }
    return 0
}
