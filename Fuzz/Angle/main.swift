import FuzzSupport
import Geometry

// Angle text as the live angle keys, the config file and the CLI read it, and a unit alone.
runFuzzer { data, count in
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    _ = try? Angle.parse(text)
    _ = AngleUnit(parsing: text)
    return 0
}
