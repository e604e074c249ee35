import FuzzSupport
import Ruler

// Length text as the ruler services and the CLI read it ("1 3/16in"), and a unit alone.
runFuzzer { data, count in
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    _ = try? LengthText(parsing: text)
    _ = RulerUnit(parsing: text)
    return 0
}
