/// JSON written by hand for the listing: JSONEncoder took half the time of a 10,000-device
/// `plumb fleet --json` (a boxed container per value). Only what the listing needs: objects
/// with keys in the order given, strings, numbers, booleans, null and string arrays.
struct JSONText {
    private(set) var text = ""
    /// Whether the object or array being written has a member yet (one flag per open one).
    private var started: [Bool] = []

    init(capacity: Int = 0) { text.reserveCapacity(capacity) }

    mutating func beginObject() {
        text.append("{")
        started.append(false)
    }

    mutating func endObject() {
        text.append("}")
        started.removeLast()
    }

    mutating func beginArray() {
        text.append("[")
        started.append(false)
    }

    mutating func endArray() {
        text.append("]")
        started.removeLast()
    }

    /// Starts the next element of the current array.
    mutating func element() {
        if started[started.count - 1] { text.append(",") }
        started[started.count - 1] = true
    }

    mutating func member(_ name: String, bool value: Bool?) {
        key(name)
        bool(value)
    }

    mutating func member(_ name: String, string value: String?) {
        key(name)
        string(value)
    }

    mutating func member(_ name: String, number value: Double?) {
        key(name)
        number(value)
    }

    mutating func member(_ name: String, strings values: [String]) {
        key(name)
        strings(values)
    }

    /// Writes `"key":` inside the current object.
    mutating func key(_ key: String) {
        if started[started.count - 1] { text.append(",") }
        started[started.count - 1] = true
        string(key)
        text.append(":")
    }

    mutating func null() { text.append("null") }

    mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        text.append(value ? "true" : "false")
    }

    /// A finite number in Swift's shortest form that reads back (`0.021`, `1e-05`); null for
    /// nil, NaN or infinity, which JSON cannot hold.
    mutating func number(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        // `12.0` → `12`: the same number, as a person writes it.
        if value == value.rounded(), abs(value) < 1e15 { return text.append(String(Int(value))) }
        text.append(value.description)
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        text.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }

    mutating func strings(_ values: [String]) {
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            string(value)
        }
        text.append("]")
    }
}
